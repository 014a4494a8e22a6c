#pragma once
/// @file sampled_views.hpp
/// @brief The one view family of sampling results (host-compilable; no owners).
///
/// Writers' views, bound-sized, with the sizes on the device: sampled_slots_view (one hop in
/// fixed-stride slots), sampled_block_view / sampled_blocks_view (relabelled message-flow blocks):
/// the *_async calls (sample_neighbors_async, relabel_async, sample_blocks_async) write through
/// them into caller-owned memory. Readers' views, exactly sized: block_view / blocks_view, which
/// every producer of blocks hands out: the GPU's sampled_blocks::view(), the pipeline's batches
/// (minibatch::blocks), host::cpu_blocks::view() and the reference's host::reference_blocks::view().
/// Owners are storage plus a view of this family. The pointers are plain addresses (device
/// memory for the GPU producers, host memory for the CPU ones).
///
/// Writers' views carry the capacities their arrays were sized with, and every call that takes
/// one (sample_neighbors_async, compact_sampled_async, relabel_async, sample_blocks_async)
/// refuses, with invalid_argument before anything is read or written, a view whose capacity is
/// not given (negative, the default: a view built from its pointers alone) or below what the
/// call may touch; the message names the call, the layer (for blocks), the field and what to set.
/// An empty call (no seeds) refuses a missing capacity too and accepts capacity 0. The library's
/// owners (sample_blocks_buffers, the pipeline) fill them in; a hand-built view lists them after
/// the pointers:
/// @code
/// sampled_slots_view<Offset, Index> const hop{neighbors, edge_ids, counts, offsets,
///                                            num_seeds, num_seeds * fanout};
/// sampled_block_view<Offset, Index> const block{src_nodes, offsets, indices, edge_ids,
///                                              d_num_src, d_num_edges, bounds[l]};
/// @endcode
/// with bounds = sample_blocks_bounds(num_seeds, fanouts, num_nodes), the sizes the arrays were
/// allocated with.
/// A caller who really wants no check passes a large capacity
/// (`std::numeric_limits<std::int64_t>::max()`) explicitly, and answers for the sizes.

#include <gnndirect/core/version.hpp>
#include <gnndirect/core/deprecated_names.hpp>
#include <gnndirect/detail/core/sampled_views.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Sizes of one message-flow layer: the upper bounds a call writes up to (sample_blocks_bounds),
/// or the capacities an output was sized with (sampled_block_view::capacity).
struct block_bounds {
  std::int64_t num_dst{0};    ///< dst rows (layer 0: the seeds; else the previous num_src bound)
  std::int64_t num_edges{0};  ///< sampled edges: num_dst * fanout
  std::int64_t num_src{0};    ///< src nodes: num_dst + new nodes
};

/// Caller-owned output of one hop (sample_neighbors_async): seed i owns slots
/// [i * fanout, (i + 1) * fanout), of which the first counts[i] are written. Give both
/// capacities (seed_capacity, slot_capacity): a view without them is refused.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct sampled_slots_view {
  Index* neighbors{nullptr};        ///< num_seeds * fanout slots of neighbour ids
  Offset* edge_ids{nullptr};        ///< num_seeds * fanout slots of edge ids, or null (not wanted)
  std::int64_t* counts{nullptr};    ///< num_seeds: sampled edges per seed
  std::int64_t* offsets{nullptr};   ///< num_seeds + 1: exclusive scan of counts (offsets[0] = 0)
  /// Capacities the arrays were sized with. Required: a negative one (the default, -1) is not
  /// given, and every call refuses the view (invalid_argument naming the call and the field); a
  /// call whose num_seeds or num_seeds * fanout exceeds them is refused too, before anything is
  /// read or written.
  std::int64_t seed_capacity{-1};   ///< entries of counts (offsets hold one more); required
  std::int64_t slot_capacity{-1};   ///< entries of neighbors (and edge_ids); required
};
static_assert(std::is_trivially_copyable_v<sampled_slots_view<std::int64_t, std::int32_t>>,
              "sampled_slots_view: trivially copyable");

/// One relabelled message-flow block in caller-owned arrays, sized by the layer's bounds
/// (sample_blocks_bounds). dst node d's sampled in-neighbours are the local src ids
/// indices[offsets[d] .. offsets[d+1]); src_nodes[local] is the global id, the dst nodes first
/// (in order), then the other sampled neighbours in order of first appearance. dst nodes are not
/// stored: layer 0's are the seeds, layer l's are layer l-1's src_nodes[0, *num_src). Give its
/// capacity (usually the layer's sample_blocks_bounds): a view without it is refused.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct sampled_block_view {
  Index* src_nodes{nullptr};          ///< num_src bound: global ids, dst nodes first
  std::int64_t* offsets{nullptr};     ///< num_dst bound + 1: entries past num_dst equal num_edges
  Index* indices{nullptr};            ///< num_edges bound: local src id of each sampled edge
  Offset* edge_ids{nullptr};          ///< num_edges bound: global edge ids, or null (not wanted)
  std::int64_t* num_src{nullptr};     ///< scalar (device memory for the GPU calls): src nodes
  std::int64_t* num_edges{nullptr};   ///< scalar (device memory for the GPU calls): sampled edges
  /// Capacities the arrays were sized with, in entries (offsets hold capacity.num_dst + 1):
  /// required, usually the sample_blocks_bounds the arrays were allocated for. A negative field
  /// (the default, -1) is not given and every call refuses the view; a call whose bounds exceed a
  /// capacity is refused too. Both before anything is written, naming the call, the layer and
  /// the field or array.
  block_bounds capacity{-1, -1, -1};
};
static_assert(std::is_trivially_copyable_v<sampled_block_view<std::int64_t, std::int32_t>>,
              "sampled_block_view: trivially copyable");

/// Caller-owned outputs of a multi-layer sample, seeds side first.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// Not trivially copyable yet (a vector of layers): 0.1 callers build it with push_back, so 0.2
/// keeps its shape; the pointer-and-count form (as blocks_view) is planned.
template <class Offset, class Index>
struct sampled_blocks_view {
  std::vector<sampled_block_view<Offset, Index>> layers;  ///< one per fanout
};

/// A non-owning array with the member names of buffer<T> and std::vector (data(), size()).
/// @tparam T element type
template <class T>
struct array_view {
  T* pointer{nullptr};     ///< first element
  std::int64_t count{0};   ///< number of elements

  /// @return first element
  T* data() const noexcept { return pointer; }
  /// @return number of elements
  std::size_t size() const noexcept { return static_cast<std::size_t>(count); }
  /// @return true when empty
  bool empty() const noexcept { return count == 0; }
  /// @param i an index in [0, size())  @return element i (not checked)
  T& operator[](std::size_t i) const noexcept { return pointer[i]; }
  /// @return first element, for range-for
  T* begin() const noexcept { return pointer; }
  /// @return one past the last element, for range-for
  T* end() const noexcept { return pointer + count; }
  /// @return the first element (not empty: not checked)
  T& front() const noexcept { return pointer[0]; }
  /// @return the last element (not empty: not checked)
  T& back() const noexcept { return pointer[count - 1]; }
};
static_assert(std::is_trivially_copyable_v<array_view<const int>>, "array_view: trivially copyable");

/// One relabelled message-flow block, exactly sized (read-only view). dst node d's sampled
/// in-neighbours are the local src ids indices[offsets[d] .. offsets[d+1]); src_nodes[local] is
/// the global id, the dst nodes first (in order), then the other sampled neighbours in order of
/// first appearance.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct block_view {
  array_view<const Index> dst_nodes;         ///< global ids of the destination nodes
  array_view<const Index> src_nodes;         ///< global ids of the source nodes, dst first
  array_view<const std::int64_t> offsets;    ///< num_dst + 1
  array_view<const Index> indices;           ///< local src id of each sampled edge
  array_view<const Offset> edge_ids;         ///< global edge id of each sampled edge

  /// @return number of destination nodes
  std::int64_t num_dst() const noexcept { return dst_nodes.count; }
  /// @return number of source nodes (>= num_dst)
  std::int64_t num_src() const noexcept { return src_nodes.count; }
  /// @return number of sampled edges
  std::int64_t num_edges() const noexcept { return indices.count; }
};
static_assert(std::is_trivially_copyable_v<block_view<std::int64_t, std::int32_t>>, "block_view: trivially copyable");

/// All blocks of a multi-layer sample, seeds side first (read-only views).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct blocks_view {
  /// One block per fanout, in storage the producer owns (an owner's view() or a pipeline
  /// batch's slot): a pointer and a count, so that the view is trivially copyable.
  array_view<const block_view<Offset, Index>> layers;

  /// @return global ids of the input (feature) nodes: the last layer's src nodes
  const array_view<const Index>& input_nodes() const noexcept { return layers.back().src_nodes; }
};
static_assert(std::is_trivially_copyable_v<blocks_view<std::int64_t, std::int32_t>>, "blocks_view: trivially copyable");

GNNDIRECT_NAMESPACE_END
