#pragma once
// The blocks_view of a finished multi-layer sample, shared by the preparers (gnn_preparer,
// link_preparer): both sample into sampled_blocks buffers sized by bounds and copy the per-layer
// counts to the host, then point the batch's views at the valid prefixes (not part of the API).

#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/version.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Points `views` (resized to the sample's layers) at a finished sample `sampled` whose layer 0
/// has the `num_seeds` dst rows at `seeds` and whose counts, copied to the host, are
/// `counts[2 l]` (layer l's src nodes) and `counts[2 l + 1]` (its edges). Returns the blocks view
/// over `views` (valid while they are not resized) and the sampled edges of all layers in
/// `num_edges`. Pure host function.
template <class Offset, class Index>
blocks_view<Offset, Index> point_block_views(const sampled_blocks_view<Offset, Index>& sampled, const Index* seeds,
                                             std::int64_t num_seeds, const std::int64_t* counts,
                                             std::vector<block_view<Offset, Index>>& views, std::int64_t& num_edges)
{
  std::size_t const layers = sampled.layers.size();
  views.resize(layers);
  num_edges = 0;
  for (std::size_t l = 0; l < layers; ++l) {
    auto const& out = sampled.layers[l];
    block_view<Offset, Index>& view = views[l];
    std::int64_t const num_dst = l == 0 ? num_seeds : counts[2 * (l - 1)];
    std::int64_t const edges = counts[2 * l + 1];
    view.dst_nodes = {l == 0 ? seeds : sampled.layers[l - 1].src_nodes, num_dst};
    view.src_nodes = {out.src_nodes, counts[2 * l]};
    view.offsets = {out.offsets, num_dst + 1};
    view.indices = {out.indices, edges};
    view.edge_ids = {out.edge_ids, edges};
    num_edges += edges;
  }
  blocks_view<Offset, Index> blocks;
  blocks.layers = {views.data(), static_cast<std::int64_t>(layers)};
  return blocks;
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
