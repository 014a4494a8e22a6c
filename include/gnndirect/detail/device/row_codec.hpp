#pragma once
/// @file row_codec.hpp
/// @brief Internals of device/row_codec.hpp: the detection behind codec_copies_bytes_v (not part of
/// the API).

#include <gnndirect/core/version.hpp>

#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {
/// True when codec C declares decoding to D a byte copy (C::copies_bytes<D> is true); false when
/// it is false or C has no such member, so that codec_copies_bytes_v works for every codec.
template <class C, class D, class = void>
struct copies_bytes : std::false_type {};
template <class C, class D>
struct copies_bytes<C, D, std::enable_if_t<C::template copies_bytes<D>>> : std::true_type {};
}  // namespace detail
GNNDIRECT_NAMESPACE_END
