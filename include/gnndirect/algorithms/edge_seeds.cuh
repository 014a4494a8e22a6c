#pragma once
/// @file edge_seeds.cuh
/// @brief Edge-seeded batches (link prediction): the seed nodes of a batch of seed edges and the
/// edges' endpoints relabelled to local ids (PyG LinkNeighborLoader's edge_label_index), with
/// each seed node's query time for temporal sampling (needs nvcc).
///
/// relabel_edge_seeds_async takes E edges (src[e], dst[e]) — the positives followed by the
/// negatives (sample_negatives_async), concatenated by the caller — and writes the seed nodes,
/// the distinct endpoints in order of first appearance in (src[0..E), dst[0..E)), and every
/// endpoint's local id: local[e] is src[e]'s row in the seed nodes, local[E + e] dst[e]'s, so
/// (local[0..E), local[E..2E)) is edge_label_index. PyG orders the seed nodes by id
/// (torch.unique); gnndirect keeps first appearance (relabel_async's rule, no sort of the
/// ids), which changes only the row order. The seed nodes go to sample_blocks_async or
/// sample_temporal_blocks_async as seeds: block 0's first rows are then the seed nodes, so the
/// edge_label_index rows are the output rows of the model. Seed edges are excluded from message
/// passing with a temporal_sampler's excluded_edges (sorted edge ids). With edge times, a seed
/// node's time is the earliest time of its seed edges (the rule of
/// sample_temporal_blocks_async: a node shared by several seeds is sampled under the earliest).
/// The relabelling is the public relabel_async on one row whose E * 2 slots are the endpoints.

#include <gnndirect/algorithms/relabel.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/sampled_refs.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/edge_seeds.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/launch.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/detail/core/workspace.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN

/// Caller-owned outputs of relabel_edge_seeds_async (device-visible).
/// @tparam Index node id type
template <class Index>
struct edge_seeds_ref {
  Index* nodes{nullptr};               ///< edge_seed_nodes_bound(E, num_nodes) entries: the seed nodes
  std::int64_t* num_nodes{nullptr};    ///< scalar: number of seed nodes
  Index* local{nullptr};               ///< 2 * E: local ids of src[0..E) then dst[0..E)
  std::int64_t* node_times{nullptr};   ///< optional (with edge times): edge_seed_nodes_bound entries
};

/// Entries the seed-node outputs need for `num_edges` seed edges on a graph of `num_nodes` nodes
/// (relabel_async's src bound for one row of 2E slots). Pure host function.
/// @param num_edges seed edges (>= 0)  @param num_nodes the graph's size
/// @return 0 for no edges, else 1 + min(2E, num_nodes)
/// @throws invalid_argument for negative sizes or 2E beyond the largest int.
inline std::int64_t edge_seed_nodes_bound(std::int64_t num_edges, std::int64_t num_nodes)
{
  GNNDIRECT_EXPECTS(num_edges >= 0 && num_nodes >= 0, "edge seeds: negative size");
  GNNDIRECT_EXPECTS(num_edges <= std::numeric_limits<int>::max() / 2,
                    "edge seeds: at most 2^30 - 1 seed edges per batch, got " + std::to_string(num_edges));
  return num_edges == 0 ? 0 : 1 + std::min(2 * num_edges, num_nodes);
}

/// Workspace bytes of relabel_edge_seeds_async for up to `num_edges` seed edges.
/// @tparam Index node id type  @param num_edges seed edges  @return the bytes
/// @throws invalid_argument (as edge_seed_nodes_bound), cuda_error.
template <class Index>
std::size_t edge_seeds_workspace_bytes(std::int64_t num_edges)
{
  (void)edge_seed_nodes_bound(num_edges, 0);
  return detail::carve_edge_seeds_workspace<Index>(workspace_view{}, num_edges).total;
}

/// Enqueues the seed nodes and local endpoint ids of `num_edges` seed edges (file comment);
/// returns at once. Writes out.nodes[0, *num_nodes), *out.num_nodes, out.local[0, 2E) and, when
/// edge_times is not null, out.node_times[0, bound) (INT64_MAX past *num_nodes). Endpoints
/// outside [0, num_nodes) are recorded in `ws` (edge_seeds_check raises them; they get no seed
/// node and their local id is left unwritten). Never synchronises, never allocates: capturable.
/// @tparam Index node id type
/// @param stream stream to enqueue on  @param src, dst device-visible endpoints, E each
/// @param num_edges E  @param edge_times device-visible, E times (or null: no node times)
/// @param num_nodes the graph's node count (below the largest Index)
/// @param out the outputs  @param ws workspace of edge_seeds_workspace_bytes<Index>(E) bytes
/// @throws invalid_argument (sizes, null or unreachable arrays, node_times null with edge
/// times, workspace too small) before any launch; cuda_error.
template <class Index>
void relabel_edge_seeds_async(cudaStream_t stream, const Index* src, const Index* dst, std::int64_t num_edges,
                              const std::int64_t* edge_times, std::int64_t num_nodes, const edge_seeds_ref<Index>& out,
                              workspace_view ws)
{
  std::int64_t const bound = edge_seed_nodes_bound(num_edges, num_nodes);
  GNNDIRECT_EXPECTS(num_nodes < std::int64_t{std::numeric_limits<Index>::max()},
                    "relabel_edge_seeds_async: num_nodes must be below the largest Index");
  GNNDIRECT_EXPECTS(num_edges == 0 || (src != nullptr && dst != nullptr), "relabel_edge_seeds_async: null src/dst");
  GNNDIRECT_EXPECTS(out.num_nodes != nullptr, "relabel_edge_seeds_async: null num_nodes output");
  GNNDIRECT_EXPECTS(num_edges == 0 || (out.nodes != nullptr && out.local != nullptr),
                    "relabel_edge_seeds_async: null nodes/local output");
  GNNDIRECT_EXPECTS(edge_times == nullptr || num_edges == 0 || out.node_times != nullptr,
                    "relabel_edge_seeds_async: edge times given but out.node_times is null");
  GNNDIRECT_EXPECTS(ws.data != nullptr, "relabel_edge_seeds_async: null workspace (size it with "
                                        "edge_seeds_workspace_bytes)");
  auto const bytes = [](std::int64_t n, std::size_t size) { return static_cast<std::size_t>(n) * size; };
  detail::check_device_accessible(src, bytes(num_edges, sizeof(Index)), alignof(Index), "edge seed src");
  detail::check_device_accessible(dst, bytes(num_edges, sizeof(Index)), alignof(Index), "edge seed dst");
  if (edge_times != nullptr) {
    detail::check_device_accessible(edge_times, bytes(num_edges, 8), 8, "edge seed times");
    detail::check_device_accessible(out.node_times, bytes(bound, 8), 8, "node_times");
  }
  detail::check_device_accessible(ws.data, ws.bytes, workspace_alignment, "workspace");
  auto const w = detail::carve_edge_seeds_workspace<Index>(ws, num_edges);
  detail::error_flag_ref const bad_src{w.records};
  detail::error_flag_ref const bad_dst{w.records + 1};
  bad_src.reset_async(stream);
  bad_dst.reset_async(stream);
  if (num_edges == 0) {
    GNNDIRECT_CUDA_TRY(cudaMemsetAsync(out.num_nodes, 0, sizeof(std::int64_t), stream));
    return;
  }
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(w.endpoints, src, bytes(num_edges, sizeof(Index)), cudaMemcpyDefault, stream));
  GNNDIRECT_CUDA_TRY(
    cudaMemcpyAsync(w.endpoints + num_edges, dst, bytes(num_edges, sizeof(Index)), cudaMemcpyDefault, stream));
  detail::edge_seed_setup_kernel<Index><<<detail::grid_stride_blocks(num_edges), detail::elementwise_block_threads, 0,
                                          stream>>>(src, dst, num_edges, num_nodes, w.counts, w.offsets, bad_src, bad_dst);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  bad_src.capture_value_async(stream, src);
  bad_dst.capture_value_async(stream, dst);
  int const slots = static_cast<int>(2 * num_edges);
  sampled_slots_ref<std::int64_t, Index> const hop{w.endpoints, nullptr, w.counts, w.offsets, 1, 2 * num_edges};
  sampled_block_ref<std::int64_t, Index> block;
  block.src_nodes = out.nodes;
  block.offsets = w.offsets;
  block.indices = out.local;
  block.num_src = out.num_nodes;
  block.num_edges = w.num_edges;
  block.capacity = block_bounds{1, 2 * num_edges, bound};
  // The one row is the first endpoint (src[0]): the seed nodes start with it, as first appearance.
  relabel_async(stream, w.endpoints, 1, slots, hop, num_nodes, block, w.relabel);
  if (edge_times != nullptr) {
    detail::edge_seed_times_start_kernel<<<detail::grid_stride_blocks(bound), detail::elementwise_block_threads, 0,
                                           stream>>>(out.node_times, bound);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
    detail::edge_seed_times_kernel<Index><<<detail::grid_stride_blocks(num_edges), detail::elementwise_block_threads, 0,
                                            stream>>>(out.local, edge_times, num_edges, bound, out.node_times);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
  }
}

/// Synchronises `stream` and raises a bad endpoint recorded by the last relabel_edge_seeds_async
/// on `ws`. @param stream its stream  @param ws its workspace  @param num_nodes the graph's size
/// @throws index_out_of_range naming "edge seed src"/"edge seed dst"[e] = value; invalid_argument
/// (null workspace); cuda_error.
inline void edge_seeds_check(cudaStream_t stream, workspace_view ws, std::int64_t num_nodes)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, "edge_seeds_check: null workspace");
  auto* const records = static_cast<detail::error_record*>(ws.data);
  detail::error_flag_ref{records}.throw_if_set(stream, "edge seed src", num_nodes);
  detail::error_flag_ref{records + 1}.throw_if_set(stream, "edge seed dst", num_nodes);
}

GNNDIRECT_NAMESPACE_END
