#pragma once
/// @file temporal_batches.cuh
/// @brief Internals of the preparers (pipeline/gnn_preparer.cuh, pipeline/link_preparer.cuh) for
/// temporal samplers: the construction-time check of a temporal sampler's times, the seed times'
/// slot arrays, and the blocks of a batch sampled with or without query times (nvcc; not part of
/// the API).

#include <gnndirect/algorithms/sample_blocks.cuh>
#include <gnndirect/algorithms/sample_temporal_blocks_async.cuh>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/device/temporal_samplers.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// A temporal sampler's times against the graph, checked when a preparer is built (the bulk call
/// checks them again per batch): a clear error at construction rather than at the first batch.
template <class Sampler, class Offset, class Index>
void check_preparer_sampler_times(const Sampler& sampler, const csr_view<Offset, Index>& graph, const char* who)
{
  if constexpr (is_temporal_sampler<Sampler>::value) {
    bool constexpr per_node = std::is_same_v<typename Sampler::time_form, node_time>;
    std::int64_t const want = per_node ? graph.num_nodes : graph.num_edges;
    GNNDIRECT_EXPECTS(sampler.num_times == want && (want == 0 || sampler.times != nullptr),
                      std::string(who) + ": the temporal sampler has " + std::to_string(sampler.num_times) +
                        (per_node ? " node times for a graph of " : " edge times for a graph of ") +
                        std::to_string(want) + (per_node ? " nodes" : " edges") +
                        (sampler.times == nullptr ? " (times is null)" : ""));
  } else {
    (void)sampler;
    (void)graph;
    (void)who;
  }
}

/// The seed times' arrays of a slot (empty unless the sampler is temporal): pinned staging, the
/// device copy and the temporal blocks' workspace.
struct seed_time_storage {
  buffer<std::int64_t> staging;        // pinned: the batch's seed times
  buffer<std::int64_t> times;          // device copy (the temporal blocks' seed_times)
  buffer<unsigned char> workspace;     // sample_temporal_blocks_async's workspace

  /// Allocates for `max_seeds` seeds (temporal samplers only).
  template <class Sampler, class Offset, class Index>
  void allocate(std::int64_t max_seeds, const std::vector<int>& fanouts, std::int64_t num_nodes,
                host_resource_ref host_memory, cudaStream_t stream, resource_ref mr)
  {
    if constexpr (is_temporal_sampler<Sampler>::value) {
      auto const n = static_cast<std::size_t>(max_seeds > 0 ? max_seeds : 1);
      staging = buffer<std::int64_t>(n, memory_kind::pinned, {}, host_memory);
      times = buffer<std::int64_t>(n, stream, mr);
      workspace = buffer<unsigned char>(
        sample_temporal_blocks_workspace_bytes<Offset, Index>(max_seeds, fanouts, num_nodes), stream, mr);
    } else {
      (void)max_seeds, (void)fanouts, (void)num_nodes, (void)host_memory, (void)stream, (void)mr;
    }
  }
};

/// Enqueues a batch's blocks on `stream`: sample_blocks_async, or for a temporal sampler the
/// seeds' times (host_times, staged through pinned memory) then sample_temporal_blocks_async on
/// the temporal workspace. The sampler is already reseeded for the batch.
/// @return the workspace whose error records sample_blocks_check reads for this batch
template <class Sampler, class Offset, class Index>
workspace_view sample_batch_blocks(cudaStream_t stream, const csr_view<Offset, Index>& graph, const Index* seeds,
                                   const std::int64_t* host_times, std::int64_t num_seeds,
                                   const std::vector<int>& fanouts, const Sampler& sampler,
                                   const sampling_policy& policy, const sample_blocks_buffers<Offset, Index>& blocks,
                                   seed_time_storage& times)
{
  if constexpr (is_temporal_sampler<Sampler>::value) {
    auto const bytes = static_cast<std::size_t>(num_seeds) * sizeof(std::int64_t);
    if (bytes > 0) {
      std::copy(host_times, host_times + num_seeds, times.staging.host_data());
      GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(times.times.data(), times.staging.data(), bytes, cudaMemcpyDefault, stream));
    }
    workspace_view const ws{times.workspace.data(), times.workspace.bytes()};
    sample_temporal_blocks_async(stream, graph, seeds, times.times.data(), num_seeds, fanouts, sampler, policy,
                                 blocks.view(), ws);
    return ws;
  } else {
    (void)host_times, (void)times;
    sample_blocks_async(stream, graph, seeds, num_seeds, fanouts, sampler, policy, blocks.view(), blocks.workspace());
    return blocks.workspace();
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
