#pragma once
/// @file sample_blocks.cuh
/// @brief Multi-layer GPU sampling with relabelling to local ids (message-flow blocks).
///
/// Layer l samples from its dst nodes (layer 0: the seeds; layer l > 0: layer l-1's src nodes)
/// with fanouts[l] and random counter layer l, then relabels: src nodes are the dst nodes (same
/// order) followed by the other sampled neighbours in order of first appearance. The result
/// equals host::sample_blocks_reference bit for bit. DGL lists blocks input side first: DGL's
/// blocks[i] is layers[L - 1 - i] here.
///
/// Host round trips that remain, per layer: the seed check (when policy.check_seeds), one read of
/// the sampled edge count and one of the new src node count, both needed to size the next
/// allocations. That is why sample_blocks cannot be captured in a CUDA graph (sample_neighbors_async
/// and gather_async can). Outputs and temporaries are allocated stream-ordered on the caller's
/// stream, from the caller's memory pool when one is given: with a pool that keeps its memory
/// (release threshold UINT64_MAX), steady-state batches never reach cudaMalloc.

#include <gnndirect/detail/graph/relabel.cuh>
#include <gnndirect/error.hpp>
#include <gnndirect/graph/sample_neighbors.cuh>
#include <gnndirect/graph/sampling_policy.hpp>
#include <gnndirect/host_wait.hpp>
#include <gnndirect/memory/buffer.hpp>
#include <gnndirect/views/csr_view.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gnndirect {

/// One message-flow block in device memory. dst node d's sampled in-neighbours are the local
/// src ids indices[offsets[d] .. offsets[d+1]); src_nodes[local] is the global id.
template <class Offset, class Index>
struct sampled_block {
  buffer<Index> dst_nodes;       ///< global ids of the destination nodes (this layer's seeds)
  buffer<Index> src_nodes;       ///< global ids of the source nodes, dst nodes first
  buffer<std::int64_t> offsets;  ///< num_dst + 1
  buffer<Index> indices;         ///< local src id of each sampled edge
  buffer<Offset> edge_ids;       ///< global edge id of each sampled edge

  /// Number of destination nodes.
  std::int64_t num_dst() const noexcept { return static_cast<std::int64_t>(dst_nodes.size()); }
  /// Number of source nodes (>= num_dst).
  std::int64_t num_src() const noexcept { return static_cast<std::int64_t>(src_nodes.size()); }
  /// Number of sampled edges.
  std::int64_t num_edges() const noexcept { return static_cast<std::int64_t>(indices.size()); }
};

/// All blocks of a multi-layer sample, seeds side first.
template <class Offset, class Index>
struct sampled_blocks {
  std::vector<sampled_block<Offset, Index>> layers;  ///< one block per fanout

  /// Global ids of the input (feature) nodes: the last layer's src nodes (device memory).
  const buffer<Index>& input_nodes() const noexcept { return layers.back().src_nodes; }
};

namespace detail {

/// Copies n device-visible ids into a new device buffer allocated stream-ordered from `pool`.
template <class Index>
buffer<Index> copy_ids(cudaStream_t stream, const Index* ids, std::int64_t n, cudaMemPool_t pool)
{
  buffer<Index> copy(static_cast<std::size_t>(n), stream, pool);
  if (n > 0) {
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(copy.data(), ids, copy.bytes(), cudaMemcpyDefault, stream));
  }
  return copy;
}

/// Samples and relabels one layer whose dst nodes are already in `layer.dst_nodes`; every
/// allocation is stream-ordered on `stream` from `pool`.
template <class Offset, class Index>
void sample_block(cudaStream_t stream, const csr_view<Offset, Index>& csr, int fanout,
                  int layer_index, const sampling_policy& policy, cudaMemPool_t pool,
                  sampled_block<Offset, Index>& layer)
{
  std::int64_t const num_dst = layer.num_dst();
  sample_storage<Offset, Index> storage(num_dst, fanout, stream, pool);
  std::int64_t const edges =
    sample_into(stream, csr, layer.dst_nodes.data(), num_dst, fanout, layer_index, policy, storage,
                "seeds of layer " + std::to_string(layer_index));
  buffer<Index> neighbors(static_cast<std::size_t>(edges), stream, pool);
  layer.edge_ids = buffer<Offset>(static_cast<std::size_t>(edges), stream, pool);
  layer.indices = buffer<Index>(static_cast<std::size_t>(edges), stream, pool);
  compact_sampled_async(stream, storage.slots(), num_dst, fanout, neighbors.data(),
                        layer.edge_ids.data());
  layer.src_nodes = relabel_layer(stream, layer.dst_nodes.data(), num_dst, neighbors.data(), edges,
                                  csr.num_nodes, layer.indices.data(), pool);
  layer.offsets = std::move(storage.offsets);
}

}  // namespace detail

/// Samples `fanouts.size()` layers starting from `seeds` and relabels each to local ids.
///
/// Synchronous: returns when every block is complete (see the file comment for the host round
/// trips). Seeds are normally unique; a repeated seed is a separate dst row whose neighbours map
/// like the first occurrence's (as in the host reference).
///
/// Every output and temporary is allocated stream-ordered on `stream` from `pool` (null: the
/// device's default pool). The result's buffers are freed on `stream` when it is destroyed, so
/// `stream` must outlive the result, and GPU work on another stream that reads the blocks must be
/// ordered before the destruction (record an event after it and make `stream` wait on it).
/// @param stream stream to run on  @param csr device-visible graph (any placement); its neighbour
/// ids must lie in [0, num_nodes) (check untrusted graphs with validate())
/// @param seeds device-visible node ids  @param num_seeds their number
/// @param fanouts one fanout per layer (at least one)  @param policy kind, seed, tile, checks
/// @param pool memory pool of the current device for every allocation (null: default pool)
/// @throws invalid_argument (arguments), index_out_of_range ("seeds of layer l": a seed, or for
/// l > 0 a sampled neighbour, outside [0, num_nodes); the context stays usable),
/// allocation_error, cuda_error.
template <class Offset, class Index>
sampled_blocks<Offset, Index> sample_blocks(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                                            const Index* seeds, std::int64_t num_seeds,
                                            const std::vector<int>& fanouts,
                                            const sampling_policy& policy = {},
                                            cudaMemPool_t pool = nullptr)
{
  GNNDIRECT_EXPECTS(!fanouts.empty(), "sample_blocks: at least one fanout is needed");
  for (int fanout : fanouts) { detail::check_sample_arguments(csr, seeds, num_seeds, fanout, policy); }
  sampled_blocks<Offset, Index> result;
  result.layers.resize(fanouts.size());
  for (std::size_t l = 0; l < fanouts.size(); ++l) {
    auto& layer = result.layers[l];
    layer.dst_nodes = l == 0 ? detail::copy_ids(stream, seeds, num_seeds, pool)
                             : detail::copy_ids(stream, result.layers[l - 1].src_nodes.data(),
                                                result.layers[l - 1].num_src(), pool);
    detail::sample_block(stream, csr, fanouts[l], static_cast<int>(l), policy, pool, layer);
  }
  detail::synchronize(stream);  // the last relabelling is still enqueued
  return result;
}

}  // namespace gnndirect
