#pragma once
/// @file resource.hpp
/// @brief Internals of core/resource.hpp: the noexcept half of the stream-ordered resource concept
/// and the check of what a resource's allocate returned, also used by host_resource.hpp (not part
/// of the API).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>

#include <cuda/stream_ref>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {
/// True when R's stream-ordered deallocate is declared noexcept (false when it has none).
/// Destructors return memory through it, so a throwing one would end in std::terminate.
template <class R, class = void>
struct has_noexcept_stream_deallocate : std::false_type {};
template <class R>
struct has_noexcept_stream_deallocate<
  R, std::void_t<decltype(std::declval<R&>().deallocate(std::declval<::cuda::stream_ref>(),
                                                         std::declval<void*>(), std::size_t{},
                                                         std::size_t{}))>>
  : std::bool_constant<noexcept(std::declval<R&>().deallocate(
      std::declval<::cuda::stream_ref>(), std::declval<void*>(), std::size_t{}, std::size_t{}))> {};

/// Hexadecimal text of an address, for allocation errors.
inline std::string resource_address_text(const void* ptr)
{
  char text[2 + 2 * sizeof(void*) + 1] = {};
  std::snprintf(text, sizeof(text), "%p", ptr);
  return text;
}

/// Checks what a resource's allocate returned: not null for bytes > 0, aligned to `alignment`.
/// On a misaligned pointer, `give_back` returns it to the resource first (so nothing leaks).
/// @param call the call made, e.g. "resource_ref::allocate"
/// @throws allocation_error naming the call, the bytes, the alignment and the pointer.
template <class GiveBack>
void* checked_allocation(void* ptr, std::size_t bytes, std::size_t alignment, memory_kind kind,
                         const char* call, GiveBack&& give_back)
{
  if (bytes == 0) { return ptr; }
  std::string const request = std::string(call) + "(bytes = " + std::to_string(bytes) +
                              ", alignment = " + std::to_string(alignment) + ")";
  if (ptr == nullptr) {
    throw allocation_error(__FILE__, __LINE__, bytes, kind,
                           "the memory resource's " + request + " returned null");
  }
  if (alignment > 1 && reinterpret_cast<std::uintptr_t>(ptr) % alignment != 0) {
    give_back(ptr);
    throw allocation_error(__FILE__, __LINE__, bytes, kind,
                           "the memory resource's " + request + " returned " + resource_address_text(ptr) +
                             ", which is not aligned to " + std::to_string(alignment) + " bytes");
  }
  return ptr;
}
}  // namespace detail
GNNDIRECT_NAMESPACE_END
