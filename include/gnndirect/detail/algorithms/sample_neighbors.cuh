#pragma once
/// @file sample_neighbors.cuh
/// @brief Internals of algorithms/sample_neighbors.cuh: the stream-ordered storage of one
/// synchronous sampling call and the synchronous call itself over either kind of memory source
/// (not part of the API).

#include <gnndirect/algorithms/sample_neighbors_async.cuh>
#include <gnndirect/algorithms/sampled_neighbors.hpp>
#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/sample_kernels.cuh>
#include <gnndirect/detail/algorithms/sample_neighbors_async.cuh>
#include <gnndirect/owners/buffer.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Device-memory slots, counts, offsets and workspace for one synchronous sampling call,
/// allocated stream-ordered on `stream` from `memory` (a resource_ref, or a cudaMemPool_t where
/// null is the device's default pool) so that a caller whose resource keeps its memory never
/// reaches cudaMalloc per call.
template <class Offset, class Index>
struct sample_storage {
  buffer<Index> slot_neighbors;
  buffer<Offset> slot_edge_ids;
  buffer<std::int64_t> counts;
  buffer<std::int64_t> offsets;
  buffer<unsigned char> workspace;

  /// Allocates for `num_seeds` seeds of `fanout` slots, stream-ordered on `stream`.
  template <class Memory>
  sample_storage(std::int64_t num_seeds, int fanout, cudaStream_t stream, Memory memory)
    : slot_neighbors(static_cast<std::size_t>(num_seeds * fanout), stream, memory),
      slot_edge_ids(static_cast<std::size_t>(num_seeds * fanout), stream, memory),
      counts(static_cast<std::size_t>(num_seeds), stream, memory),
      offsets(static_cast<std::size_t>(num_seeds) + 1, stream, memory),
      workspace(sample_neighbors_workspace_bytes(num_seeds), stream, memory)
  {
  }
  /// The slots, counts and offsets, as sample_neighbors_async's output.
  sampled_slots_view<Offset, Index> slots() const noexcept
  {
    return {slot_neighbors.data(), slot_edge_ids.data(), counts.data(), offsets.data(),
            static_cast<std::int64_t>(counts.size()), static_cast<std::int64_t>(slot_neighbors.size())};
  }
  /// The sampling call's workspace.
  workspace_view ws() const noexcept { return {workspace.data(), workspace.bytes()}; }
};

/// Reads one int64 from device-visible memory (synchronises `stream`).
inline std::int64_t read_scalar(cudaStream_t stream, const std::int64_t* value)
{
  std::int64_t host = 0;
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(&host, value, sizeof(host), cudaMemcpyDefault, stream));
  detail::synchronize(stream);
  return host;
}

/// Samples into `storage`, raises a recorded seed, graph or sampler error, and returns the sampled edge count
/// (one device-to-host read). `what` names the seed array in the error.
template <class Offset, class Index, class Sampler>
std::int64_t sample_into(cudaStream_t stream, const csr_view<Offset, Index>& csr, const Index* seeds,
                         std::int64_t num_seeds, int fanout, int layer, const Sampler& sampler,
                         const sampling_policy& policy, const sample_storage<Offset, Index>& storage,
                         const std::string& what)
{
  sample_neighbors_async(stream, csr, seeds, num_seeds, fanout, layer, sampler, policy,
                         storage.slots(), storage.ws());
  if (policy.check_indices) {
    sample_flag(storage.ws()).throw_if_set(stream, what, csr.num_nodes);
  }
  throw_if_corrupt_list(stream, sample_graph_flag(storage.ws()), "sample_neighbors");
  sampler_flags const flags = sample_sampler_flags(storage.ws());
  throw_if_sampler_failed(flags.count.read(stream), flags.slot.read(stream), "sample_neighbors", what);
  return read_scalar(stream, storage.offsets.data() + num_seeds);
}

/// The synchronous sample_neighbors on either kind of memory source (resource_ref or pool).
template <class Offset, class Index, class Sampler, class Memory>
sampled_neighbors<Offset, Index> sample_neighbors_sync(cudaStream_t stream,
                                                       const csr_view<Offset, Index>& csr,
                                                       const Index* seeds, std::int64_t num_seeds,
                                                       int fanout, int layer, const Sampler& sampler,
                                                       const sampling_policy& policy, Memory memory)
{
  check_sample_arguments(csr, seeds, num_seeds, fanout, sampler, policy);
  sample_storage<Offset, Index> storage(num_seeds, fanout, stream, memory);
  std::int64_t const edges =
    sample_into(stream, csr, seeds, num_seeds, fanout, layer, sampler, policy, storage, "seeds");
  sampled_neighbors<Offset, Index> result;
  result.neighbors = buffer<Index>(static_cast<std::size_t>(edges), stream, memory);
  result.edge_ids = buffer<Offset>(static_cast<std::size_t>(edges), stream, memory);
  compact_sampled_async(stream, storage.slots(), num_seeds, fanout, result.neighbors.data(),
                        result.edge_ids.data());
  synchronize(stream);
  result.offsets = std::move(storage.offsets);
  return result;
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
