#pragma once
/// @file sampled_blocks.hpp
/// @brief sampled_block and sampled_blocks: message-flow blocks owned in exactly-sized device
/// buffers (the result of sample_blocks, algorithms/sample_blocks.cuh) (host-compilable).

#include <gnndirect/core/sampled_refs.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// One message-flow block in device memory. dst node d's sampled in-neighbours are the local
/// src ids indices[offsets[d] .. offsets[d+1]); src_nodes[local] is the global id.
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
  /// (core/sampled_refs.hpp)
  block_ref<Offset, Index> ref() const noexcept { return detail::block_ref_of<Offset, Index>(*this); }
};

/// All blocks of a multi-layer sample, seeds side first.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct sampled_blocks {
  std::vector<sampled_block<Offset, Index>> layers;  ///< one block per fanout

  /// @return global ids of the input (feature) nodes: the last layer's src nodes (device memory)
  const buffer<Index>& input_nodes() const noexcept { return layers.back().src_nodes; }
  /// @return the blocks as views (device memory), valid while this owner lives
  blocks_ref<Offset, Index> ref() const
  {
    blocks_ref<Offset, Index> out;
    for (auto const& layer : layers) { out.layers.push_back(layer.ref()); }
    return out;
  }
};

GNNDIRECT_NAMESPACE_END
