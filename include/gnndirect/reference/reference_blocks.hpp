#pragma once
/// @file reference_blocks.hpp
/// @brief What the host reference samplers return (sample_reference.hpp): reference_neighbors (one
/// layer, global ids) and reference_block / reference_blocks (message-flow blocks with local ids),
/// in std::vector (host-compilable).

#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/version.hpp>

#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

/// Sampled edges of a batch of seeds in CSR form: seed i's sampled neighbours are
/// neighbors[offsets[i] .. offsets[i+1]) with the ids of the sampled edges alongside.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct reference_neighbors {
  std::vector<std::int64_t> offsets;  ///< num_seeds + 1 prefix sums of per-seed counts
  std::vector<Index> neighbors;       ///< sampled neighbour (global) ids
  std::vector<Offset> edge_ids;       ///< csr.edge_id(position) of each sampled edge

  /// @return number of seeds
  std::int64_t num_seeds() const noexcept { return static_cast<std::int64_t>(offsets.size()) - 1; }
  /// @return number of sampled edges
  std::int64_t num_edges() const noexcept { return offsets.empty() ? 0 : offsets.back(); }
};

/// One message-flow block (one sampling layer) with local ids.
///
/// src_nodes starts with dst_nodes (same order), followed by the sampled neighbours that are not
/// dst nodes, in order of first appearance in the concatenated per-dst samples. Local CSC: dst
/// node d's sampled in-neighbours are the local src ids indices[offsets[d] .. offsets[d+1]).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct reference_block {
  std::vector<Index> dst_nodes;       ///< global ids of the destination nodes (this layer's seeds)
  std::vector<Index> src_nodes;       ///< global ids of the source nodes (dst nodes first)
  std::vector<std::int64_t> offsets;  ///< num_dst + 1
  std::vector<Index> indices;         ///< local src id of each sampled edge
  std::vector<Offset> edge_ids;       ///< global edge id of each sampled edge
};

/// Blocks of a multi-layer sample. layers[0] samples from the seeds with fanouts[0]; layer l + 1
/// samples from layer l's src nodes with fanouts[l + 1] (random counter layer = l). DGL lists
/// blocks input side first: DGL's blocks[i] is layers[L - 1 - i] here. Returned by
/// sample_blocks_reference (reference/sample_reference.hpp).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct reference_blocks {
  std::vector<reference_block<Offset, Index>> layers;  ///< one block per fanout, seeds side first

  /// @return global ids of the input (feature) nodes: the last layer's src nodes
  const std::vector<Index>& input_nodes() const noexcept { return layers.back().src_nodes; }
  /// The blocks as views of the family every sampler hands out (core/sampled_views.hpp;
  /// host memory), valid while this owner lives and its layers keep their arrays.  @return the views
  blocks_view<Offset, Index> view() const;
  /// @return view()  @deprecated renamed to view() in 0.2
  [[deprecated("renamed to view() in 0.2")]] blocks_view<Offset, Index> ref() const { return view(); }
  /// Storage of view()'s layer views (the owner's own, so that the view stays trivially
  /// copyable): each view() call rewrites it, so one owner's view() is not called from two
  /// threads at once. Not for callers.
  mutable std::vector<block_view<Offset, Index>> layer_views{};
};

}  // namespace host
GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/reference/reference_blocks.inl>
