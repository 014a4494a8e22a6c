#pragma once
/// @file typed_cuda_impl.cuh
/// @brief Definition of the CUDA kernel of gnndirect::sample_typed_blocks and the runner it
/// shares with sample_typed_temporal_blocks (typed_temporal_cuda_impl.cuh; included by the
/// per-offset-type translation units).

#include "common.hpp"
#include "typed_common.hpp"
#include "typed_cuda.hpp"

#include <gnndirect/algorithms/sample_typed_blocks_async.cuh>
#include <gnndirect/core/cuda_error.hpp>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include <cstdint>
#include <vector>

namespace gnndirect_torch {

/// Runs one typed sample into torch tensors on the current stream: outputs sized by
/// sample_typed_blocks_bounds, a workspace of workspace_bytes(graph, bounds) bytes, then
/// launch(stream, device, graph, seeds, policy, out, workspace) enqueues the library's sampler,
/// the errors are raised (with `check`) and the counts read back once (synchronises the current
/// stream). Returns the op's flat output (typed_common.hpp) as narrowed views of the outputs.
template <class Offset, class Index, class WorkspaceBytes, class Launch>
std::vector<at::Tensor> run_typed_blocks_cuda(const typed_args& a, const at::Tensor& seeds, bool check,
                                              WorkspaceBytes&& workspace_bytes, Launch&& launch)
{
  c10::cuda::CUDAGuard const guard(seeds.device());
  int const device = seeds.device().index();
  cudaStream_t const stream = at::cuda::getCurrentCUDAStream(device).stream();
  at::ScalarType const index_dtype = a.indices[0].scalar_type();
  at::ScalarType const offset_dtype = a.indptrs[0].scalar_type();
  auto const on_device = [&](std::int64_t n, at::ScalarType dtype) {
    return at::empty({n}, seeds.options().dtype(dtype));
  };
  return translate_errors([&] {
    auto const graph = typed_view<Offset, Index>(a, device);
    // Every type's seeds (the one-type op's at its seed type only): the library's multi-type
    // form, of which its one-type form is a thin wrapper (the same launches and results).
    gnndirect::typed_seeds_view<Index> const seed_view = a.seeds_view<Index>();
    gnndirect::typed_blocks_bounds const b = gnndirect::sample_typed_blocks_bounds(graph, seed_view, a.fanouts);
    auto const types = static_cast<std::int64_t>(a.num_nodes.size());
    auto const layers = static_cast<std::int64_t>(b.num_layers());
    auto const relations = static_cast<std::int64_t>(a.indptrs.size());
    // Outputs at the bounds, all torch tensors on the current stream: the library writes the
    // blocks straight into them and the results are narrowed views (no device-to-device copy).
    at::Tensor const counts = on_device(types * (layers + 1) + layers * relations, at::kLong);
    std::int64_t* const count_ptr = data_as<std::int64_t>(counts);
    gnndirect::sampled_typed_blocks_view<Offset, Index> ref;
    std::vector<at::Tensor> nodes;
    for (std::int64_t t = 0; t < types; ++t) {
      nodes.push_back(on_device(b.nodes[static_cast<std::size_t>(t)], index_dtype));
      ref.node_types.push_back({data_as<Index>(nodes.back()), count_ptr + t * (layers + 1),
                                b.nodes[static_cast<std::size_t>(t)]});
    }
    std::vector<at::Tensor> blocks;  // 3 per layer x relation: offsets, indices, edge_ids
    for (std::int64_t l = 0; l < layers; ++l) {
      ref.layers.emplace_back();
      for (std::int64_t r = 0; r < relations; ++r) {
        gnndirect::relation_bounds const& rb = b.layers[static_cast<std::size_t>(l)][static_cast<std::size_t>(r)];
        blocks.push_back(on_device(rb.num_dst + 1, at::kLong));
        blocks.push_back(on_device(rb.num_edges, index_dtype));
        blocks.push_back(on_device(rb.num_edges, offset_dtype));
        std::size_t const i = blocks.size() - 3;
        ref.layers.back().push_back({data_as<std::int64_t>(blocks[i]), data_as<Index>(blocks[i + 1]),
                                     data_as<Offset>(blocks[i + 2]),
                                     count_ptr + types * (layers + 1) + l * relations + r, rb});
      }
    }
    std::size_t const ws_bytes = workspace_bytes(graph, b);
    at::Tensor const ws = on_device(static_cast<std::int64_t>(ws_bytes), at::kByte);
    gnndirect::workspace_view const scratch{ws.data_ptr(), ws_bytes};
    gnndirect::sampling_policy policy;
    policy.check_indices = check;
    launch(stream, device, graph, seed_view, policy, ref, scratch);
    for (std::size_t r = 0; r < a.indptrs.size(); ++r) {
      record_host_use(a.indptrs[r], stream, device);
      record_host_use(a.indices[r], stream, device);
    }
    if (check) {
      gnndirect::sample_typed_blocks_check(stream, scratch, graph, seed_view, b.num_layers());  // synchronises
    }
    at::Tensor const host = counts.cpu();  // synchronises the current stream
    std::int64_t const* const c = data_as<const std::int64_t>(host);
    at::Tensor const per_type = host.narrow(0, 0, types * (layers + 1)).view({types, layers + 1}).clone();
    std::vector<at::Tensor> out{per_type};
    for (std::int64_t t = 0; t < types; ++t) {
      out.push_back(nodes[static_cast<std::size_t>(t)].narrow(0, 0, c[t * (layers + 1) + layers]));
    }
    for (std::int64_t l = 0; l < layers; ++l) {
      for (std::int64_t r = 0; r < relations; ++r) {
        std::int64_t const dst = a.dst_types[static_cast<std::size_t>(r)];
        std::int64_t const begin = l == 0 ? 0 : c[dst * (layers + 1) + l - 1];
        std::int64_t const rows = c[dst * (layers + 1) + l] - begin;
        std::int64_t const edges = c[types * (layers + 1) + l * relations + r];
        std::size_t const i = static_cast<std::size_t>(3 * (l * relations + r));
        out.push_back(blocks[i].narrow(0, 0, rows + 1));
        out.push_back(blocks[i + 1].narrow(0, 0, edges));
        out.push_back(blocks[i + 2].narrow(0, 0, edges));
      }
    }
    return out;  // the workspace and counts go back to torch's cache on `stream`, in order
  });
}

template <class Offset, class Index>
std::vector<at::Tensor> sample_typed_blocks_cuda_typed(const typed_args& a, const at::Tensor& seeds,
                                                       std::int64_t seed, bool replace, bool check)
{
  return run_typed_blocks_cuda<Offset, Index>(
    a, seeds, check,
    [](const auto& graph, const auto& bounds) { return gnndirect::sample_typed_blocks_workspace_bytes(graph, bounds); },
    [&](cudaStream_t stream, int /*device*/, const auto& graph, const auto& seed_view, const auto& policy,
        const auto& out, gnndirect::workspace_view scratch) {
      visit_typed_sampler(seed, replace, [&](auto sampler) {
        gnndirect::sample_typed_blocks_async(stream, graph, seed_view, a.fanouts, sampler, policy, out, scratch);
      });
    });
}

}  // namespace gnndirect_torch
