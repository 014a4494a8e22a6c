#pragma once
/// @file wait_mode.hpp
/// @brief The ways a host thread can wait for the GPU inside the library: spin or sleep
/// (host-compilable). host_wait.hpp explains the choice and sets it per thread.

#include <gnndirect/core/version.hpp>

#include <cstdint>
#include <string_view>

GNNDIRECT_NAMESPACE_BEGIN

/// How the calling thread waits for GPU work the library must see completed.
enum class wait_mode : std::uint8_t {
  spin,  ///< cudaStreamSynchronize: lowest latency, keeps a core busy while waiting
  sleep  ///< blocking-sync event: the thread sleeps until the GPU is done (no CPU time)
};

/// Stable lower-case name of a wait mode.
/// @param mode the mode  @return its name, or "unknown" for a value outside the enumeration
constexpr std::string_view to_string(wait_mode mode) noexcept
{
  return mode == wait_mode::sleep ? "sleep" : "spin";
}

GNNDIRECT_NAMESPACE_END
