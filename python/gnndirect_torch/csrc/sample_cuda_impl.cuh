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
#include <vector>

namespace gnndirect_torch {
namespace detail {

/// Request with the tile size the library's selector picks for this fanout and mean degree.
inline sampling_request gpu_request(std::int64_t seed, bool replace, bool weighted, bool check,
                                    int fanout, std::int64_t num_nodes, std::int64_t num_edges)
{
  sampling_request request = make_request(seed, replace, weighted, check);
  double const mean = num_nodes > 0 ? static_cast<double>(num_edges) / num_nodes : 0.0;
  request.tuning.tile_size = gnndirect::select_sampling_policy(fanout, mean).tile_size;
  return request;
}

/// The device-side counts of a sample_blocks_async run read back to the host (2 per layer:
/// num_src, num_edges), with the bad-id check when `check`: synchronises `stream` once.
inline std::vector<std::int64_t> read_block_counts(cudaStream_t stream, const at::Tensor& counts,
                                                   gnndirect::workspace_view ws, bool check,
                                                   std::int64_t num_nodes)
{
  std::vector<std::int64_t> host(static_cast<std::size_t>(counts.numel()));
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(host.data(), counts.data_ptr(), sizeof(std::int64_t) * host.size(),
                                     cudaMemcpyDeviceToHost, stream));
  if (check) {
    gnndirect::sample_blocks_check(stream, ws, host.size() / 2, num_nodes);  // synchronises
  } else {
    gnndirect::detail::synchronize(stream);
  }
  return host;
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
    auto const request = detail::gpu_request(seed, replace, weights.has_value(), check, fanout,
                                             csr.num_nodes, csr.num_edges);
    std::int64_t const n = ids.size(0);
    at::Tensor slots = on_device(n * fanout, indices.scalar_type());
    at::Tensor slot_edges = on_device(n * fanout, indptr.scalar_type());
    at::Tensor counts = on_device(n, at::kLong);
    at::Tensor offsets = on_device(n + 1, at::kLong);
    std::size_t const ws_bytes = gnndirect::sample_neighbors_workspace_bytes(n);
    at::Tensor ws = on_device(static_cast<std::int64_t>(ws_bytes), at::kByte);
    gnndirect::workspace_view const scratch{ws.data_ptr(), ws_bytes};
    gnndirect::sampled_slots_view<Offset, Index> const out{data_as<Index>(slots), data_as<Offset>(slot_edges),
                                                          data_as<std::int64_t>(counts),
                                                          data_as<std::int64_t>(offsets), n, n * fanout};
    request.visit([&](auto sampler) {
      gnndirect::sample_neighbors_async(stream, csr, data_as<const Index>(ids), n, fanout, layer,
                                        sampler, request.tuning, out, scratch);
    });
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
  auto const on_device = [&](std::int64_t n, at::ScalarType dtype) {
    return at::empty({n}, ids.options().dtype(dtype));
  };
  return translate_errors([&] {
    auto const csr = detail::device_csr_view<Offset, Index>(indptr, indices, weights, device);
    int const widest = *std::max_element(fanouts.begin(), fanouts.end());
    auto const request = detail::gpu_request(seed, replace, weights.has_value(), check, widest,
                                             csr.num_nodes, csr.num_edges);
    std::int64_t const n = ids.size(0);
    // Outputs at the upper bounds and the workspace, all torch tensors (caching allocator,
    // current stream): the library writes the blocks straight into them and the results are
    // narrowed views, so nothing is copied device to device.
    std::vector<gnndirect::block_bounds> const bounds = gnndirect::sample_blocks_bounds(n, fanouts, csr.num_nodes);
    std::size_t const layers = bounds.size();
    at::Tensor const counts = on_device(2 * static_cast<std::int64_t>(layers), at::kLong);
    std::vector<at::Tensor> out;  // 4 per layer: src_nodes, offsets, local indices, edge_ids
    out.reserve(4 * layers);
    gnndirect::sampled_blocks_view<Offset, Index> ref;
    for (std::size_t l = 0; l < layers; ++l) {
      gnndirect::block_bounds const& b = bounds[l];
      out.push_back(on_device(b.num_src, indices.scalar_type()));
      out.push_back(on_device(b.num_dst + 1, at::kLong));
      out.push_back(on_device(b.num_edges, indices.scalar_type()));
      out.push_back(on_device(b.num_edges, indptr.scalar_type()));
      ref.layers.push_back({data_as<Index>(out[4 * l]), data_as<std::int64_t>(out[4 * l + 1]),
                            data_as<Index>(out[4 * l + 2]), data_as<Offset>(out[4 * l + 3]),
                            data_as<std::int64_t>(counts) + 2 * l, data_as<std::int64_t>(counts) + 2 * l + 1,
                            b});
    }
    std::size_t const ws_bytes = gnndirect::sample_blocks_workspace_bytes<Offset, Index>(n, fanouts, csr.num_nodes);
    at::Tensor const ws = on_device(static_cast<std::int64_t>(ws_bytes), at::kByte);
    gnndirect::workspace_view const scratch{ws.data_ptr(), ws_bytes};
    request.visit([&](auto sampler) {
      gnndirect::sample_blocks_async(stream, csr, data_as<const Index>(ids), n, fanouts, sampler,
                                     request.tuning, ref, scratch);
    });
    detail::record_graph_use(indptr, indices, weights, stream, device);
    std::vector<std::int64_t> const sizes = detail::read_block_counts(stream, counts, scratch, check, csr.num_nodes);
    std::int64_t num_dst = n;
    for (std::size_t l = 0; l < layers; ++l) {
      std::int64_t const num_src = sizes[2 * l];
      std::int64_t const edges = sizes[2 * l + 1];
      out[4 * l] = out[4 * l].narrow(0, 0, num_src);
      out[4 * l + 1] = out[4 * l + 1].narrow(0, 0, num_dst + 1);
      out[4 * l + 2] = out[4 * l + 2].narrow(0, 0, edges);
      out[4 * l + 3] = out[4 * l + 3].narrow(0, 0, edges);
      num_dst = num_src;
    }
    return out;  // the workspace and counts go back to torch's cache on `stream`, in order
  });
}

}  // namespace gnndirect_torch
