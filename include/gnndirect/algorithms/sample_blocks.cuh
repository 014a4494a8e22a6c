#pragma once
/// @file sample_blocks.cuh
/// @brief Multi-layer GPU sampling with relabelling: the asynchronous calls
/// (sample_blocks_async.cuh) plus the owners (sample_blocks_buffers.cuh, sampled_blocks.hpp) and
/// the synchronous sample_blocks that returns them (needs nvcc).

#include <gnndirect/algorithms/sample_blocks_async.cuh>
#include <gnndirect/algorithms/sample_blocks_buffers.cuh>
#include <gnndirect/algorithms/sample_neighbors.cuh>
#include <gnndirect/algorithms/sampled_blocks.hpp>
#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/sample_blocks.cuh>
#include <gnndirect/owners/buffer.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

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
                                            resource_ref mr = {});

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
                                            const sampling_policy& policy, cudaMemPool_t pool);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/sample_blocks.inl>
