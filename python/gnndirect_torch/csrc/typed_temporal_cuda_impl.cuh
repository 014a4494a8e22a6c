#pragma once
/// @file typed_temporal_cuda_impl.cuh
/// @brief Definition of the CUDA kernel of sample_typed_temporal_blocks (included by the
/// per-offset-type translation units typed_temporal_cuda_o*.cu): the library's
/// sample_typed_temporal_blocks_async through the typed runner of typed_cuda_impl.cuh.

#include "common.hpp"
#include "typed_cuda_impl.cuh"
#include "typed_temporal_common.hpp"
#include "typed_temporal_cuda.hpp"

#include <gnndirect/algorithms/sample_typed_temporal_blocks_async.cuh>

#include <cstdint>
#include <type_traits>
#include <vector>

namespace gnndirect_torch {

template <class Offset, class Index>
std::vector<at::Tensor> sample_typed_temporal_blocks_cuda_typed(const typed_temporal_args& t, std::int64_t seed,
                                                                bool check)
{
  typed_args const& a = t.typed;
  return run_typed_blocks_cuda<Offset, Index>(
    a, a.seeds[0], check,
    [](const auto& graph, const auto& bounds) {
      return gnndirect::sample_typed_temporal_blocks_workspace_bytes(graph, bounds);
    },
    [&](cudaStream_t stream, int device, const auto& graph, const auto& seed_view, const auto& policy,
        const auto& out, gnndirect::workspace_view scratch) {
      // Every time array where the GPU reads it (device, pinned or managed memory; pageable
      // host memory is refused by placement_of, naming the argument).
      std::vector<const std::int64_t*> seed_times;
      for (auto const& times : t.seed_times) {
        seed_times.push_back(times.numel() == 0
                               ? nullptr
                               : static_cast<const std::int64_t*>(placement_of(times, "seed_times", device).device));
      }
      visit_typed_temporal_sampler(t, seed, [&](const auto& first) {
        using sampler_type = std::decay_t<decltype(first)>;
        std::vector<sampler_type> samplers;
        for (auto const& times : t.times) {
          sampler_type s = first;
          s.times = times.numel() == 0 ? nullptr
                                       : static_cast<const std::int64_t*>(placement_of(times, "times", device).device);
          s.num_times = times.numel();
          samplers.push_back(s);
        }
        gnndirect::sample_typed_temporal_blocks_async(stream, graph, seed_view, seed_times, a.fanouts, samplers,
                                                      policy, out, scratch);
      });
      for (auto const& times : t.seed_times) { record_host_use(times, stream, device); }
      for (auto const& times : t.times) { record_host_use(times, stream, device); }
    });
}

}  // namespace gnndirect_torch
