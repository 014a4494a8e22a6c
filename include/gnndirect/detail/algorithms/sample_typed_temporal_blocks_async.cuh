#pragma once
/// @file sample_typed_temporal_blocks_async.cuh
/// @brief Internals of algorithms/sample_typed_temporal_blocks_async.cuh: the workspace layout
/// (a typed workspace, then per node type one time per list entry and per frontier row) and the
/// row hooks that seed, copy and inherit the query times (not part of the API).

#include <gnndirect/algorithms/typed_blocks_bounds.hpp>
#include <gnndirect/core/bounded_count.hpp>
#include <gnndirect/core/config.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/sampled_typed_views.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/sample_temporal_blocks_async.cuh>
#include <gnndirect/detail/algorithms/sample_typed_blocks_async.cuh>
#include <gnndirect/detail/core/launch.cuh>
#include <gnndirect/detail/core/workspace.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// A typed temporal workspace: the typed workspace first (so sample_typed_blocks_check reads its
/// error records at the start), then the rows' times.
template <class Offset, class Index>
struct typed_temporal_workspace {
  typed_workspace<Offset, Index> blocks;
  std::vector<std::int64_t*> node_times;      ///< per type: the time of each list entry
  std::vector<std::int64_t*> frontier_times;  ///< per type: the times of the layer's rows
  std::vector<std::int64_t> frontier_bound;   ///< per type: rows of its largest frontier
  std::size_t total{0};
};

/// Carves (or, with a null workspace, sizes) it for the bounds `b`.
template <class Offset, class Index>
typed_temporal_workspace<Offset, Index> carve_typed_temporal_workspace(workspace_view ws, const typed_blocks_bounds& b,
                                                                       const std::vector<int>& src_types)
{
  typed_temporal_workspace<Offset, Index> w;
  w.blocks = carve_typed_workspace<Offset, Index>(ws, b, src_types);
  std::size_t const head = w.blocks.total;
  workspace_view rest{};
  if (ws.data != nullptr) {
    rest = workspace_view{static_cast<char*>(ws.data) + head, ws.bytes > head ? ws.bytes - head : 0};
  }
  workspace_carver carver(rest);
  for (std::size_t t = 0; t < b.nodes.size(); ++t) {
    std::int64_t rows = 0;
    for (std::size_t l = 0; l < b.num_layers(); ++l) { rows = std::max(rows, b.frontier[l][t]); }
    w.frontier_bound.push_back(rows);
    w.node_times.push_back(carver.take<std::int64_t>(static_cast<std::size_t>(b.nodes[t]) * 8));
    w.frontier_times.push_back(carver.take<std::int64_t>(static_cast<std::size_t>(rows) * 8));
  }
  w.total = head + carver.used();
  return w;
}

/// The row hooks of a typed temporal sample (enqueue_typed_blocks calls them): seeding fills
/// every type's list times with "no time yet" (INT64_MAX) behind its seeds' times; a frontier
/// copy copies its rows' times beside their ids; after a layer's relabelling, every sampled edge
/// lowers its src's time to its row's (atomicMin: the order of the edges does not matter).
template <class Offset, class Index>
struct typed_temporal_rows {
  const typed_blocks_bounds& b;
  const typed_graph_view<Offset, Index>& graph;
  const std::vector<const std::int64_t*>& seed_times;
  const std::vector<std::int64_t>& seed_counts;
  const sampled_typed_blocks_view<Offset, Index>& out;
  const typed_temporal_workspace<Offset, Index>& w;

  void seeded(cudaStream_t stream) const
  {
    for (std::size_t t = 0; t < b.nodes.size(); ++t) {
      std::int64_t const bound = b.nodes[t];
      if (bound == 0) { continue; }
      start_row_times_kernel<<<grid_stride_blocks(bound), elementwise_block_threads, 0, stream>>>(
        seed_times[t], bounded_count{nullptr, seed_counts[t]}, bound, w.node_times[t]);
      GNNDIRECT_CUDA_TRY(cudaGetLastError());
    }
  }
  void frontier(cudaStream_t stream, std::size_t l, std::size_t t, std::int64_t bound) const
  {
    typed_frontier_kernel<std::int64_t><<<elementwise_blocks(bound), 256, 0, stream>>>(
      w.node_times[t], out.node_types[t].counts, static_cast<int>(l), bound, w.frontier_times[t], nullptr);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
  }
  void sampled(cudaStream_t stream, std::size_t l) const
  {
    for (int r = 0; r < graph.num_relations; ++r) {
      relation_bounds const& rb = b.layers[l][static_cast<std::size_t>(r)];
      if (rb.num_dst == 0 || rb.num_edges == 0) { continue; }
      auto const dst = static_cast<std::size_t>(graph.relations[r].dst_type);
      auto const src = static_cast<std::size_t>(graph.relations[r].src_type);
      auto const& o = out.layers[l][static_cast<std::size_t>(r)];
      inherit_row_times_kernel<Index><<<grid_stride_blocks(rb.num_dst), elementwise_block_threads, 0, stream>>>(
        w.frontier_times[dst], bounded_count{w.blocks.frontier_counts + dst, rb.num_dst}, o.offsets, o.indices,
        b.nodes[src], w.node_times[src]);
      GNNDIRECT_CUDA_TRY(cudaGetLastError());
    }
  }
};

}  // namespace detail
GNNDIRECT_NAMESPACE_END
