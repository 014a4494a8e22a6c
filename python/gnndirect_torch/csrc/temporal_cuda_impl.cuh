#pragma once
/// @file temporal_cuda_impl.cuh
/// @brief Definition of the CUDA temporal-blocks kernel of the extension (included by the
/// per-offset-type translation units temporal_cuda_o*.cu).

#include "common.hpp"
#include "link_common.hpp"
#include "link_cuda.hpp"
#include "sample_common.hpp"
#include "sample_cuda_impl.cuh"

#include <gnndirect/algorithms/sample_temporal_blocks_async.cuh>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include <algorithm>
#include <vector>

namespace gnndirect_torch {

template <class Offset, class Index>
std::vector<at::Tensor> sample_temporal_blocks_cuda_typed(const at::Tensor& indptr, const at::Tensor& indices,
                                                          const at::Tensor& seeds, const at::Tensor& seed_times,
                                                          const std::vector<int>& fanouts, const at::Tensor& times,
                                                          const std::string& time_form, const std::string& strategy,
                                                          std::int64_t seed, const std::optional<at::Tensor>& excluded,
                                                          bool check)
{
  c10::cuda::CUDAGuard const guard(seeds.device());
  int const device = seeds.device().index();
  cudaStream_t const stream = at::cuda::getCurrentCUDAStream(device).stream();
  at::Tensor const ids = seeds.contiguous();
  at::Tensor const query = seed_times.contiguous();
  auto const on_device = [&](std::int64_t n, at::ScalarType dtype) {
    return at::empty({n}, ids.options().dtype(dtype));
  };
  return translate_errors([&] {
    auto const csr = detail::device_csr_view<Offset, Index>(indptr, indices, std::nullopt, device);
    int const widest = *std::max_element(fanouts.begin(), fanouts.end());
    auto const request = detail::gpu_request(seed, false, false, check, widest, csr.num_nodes, csr.num_edges);
    std::int64_t const n = ids.size(0);
    auto const* const time_ptr = static_cast<const std::int64_t*>(placement_of(times, "times", device).device);
    const std::int64_t* excl = nullptr;
    std::int64_t num_excl = 0;
    if (excluded.has_value() && excluded->numel() > 0) {
      excl = static_cast<const std::int64_t*>(placement_of(*excluded, "excluded", device).device);
      num_excl = excluded->numel();
    }
    auto const* const query_ptr =
      n > 0 ? static_cast<const std::int64_t*>(placement_of(query, "seed_times", device).device) : nullptr;
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
                            data_as<std::int64_t>(counts) + 2 * l, data_as<std::int64_t>(counts) + 2 * l + 1, b});
    }
    std::size_t const ws_bytes =
      gnndirect::sample_temporal_blocks_workspace_bytes<Offset, Index>(n, fanouts, csr.num_nodes);
    at::Tensor const ws = on_device(static_cast<std::int64_t>(ws_bytes), at::kByte);
    gnndirect::workspace_view const scratch{ws.data_ptr(), ws_bytes};
    visit_temporal_sampler(strategy, time_form, seed, time_ptr, times.numel(), excl, num_excl, [&](const auto& sampler) {
      gnndirect::sample_temporal_blocks_async(stream, csr, data_as<const Index>(ids), query_ptr, n, fanouts, sampler,
                                              request.tuning, ref, scratch);
    });
    detail::record_graph_use(indptr, indices, std::nullopt, stream, device);
    record_host_use(times, stream, device);
    record_host_use(query, stream, device);
    if (excl != nullptr) { record_host_use(*excluded, stream, device); }
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
    return out;
  });
}

}  // namespace gnndirect_torch
