#pragma once
/// @file sample_blocks.cuh
/// @brief Multi-layer GPU sampling with relabelling: the asynchronous calls
/// (sample_blocks_async.cuh) plus the owners (sample_blocks_buffers, sampled_blocks) and the
/// synchronous sample_blocks that returns them (needs nvcc).

#include <gnndirect/algorithms/sample_blocks_async.cuh>
#include <gnndirect/algorithms/sample_neighbors.cuh>
#include <gnndirect/core/sampled_refs.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Owns a reusable set of bound-sized outputs, device-side counts and workspace for
/// sample_blocks_async, allocated stream-ordered once (from a resource or a pool) for up to
/// `max_seeds` seeds. Move-only; freed on the allocation stream, which must outlive it.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
class sample_blocks_buffers {
 public:
  /// Empty (no layers).
  sample_blocks_buffers() = default;
  /// Allocates for up to `max_seeds` seeds and `fanouts` on a graph of `num_nodes` nodes, from
  /// `mr` (default: the device's pool), stream-ordered on `stream`. Enqueued; never synchronises.
  /// @param max_seeds, fanouts, num_nodes as sample_blocks_bounds  @param stream allocation stream
  /// @param mr the resource
  /// @throws invalid_argument (as sample_blocks_bounds), allocation_error, cuda_error.
  sample_blocks_buffers(std::int64_t max_seeds, const std::vector<int>& fanouts,
                        std::int64_t num_nodes, cudaStream_t stream, resource_ref mr = {})
  {
    allocate(max_seeds, fanouts, num_nodes, stream, mr);
  }
  /// As above, from a CUDA memory pool of the current device (null: its default pool).
  /// @param max_seeds, fanouts, num_nodes, stream as above  @param pool the pool
  sample_blocks_buffers(std::int64_t max_seeds, const std::vector<int>& fanouts,
                        std::int64_t num_nodes, cudaStream_t stream, cudaMemPool_t pool)
  {
    allocate(max_seeds, fanouts, num_nodes, stream, pool);
  }

  /// @return the outputs, for sample_blocks_async (built once at allocation, so that a batch
  /// loop that asks for them takes no host allocation)
  const sampled_blocks_ref<Offset, Index>& ref() const noexcept { return ref_; }
  /// @return the workspace, for sample_blocks_async and sample_blocks_check
  workspace_view workspace() const noexcept { return {workspace_.data(), workspace_.bytes()}; }
  /// @return the bounds the arrays were sized for
  const std::vector<block_bounds>& bounds() const noexcept { return bounds_; }
  /// @return device array of 2 x layers counts: [2l] = num_src, [2l + 1] = num_edges of layer l
  const std::int64_t* counts() const noexcept { return counts_.data(); }
  /// @return number of layers
  std::size_t num_layers() const noexcept { return layers_.size(); }

 private:
  struct layer {
    buffer<Index> src_nodes;
    buffer<std::int64_t> offsets;
    buffer<Index> indices;
    buffer<Offset> edge_ids;
  };

  template <class Memory>
  void allocate(std::int64_t max_seeds, const std::vector<int>& fanouts, std::int64_t num_nodes,
                cudaStream_t stream, Memory memory)
  {
    bounds_ = sample_blocks_bounds(max_seeds, fanouts, num_nodes);
    auto const n = [](std::int64_t count) { return static_cast<std::size_t>(count); };
    for (block_bounds const& b : bounds_) {
      layers_.push_back({buffer<Index>(n(b.num_src), stream, memory),
                         buffer<std::int64_t>(n(b.num_dst) + 1, stream, memory),
                         buffer<Index>(n(b.num_edges), stream, memory),
                         buffer<Offset>(n(b.num_edges), stream, memory)});
    }
    counts_ = buffer<std::int64_t>(2 * bounds_.size(), stream, memory);
    workspace_ = buffer<unsigned char>(
      detail::carve_blocks_workspace<Offset, Index>(workspace_view{}, bounds_).total, stream, memory);
    for (std::size_t l = 0; l < layers_.size(); ++l) {  // device addresses: stable across moves
      layer const& x = layers_[l];
      ref_.layers.push_back({x.src_nodes.data(), x.offsets.data(), x.indices.data(), x.edge_ids.data(),
                             counts_.data() + 2 * l, counts_.data() + 2 * l + 1, bounds_[l]});
    }
  }

  std::vector<block_bounds> bounds_;
  std::vector<layer> layers_;
  buffer<std::int64_t> counts_;
  buffer<unsigned char> workspace_;
  sampled_blocks_ref<Offset, Index> ref_;  // views of the arrays above
};

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

namespace detail {

/// A new device buffer of n ids copied from device-visible `ids` (stream-ordered on `stream`).
template <class T, class Memory>
buffer<T> copy_prefix(cudaStream_t stream, const T* ids, std::int64_t n, Memory memory)
{
  buffer<T> copy(static_cast<std::size_t>(n), stream, memory);
  if (n > 0) {
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(copy.data(), ids, copy.bytes(), cudaMemcpyDefault, stream));
  }
  return copy;
}

/// The synchronous sample_blocks on either kind of memory source (resource_ref or pool).
template <class Offset, class Index, class Sampler, class Memory>
sampled_blocks<Offset, Index> sample_blocks_sync(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                                                 const Index* seeds, std::int64_t num_seeds,
                                                 const std::vector<int>& fanouts, const Sampler& sampler,
                                                 const sampling_policy& policy, Memory memory)
{
  check_blocks_arguments(csr, seeds, num_seeds, fanouts, sampler, policy);
  sample_blocks_buffers<Offset, Index> const tmp(num_seeds, fanouts, csr.num_nodes, stream, memory);
  auto const& out = tmp.ref();
  sample_blocks_async(stream, csr, seeds, num_seeds, fanouts, sampler, policy, out, tmp.workspace());
  std::vector<std::int64_t> counts(2 * fanouts.size());
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(counts.data(), tmp.counts(), sizeof(std::int64_t) * counts.size(),
                                     cudaMemcpyDefault, stream));
  // Synchronises. Corrupt neighbour lists and ids are always recorded; seeds only when checked.
  sample_blocks_check(stream, tmp.workspace(), fanouts.size(), csr.num_nodes);
  sampled_blocks<Offset, Index> result;
  result.layers.resize(fanouts.size());
  for (std::size_t l = 0; l < fanouts.size(); ++l) {
    auto& layer = result.layers[l];
    std::int64_t const num_dst = l == 0 ? num_seeds : counts[2 * (l - 1)];
    std::int64_t const num_src = counts[2 * l];
    std::int64_t const edges = counts[2 * l + 1];
    layer.dst_nodes = copy_prefix(stream, l == 0 ? seeds : out.layers[l - 1].src_nodes, num_dst, memory);
    layer.src_nodes = copy_prefix(stream, static_cast<const Index*>(out.layers[l].src_nodes), num_src, memory);
    layer.offsets = copy_prefix(stream, static_cast<const std::int64_t*>(out.layers[l].offsets), num_dst + 1, memory);
    layer.indices = copy_prefix(stream, static_cast<const Index*>(out.layers[l].indices), edges, memory);
    layer.edge_ids = copy_prefix(stream, static_cast<const Offset*>(out.layers[l].edge_ids), edges, memory);
  }
  synchronize(stream);  // the copies are done before the temporaries are freed (in stream order)
  return result;
}

}  // namespace detail

/// Samples `fanouts.size()` layers starting from `seeds` and relabels each to local ids.
///
/// Synchronous, built on sample_blocks_async: one host round trip reads every layer's counts
/// (and the seed checks), then the valid prefixes are copied into exactly-sized owners. Seeds are
/// normally unique; a repeated seed is a separate dst row whose neighbours map like the first
/// occurrence's (as in the host reference).
///
/// Every output and temporary is allocated stream-ordered on `stream` from `mr`. The result's
/// buffers are freed on `stream` when it is destroyed, so `stream` (and `mr`) must outlive the
/// result, and GPU work on another stream that reads the blocks must be ordered before the
/// destruction (record an event after it and make `stream` wait on it).
/// @param stream stream to run on  @param csr device-visible graph (any placement); its neighbour
/// ids must lie in [0, num_nodes) (check untrusted graphs with validate())
/// @param seeds device-visible node ids  @param num_seeds their number
/// @param fanouts one fanout per layer (at least one)
/// @param sampler what to draw (any model of the sampler concept, device/samplers.hpp)
/// @param policy tile, budget, checks
/// @param mr memory resource for every allocation (default: the device's default pool)
/// @throws invalid_argument (arguments), index_out_of_range (when policy.check_indices: "seeds of
/// layer l" for a seed outside [0, num_nodes), "sampled neighbours of layer l" for a corrupt
/// graph; the context stays usable), allocation_error, cuda_error.
/// @return the blocks, seeds side first, in exactly-sized device owners
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Sampler sampler type (a model of the sampler concept, device/samplers.hpp)
template <class Offset, class Index, class Sampler>
sampled_blocks<Offset, Index> sample_blocks(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                                            const Index* seeds, std::int64_t num_seeds,
                                            const std::vector<int>& fanouts, const Sampler& sampler,
                                            const sampling_policy& policy = {},
                                            resource_ref mr = {})
{
  return detail::sample_blocks_sync(stream, csr, seeds, num_seeds, fanouts, sampler, policy, mr);
}

/// As above, allocating from a CUDA memory pool of the current device (null: its default pool);
/// kept for source compatibility.
/// @param stream, csr, seeds, num_seeds, fanouts, sampler, policy as above
/// @param pool CUDA memory pool of the current device for every allocation (null: its default)
/// @return the blocks, seeds side first
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Sampler sampler type (a model of the sampler concept, device/samplers.hpp)
template <class Offset, class Index, class Sampler>
sampled_blocks<Offset, Index> sample_blocks(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                                            const Index* seeds, std::int64_t num_seeds,
                                            const std::vector<int>& fanouts, const Sampler& sampler,
                                            const sampling_policy& policy, cudaMemPool_t pool)
{
  return detail::sample_blocks_sync(stream, csr, seeds, num_seeds, fanouts, sampler, policy, pool);
}

GNNDIRECT_NAMESPACE_END
