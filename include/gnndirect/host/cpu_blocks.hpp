#pragma once
/// @file cpu_blocks.hpp
/// @brief The outputs of host::cpu_sampler (host/cpu_sampler.hpp): sampled neighbours and
/// message-flow blocks with local ids, in host vectors that are reused without zero-filling
/// (host-compilable).
///
/// Layout (that of gnndirect::sampled_block): a block's src_nodes start with its dst_nodes, in
/// order, then hold every other sampled neighbour once; indices are local src ids, so
/// src_nodes[indices[e]] is edge e's global neighbour; layer l + 1's dst nodes are layer l's src
/// nodes. A sampler call that reuses an owner resizes and overwrites its vectors.

#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/host/cpu_blocks.hpp>

#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

/// A std::vector whose resize() does not zero-fill (elements of trivial types start
/// uninitialised). Used for the sampler's outputs so that reusing them costs nothing.
/// @tparam T element type
template <class T>
using host_vector = std::vector<T, detail::default_init_allocator<T>>;

/// Sampled neighbours of a batch in CSR form: seed i's are neighbors[offsets[i] .. offsets[i+1]).
/// Filled by cpu_sampler::sample_neighbors (one layer, global ids, no relabelling).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct cpu_neighbors {
  host_vector<std::int64_t> offsets;  ///< num_seeds + 1
  host_vector<Index> neighbors;       ///< global neighbour ids
  host_vector<Offset> edge_ids;       ///< csr.edge_id(position) of each sampled edge

  /// @return number of sampled edges
  std::int64_t num_edges() const noexcept { return static_cast<std::int64_t>(neighbors.size()); }
};

/// One message-flow block with local ids (layout of gnndirect::sampled_block, host memory).
/// One layer of a cpu_blocks.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct cpu_block {
  host_vector<Index> dst_nodes;       ///< global ids of the destination nodes (this layer's seeds)
  host_vector<Index> src_nodes;       ///< global ids of the source nodes, dst nodes first
  host_vector<std::int64_t> offsets;  ///< num_dst + 1; dst d's edges are [offsets[d], offsets[d+1])
  host_vector<Index> indices;         ///< local src id of each sampled edge
  host_vector<Offset> edge_ids;       ///< global edge id of each sampled edge

  /// @return number of destination nodes
  std::int64_t num_dst() const noexcept { return static_cast<std::int64_t>(dst_nodes.size()); }
  /// @return number of source nodes (>= num_dst)
  std::int64_t num_src() const noexcept { return static_cast<std::int64_t>(src_nodes.size()); }
  /// @return number of sampled edges
  std::int64_t num_edges() const noexcept { return static_cast<std::int64_t>(indices.size()); }
};

/// All blocks of a multi-layer sample, seeds side first (layers[l] used fanouts[l]).
/// Filled by cpu_sampler::sample_blocks.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct cpu_blocks {
  std::vector<cpu_block<Offset, Index>> layers;  ///< one block per fanout

  /// @return global ids of the input (feature) nodes: the last layer's src nodes
  const host_vector<Index>& input_nodes() const noexcept { return layers.back().src_nodes; }
  /// The blocks as views of the family every sampler hands out (core/sampled_views.hpp;
  /// host memory), valid until the next call that reuses this owner (or changes its layers).  @return the views
  blocks_view<Offset, Index> view() const;
  /// @return view()  @deprecated renamed to view() in 0.2
  [[deprecated("renamed to view() in 0.2")]] blocks_view<Offset, Index> ref() const { return view(); }
  /// Storage of view()'s layer views (the owner's own, so that the view stays trivially
  /// copyable): each view() call rewrites it, so one owner's view() is not called from two
  /// threads at once. Not for callers.
  mutable std::vector<block_view<Offset, Index>> layer_views{};
  /// @return sampled edges over all layers
  std::int64_t num_edges() const noexcept;
};

}  // namespace host
GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/host/cpu_blocks.inl>
