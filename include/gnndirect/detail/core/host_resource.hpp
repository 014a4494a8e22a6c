#pragma once
/// @file host_resource.hpp
/// @brief Internals of core/host_resource.hpp: the noexcept half of the host resource concept (not
/// part of the API).

#include <gnndirect/core/version.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {
/// True when R's host deallocate is declared noexcept (false when it has none).
template <class R, class = void>
struct has_noexcept_host_deallocate : std::false_type {};
template <class R>
struct has_noexcept_host_deallocate<R, std::void_t<decltype(std::declval<R&>().deallocate(
                                          std::declval<void*>(), std::size_t{}, std::size_t{}))>>
  : std::bool_constant<noexcept(std::declval<R&>().deallocate(std::declval<void*>(), std::size_t{},
                                                              std::size_t{}))> {};
}  // namespace detail
GNNDIRECT_NAMESPACE_END
