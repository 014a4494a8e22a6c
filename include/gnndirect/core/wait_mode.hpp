#pragma once
/// @file wait_mode.hpp
/// @brief The ways a host thread can wait for the GPU inside the library: spin or sleep
/// (host-compilable). host_wait.hpp explains the choice and sets it per thread.

#include <gnndirect/core/version.hpp>

#include <cstdint>
#include <string_view>

GNNDIRECT_NAMESPACE_BEGIN

/// How the calling thread waits for GPU work the library must see completed. Every thread starts
/// with spin; scoped_wait_mode (host_wait.hpp) changes it for one thread and one scope. Sleep
/// costs wake-up latency (some microseconds) for cores left free to other threads; the
/// mini-batch pipeline's workers, which wait most of the time, sleep.
enum class wait_mode : std::uint8_t {
  spin,  ///< cudaStreamSynchronize: lowest latency, keeps a core busy while waiting
  sleep  ///< blocking-sync event: the thread sleeps until the GPU is done (no CPU time)
};

/// Stable lower-case name of a wait mode.
/// @param mode the mode  @return "sleep" for wait_mode::sleep, "spin" for any other value (there
/// is no "unknown": a value outside the enumeration reads as spin)
constexpr std::string_view to_string(wait_mode mode) noexcept;

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/wait_mode.inl>
