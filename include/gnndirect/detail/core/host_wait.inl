#pragma once
// Definitions of core/host_wait.hpp (included at its end; not part of the API).

#include <gnndirect/core/cuda_error.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

GNNDIRECT_NAMESPACE_BEGIN

inline scoped_wait_mode::scoped_wait_mode(wait_mode mode) noexcept
  : previous_(detail::thread_wait_mode())
{
  detail::thread_wait_mode() = mode;
}

GNNDIRECT_NAMESPACE_END
