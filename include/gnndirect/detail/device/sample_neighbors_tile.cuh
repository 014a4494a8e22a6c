#pragma once
/// @file sample_neighbors_tile.cuh
/// @brief Internals of device/sample_neighbors_tile.cuh: the checked neighbour list and the sampler
/// call (not part of the API).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/device/sampled_output.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {
/// Keeps a parameter out of template argument deduction (C++20's std::type_identity_t), so that
/// a literal nullptr is accepted for an output the caller does not want.
template <class T>
struct non_deduced {
  using type = T;
};
template <class T>
using non_deduced_t = typename non_deduced<T>::type;

/// Node `node`'s neighbour list, with degree -1 when the graph is corrupt there: a list that ends
/// before it starts (a decreasing indptr) or lies outside [0, csr.num_edges]. One range check
/// per node, so that no corrupt graph makes sampling read or write out of bounds.
template <class Offset, class Index>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE node_edges<Offset> neighbour_list(const csr_view<Offset, Index>& csr,
                                                                             std::int64_t node)
{
  Offset const first = csr.indptr[node];
  Offset const end = csr.indptr[node + 1];
  bool const valid = first >= 0 && first <= end && static_cast<std::int64_t>(end) <= csr.num_edges;
  return node_edges<Offset>{node, first, valid ? static_cast<std::int64_t>(end - first) : std::int64_t{-1}};
}
}  // namespace detail

namespace detail {
/// Runs the sampler over a checked neighbour list (degree >= 0) into the given `fanout` slots:
/// an emit outside them is refused and, when bad_slot is set, recorded with `row`. The returned
/// count is the sampler's (the bulk kernel checks it against fanout).
template <class Tile, class Sampler, class Offset, class Index>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE std::int64_t sample_list(const Tile& tile, const csr_view<Offset, Index>& csr,
                                                               const node_edges<Offset>& edges, int fanout,
                                                               int layer, const Sampler& sampler, void* scratch,
                                                               Index* out_neighbors, Offset* out_edge_ids,
                                                               error_record* bad_slot = nullptr, std::int64_t row = 0)
{
  sampled_output<Offset, Index> const out{csr.indices, csr.edge_ids, edges.first, out_neighbors,
                                          out_edge_ids, std::int64_t{fanout}, bad_slot, row};
  return sampler.sample(tile, csr, edges, fanout, layer, scratch, out);
}
}  // namespace detail
GNNDIRECT_NAMESPACE_END
