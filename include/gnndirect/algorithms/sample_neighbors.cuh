#pragma once
/// @file sample_neighbors.cuh
/// @brief Bulk GPU neighbour sampling, one layer: the asynchronous calls
/// (sample_neighbors_async.cuh) plus the synchronous sample_neighbors, which returns owners
/// (sampled_neighbors.hpp) (needs nvcc).
///
/// For example, one hop of 10 uniform neighbours per seed:
/// @code
///   auto hop = sample_neighbors(stream, csr, seeds, num_seeds, /*fanout=*/10, /*layer=*/0,
///                               uniform_sampler{seed});
///   // hop.offsets (num_seeds + 1), hop.neighbors, hop.edge_ids: device memory
/// @endcode
/// Multi-layer sampling with relabelled blocks is sample_blocks (algorithms/sample_blocks.cuh).

#include <gnndirect/algorithms/sample_neighbors_async.cuh>
#include <gnndirect/algorithms/sampled_neighbors.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/sample_neighbors.cuh>
#include <gnndirect/owners/buffer.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

/// Samples up to `fanout` neighbours of each seed and returns them compacted in CSR form in
/// device memory. Outputs and temporaries are allocated stream-ordered on `stream` from `mr`; the
/// outputs are freed on `stream` when the result is destroyed, so `stream` (and `mr`) must
/// outlive it, and work on another stream that still uses them must be ordered before that (e.g.
/// with an event). Synchronises `stream` (one device-to-host read of the edge count, and once
/// more before returning). Use sample_neighbors_async on hot paths.
/// @param stream stream to run on  @param csr device-visible graph (any placement)
/// @param seeds device-visible node ids  @param num_seeds their number  @param fanout k >= 0
/// @param layer random counter layer: the same (sampler seed, layer, node) always draws the
/// same neighbours, so give each hop its own  @param sampler what to draw (any model of the sampler
/// concept, device/samplers.hpp)  @param policy tile size, budget, checks
/// @param mr memory resource for every allocation (default: the device's default pool)
/// @throws invalid_argument (arguments), index_out_of_range (bad seed, with checks on; the
/// context stays usable), allocation_error, cuda_error.
/// @tparam Offset, Index the graph's offset and node id types  @tparam Sampler the sampler type
/// @return the sampled edges, seed by seed
template <class Offset, class Index, class Sampler>
sampled_neighbors<Offset, Index> sample_neighbors(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                                                  const Index* seeds, std::int64_t num_seeds,
                                                  int fanout, int layer, const Sampler& sampler,
                                                  const sampling_policy& policy = {},
                                                  resource_ref mr = {});

/// As above, allocating from a CUDA memory pool of the current device (null: its default pool);
/// kept for source compatibility.
/// @tparam Offset, Index, Sampler as above
/// @param stream, csr, seeds, num_seeds, fanout, layer, sampler, policy as above
/// @param pool the pool every allocation comes from  @return the sampled edges, seed by seed
template <class Offset, class Index, class Sampler>
sampled_neighbors<Offset, Index> sample_neighbors(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                                                  const Index* seeds, std::int64_t num_seeds,
                                                  int fanout, int layer, const Sampler& sampler,
                                                  const sampling_policy& policy, cudaMemPool_t pool);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/sample_neighbors.inl>
