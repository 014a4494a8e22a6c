#pragma once
/// @file sample_blocks.cuh
/// @brief Internals of algorithms/sample_blocks.cuh: the synchronous sample_blocks over either
/// kind of memory source, which copies the valid prefixes of sample_blocks_async's outputs into
/// exactly-sized owners (not part of the API).

#include <gnndirect/algorithms/sample_blocks_async.cuh>
#include <gnndirect/algorithms/sample_blocks_buffers.cuh>
#include <gnndirect/algorithms/sampled_blocks.hpp>
#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/detail/algorithms/sample_blocks_async.cuh>
#include <gnndirect/owners/buffer.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
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
  auto const& out = tmp.view();
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
GNNDIRECT_NAMESPACE_END
