#pragma once
// Test support: device-wide free-memory checks, which only mean something while no other process
// (or sanitizer tool) allocates on the same GPU.
#include <doctest/doctest.h>

#include <cstdlib>

namespace gnndirect::test {

/// True when other processes may allocate on this GPU meanwhile: GNNDIRECT_SHARED_DEVICE is set
/// (scripts/gpu sanitize sets it for its parallel sanitizer runs and for the tests running beside
/// them; the tools themselves also allocate device memory as the program runs).
inline bool device_is_shared() { return std::getenv("GNNDIRECT_SHARED_DEVICE") != nullptr; }

}  // namespace gnndirect::test

/// CHECK(now >= floor) for device free-memory readings; skipped, with a message, when the device
/// is shared (see device_is_shared). A macro so the report names the caller's line.
#define GNNDIRECT_CHECK_FREE_MEMORY(now, floor)                                                \
  do {                                                                                        \
    if (::gnndirect::test::device_is_shared()) {                                              \
      MESSAGE("device shared (GNNDIRECT_SHARED_DEVICE): skipped free-memory check " #now " >= " #floor); \
    } else {                                                                                  \
      CHECK((now) >= (floor));                                                                \
    }                                                                                         \
  } while (0)
