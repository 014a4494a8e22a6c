#pragma once
/// @file negative_sampling.hpp
/// @brief Internals of algorithms/negative_sampling.hpp: the existing-edge test of strict
/// negative sampling (host and device code; not part of the API).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {
/// True when Sampler has the two-range draw<Index>(seed, batch, k, attempt, num_src, num_dst,
/// fixed_src) of algorithms/negative_sampling.hpp's negative-sampler concept.
template <class Sampler, class Index, class = void>
struct has_two_range_draw : std::false_type {};
template <class Sampler, class Index>
struct has_two_range_draw<
  Sampler, Index,
  std::void_t<decltype(std::declval<const Sampler&>().template draw<Index>(
    std::uint64_t{}, std::int64_t{}, std::int64_t{}, std::uint32_t{}, std::int64_t{}, std::int64_t{}, Index{}))>>
  : std::true_type {};

/// True when dst is in src's neighbour list (binary search; the list must be sorted). A source
/// outside the graph or a corrupt list has no edges (nothing is read out of bounds).
template <class Offset, class Index>
GNNDIRECT_HOST_DEVICE bool has_edge(const csr_view<Offset, Index>& csr, std::int64_t src, std::int64_t dst)
{
  if (src < 0 || src >= csr.num_nodes) { return false; }
  auto lo = static_cast<std::int64_t>(csr.indptr[src]);
  auto hi = static_cast<std::int64_t>(csr.indptr[src + 1]);
  if (lo < 0 || lo > hi || hi > csr.num_edges) { return false; }
  while (lo < hi) {
    std::int64_t const mid = lo + (hi - lo) / 2;
    if (static_cast<std::int64_t>(csr.indices[mid]) < dst) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < static_cast<std::int64_t>(csr.indptr[src + 1]) && static_cast<std::int64_t>(csr.indices[lo]) == dst;
}
}  // namespace detail

GNNDIRECT_NAMESPACE_END
