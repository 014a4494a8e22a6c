#pragma once
/// @file sample_temporal_blocks_async.cuh
/// @brief Multi-layer temporal sampling into message-flow blocks: a temporal_sampler
/// (device/temporal_samplers.hpp) with a query time per seed, inherited by the sampled nodes
/// layer by layer (needs nvcc; caller-owned outputs and workspace, like sample_blocks_async).
///
/// The blocks are sample_blocks_async's (same outputs, same relabelling: src nodes are the dst
/// nodes followed by new nodes in order of first appearance; a node appears once per layer,
/// whichever seeds reach it). Each row carries a query time: layer 0's rows are the seeds with
/// seed_times; a row of layer l + 1 (a src node of layer l) gets the minimum of its own time
/// (when it was a dst row of layer l) and the times of every layer-l row that sampled it. So no
/// block ever holds an edge later than the time of any seed whose neighbourhood reaches it
/// (test/gpu/test_temporal.cu walks every seed's tree to check that), the property PyG's
/// temporal sampling exists for. PyG (pyg-lib) samples temporally in disjoint mode instead, one
/// subtree per seed with that seed's time at every hop: the two agree where seeds do not share
/// nodes, and where they do, gnndirect samples a shared node once under the earliest time that
/// reaches it (fewer edges, never a later one).

#include <gnndirect/algorithms/sample_blocks_async.cuh>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/sample_temporal_blocks_async.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/device/temporal_samplers.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Workspace bytes sample_temporal_blocks_async needs (a sample_blocks workspace plus one int64
/// query time per dst row of layers 1..L-1). @throws invalid_argument (as sample_blocks_bounds),
/// cuda_error.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @param num_seeds, fanouts, num_nodes as sample_blocks_bounds  @return the bytes
template <class Offset, class Index>
std::size_t sample_temporal_blocks_workspace_bytes(std::int64_t num_seeds, const std::vector<int>& fanouts,
                                                   std::int64_t num_nodes);

/// Enqueues a whole temporal multi-layer sample on `stream`; returns at once (file comment for
/// the semantics of the inherited times).
///
/// Outputs, capacities, seed checks and the error check afterwards (sample_blocks_check on `ws`)
/// are those of sample_blocks_async. The sampler's query_times are ignored: each layer gets its
/// rows' times (with_query_times). Never synchronises, never allocates: capturable.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Strategy, TimeForm the temporal sampler's tags
/// @param stream stream to enqueue on
/// @param csr device-visible graph (any placement)
/// @param seeds device-visible node ids  @param seed_times device-visible, one query time per seed
/// @param num_seeds their number  @param fanouts one fanout (>= 0) per layer
/// @param sampler the temporal sampler: its times (csr.num_edges edge times in CSR position
/// order, or csr.num_nodes node times), seed, excluded edges
/// @param policy tile, budget, checks  @param out caller-owned outputs, one entry per fanout
/// @param ws workspace of at least sample_temporal_blocks_workspace_bytes<Offset, Index>(num_seeds,
/// fanouts, csr.num_nodes) bytes
/// @throws invalid_argument (those of sample_blocks_async; seed times missing; the sampler's
/// times null, of the wrong length (naming both lengths) or unreachable; excluded edges null
/// with a positive count) before any launch; cuda_error.
template <class Offset, class Index, class Strategy, class TimeForm>
void sample_temporal_blocks_async(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                                  const Index* seeds, const std::int64_t* seed_times, std::int64_t num_seeds,
                                  const std::vector<int>& fanouts,
                                  const temporal_sampler<Strategy, TimeForm>& sampler,
                                  const sampling_policy& policy, const sampled_blocks_view<Offset, Index>& out,
                                  workspace_view ws);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/sample_temporal_blocks_async.inl>
