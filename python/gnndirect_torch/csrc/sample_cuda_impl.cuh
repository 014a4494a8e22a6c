#pragma once
/// @file sample_cuda_impl.cuh
/// @brief Definitions of the CUDA sampling kernels of the extension (included by the
/// per-offset-type translation units).

#include "common.hpp"
#include "sample_common.hpp"
#include "sample_cuda.hpp"

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/algorithms/sample_blocks.cuh>
#include <gnndirect/algorithms/sample_neighbors.cuh>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include <algorithm>

namespace gnndirect_torch {
namespace detail {

/// Policy with the tile size the library's selector picks for this fanout and mean degree.
inline gnndirect::sampling_policy gpu_policy(std::int64_t seed, bool replace, bool weighted,
                                             bool check, int fanout, std::int64_t num_nodes,
                                             std::int64_t num_edges)
{
  gnndirect::sampling_policy policy = make_policy(seed, replace, weighted, check);
  double const mean = num_nodes > 0 ? static_cast<double>(num_edges) / num_nodes : 0.0;
  policy.tile_size = gnndirect::select_sampling_policy(policy.kind, policy.seed, fanout, mean).tile_size;
  return policy;
}

/// Copies a library buffer into a new tensor of torch's caching allocator (stream-ordered) and
/// counts the bytes (count_device_copy). Goes away once sample_blocks writes into caller-owned
/// outputs (see sample_blocks_cuda_typed).
template <class T>
at::Tensor to_tensor(const gnndirect::buffer<T>& from, at::ScalarType dtype, const at::Device& device,
                     cudaStream_t stream)
{
  at::Tensor out = at::empty({static_cast<std::int64_t>(from.size())}, at::dtype(dtype).device(device));
  if (from.size() > 0) {
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(out.data_ptr(), from.data(), from.bytes(),
                                       cudaMemcpyDeviceToDevice, stream));
    count_device_copy(from.bytes());
  }
  return out;
}

/// Tells torch's pinned-memory cache that the sampling kernels enqueued on `stream` read the
/// graph's host-resident arrays (see record_host_use).
inline void record_graph_use(const at::Tensor& indptr, const at::Tensor& indices,
                             const std::optional<at::Tensor>& weights, cudaStream_t stream, int device)
{
  record_host_use(indptr, stream, device);
  record_host_use(indices, stream, device);
  if (weights.has_value()) { record_host_use(*weights, stream, device); }
}

}  // namespace detail

template <class Offset, class Index>
std::tuple<at::Tensor, at::Tensor, at::Tensor> sample_neighbors_cuda_typed(
  const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& seeds, int fanout,
  int layer, std::int64_t seed, bool replace, const std::optional<at::Tensor>& weights, bool check)
{
  c10::cuda::CUDAGuard const guard(seeds.device());
  int const device = seeds.device().index();
  cudaStream_t const stream = at::cuda::getCurrentCUDAStream(device).stream();
  at::Tensor const ids = seeds.contiguous();
  auto const on_device = [&](std::int64_t n, at::ScalarType dtype) {
    return at::empty({n}, ids.options().dtype(dtype));
  };
  return translate_errors([&] {
    auto const csr = detail::device_csr_view<Offset, Index>(indptr, indices, weights, device);
    auto const policy = detail::gpu_policy(seed, replace, weights.has_value(), check, fanout,
                                           csr.num_nodes, csr.num_edges);
    std::int64_t const n = ids.size(0);
    at::Tensor slots = on_device(n * fanout, indices.scalar_type());
    at::Tensor slot_edges = on_device(n * fanout, indptr.scalar_type());
    at::Tensor counts = on_device(n, at::kLong);
    at::Tensor offsets = on_device(n + 1, at::kLong);
    std::size_t const ws_bytes = gnndirect::sample_neighbors_workspace_bytes(n);
    at::Tensor ws = on_device(static_cast<std::int64_t>(ws_bytes), at::kByte);
    gnndirect::workspace_view const scratch{ws.data_ptr(), ws_bytes};
    gnndirect::sampled_slots_ref<Offset, Index> const out{data_as<Index>(slots), data_as<Offset>(slot_edges),
                                                          data_as<std::int64_t>(counts),
                                                          data_as<std::int64_t>(offsets)};
    gnndirect::sample_neighbors_async(stream, csr, data_as<const Index>(ids), n, fanout, layer,
                                      policy, out, scratch);
    detail::record_graph_use(indptr, indices, weights, stream, device);
    if (check) { gnndirect::sample_neighbors_check(stream, scratch, csr.num_nodes); }
    std::int64_t const edges =
      gnndirect::detail::read_scalar(stream, data_as<const std::int64_t>(offsets) + n);
    at::Tensor neighbors = on_device(edges, indices.scalar_type());
    at::Tensor edge_ids = on_device(edges, indptr.scalar_type());
    gnndirect::compact_sampled_async(stream, out, n, fanout, data_as<Index>(neighbors),
                                     data_as<Offset>(edge_ids));
    return std::make_tuple(offsets, neighbors, edge_ids);
  });
}

template <class Offset, class Index>
std::vector<at::Tensor> sample_blocks_cuda_typed(const at::Tensor& indptr, const at::Tensor& indices,
                                                 const at::Tensor& seeds, const std::vector<int>& fanouts,
                                                 std::int64_t seed, bool replace,
                                                 const std::optional<at::Tensor>& weights, bool check)
{
  c10::cuda::CUDAGuard const guard(seeds.device());
  int const device = seeds.device().index();
  cudaStream_t const stream = at::cuda::getCurrentCUDAStream(device).stream();
  at::Tensor const ids = seeds.contiguous();
  return translate_errors([&] {
    auto const csr = detail::device_csr_view<Offset, Index>(indptr, indices, weights, device);
    int const widest = *std::max_element(fanouts.begin(), fanouts.end());
    auto const policy = detail::gpu_policy(seed, replace, weights.has_value(), check, widest,
                                           csr.num_nodes, csr.num_edges);
    // Temporaries and the blocks come from the device's default stream-ordered pool, which
    // returns its memory at the next synchronisation (the extension's private retaining pool is
    // gone: it never shrank). TODO(sample_blocks_async): once the library takes caller-owned
    // outputs, allocate them with at::empty at the host-queried upper bounds, pass
    // torch_caching_resource::for_device(device) as the resource of the temporaries, and return
    // narrowed views instead of the copies below (one function, this block).
    auto const blocks = gnndirect::sample_blocks(stream, csr, data_as<const Index>(ids), ids.size(0),
                                                 fanouts, policy);
    detail::record_graph_use(indptr, indices, weights, stream, device);
    std::vector<at::Tensor> out;
    out.reserve(4 * blocks.layers.size());
    for (auto const& layer : blocks.layers) {
      out.push_back(detail::to_tensor(layer.src_nodes, indices.scalar_type(), ids.device(), stream));
      out.push_back(detail::to_tensor(layer.offsets, at::kLong, ids.device(), stream));
      out.push_back(detail::to_tensor(layer.indices, indices.scalar_type(), ids.device(), stream));
      out.push_back(detail::to_tensor(layer.edge_ids, indptr.scalar_type(), ids.device(), stream));
    }
    return out;  // `blocks` frees its buffers on `stream`, after these copies
  });
}

}  // namespace gnndirect_torch
