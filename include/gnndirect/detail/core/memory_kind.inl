#pragma once
// Definitions of core/memory_kind.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

constexpr std::string_view to_string(memory_kind kind) noexcept
{
  switch (kind) {
    case memory_kind::device: return "device";
    case memory_kind::pinned: return "pinned";
    case memory_kind::registered: return "registered";
    case memory_kind::managed_host: return "managed_host";
  }
  return "unknown";
}

constexpr bool is_host_resident(memory_kind kind) noexcept { return kind != memory_kind::device; }

GNNDIRECT_NAMESPACE_END
