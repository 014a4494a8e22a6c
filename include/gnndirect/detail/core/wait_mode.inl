#pragma once
// Definitions of core/wait_mode.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

constexpr std::string_view to_string(wait_mode mode) noexcept
{
  return mode == wait_mode::sleep ? "sleep" : "spin";
}

GNNDIRECT_NAMESPACE_END
