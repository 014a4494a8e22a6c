#pragma once
/// @file sampled_blocks.hpp
/// @brief sampled_block and sampled_blocks: message-flow blocks owned in exactly-sized device
/// buffers (the result of sample_blocks, algorithms/sample_blocks.cuh) (host-compilable).

#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// One message-flow block in device memory. dst node d's sampled in-neighbours are the local
/// src ids indices[offsets[d] .. offsets[d+1]); src_nodes[local] is the global id.
/// Move-only: the buffers own their device memory, freed when the block is destroyed.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct sampled_block {
  buffer<Index> dst_nodes;       ///< global ids of the destination nodes (this layer's seeds)
  buffer<Index> src_nodes;       ///< global ids of the source nodes, dst nodes first
  buffer<std::int64_t> offsets;  ///< num_dst + 1
  buffer<Index> indices;         ///< local src id of each sampled edge
  buffer<Offset> edge_ids;       ///< global edge id of each sampled edge

  /// @return number of destination nodes
  std::int64_t num_dst() const noexcept { return static_cast<std::int64_t>(dst_nodes.size()); }
  /// @return number of source nodes (>= num_dst)
  std::int64_t num_src() const noexcept { return static_cast<std::int64_t>(src_nodes.size()); }
  /// @return number of sampled edges
  std::int64_t num_edges() const noexcept { return static_cast<std::int64_t>(indices.size()); }
  /// @return the block as a view of the family every sampler hands out
  /// (core/sampled_views.hpp); it points into this block's buffers, so it is valid while the
  /// block lives and keeps its arrays
  block_view<Offset, Index> view() const noexcept { return detail::block_view_of<Offset, Index>(*this); }
  /// @return view()  @deprecated renamed to view() in 0.2
  [[deprecated("renamed to view() in 0.2")]] block_view<Offset, Index> ref() const noexcept { return view(); }
};

/// All blocks of a multi-layer sample, seeds side first: layers[0]'s dst nodes are the seeds,
/// layers[l + 1]'s dst nodes are layers[l]'s src nodes. Move-only, like sampled_block.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct sampled_blocks {
  std::vector<sampled_block<Offset, Index>> layers;  ///< one block per fanout

  /// @return global ids of the input (feature) nodes: the last layer's src nodes (device memory)
  const buffer<Index>& input_nodes() const noexcept { return layers.back().src_nodes; }
  /// Storage of view()'s layer views (the owner's own, so that the view stays trivially
  /// copyable): each view() call rewrites it, so one owner's view() is not called from two
  /// threads at once. Not for callers.
  mutable std::vector<block_view<Offset, Index>> layer_views{};

  /// @return the blocks as views (device memory), valid while this owner lives and its layers
  /// keep their arrays
  blocks_view<Offset, Index> view() const;
  /// @return view()  @deprecated renamed to view() in 0.2
  [[deprecated("renamed to view() in 0.2")]] blocks_view<Offset, Index> ref() const { return view(); }
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/sampled_blocks.inl>
