#pragma once
// Definitions of algorithms/edge_seeds.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

inline std::int64_t edge_seed_nodes_bound(std::int64_t num_edges, std::int64_t num_nodes)
{
  GNNDIRECT_EXPECTS(num_edges >= 0 && num_nodes >= 0, "edge seeds: negative size");
  GNNDIRECT_EXPECTS(num_edges <= std::numeric_limits<int>::max() / 2,
                    "edge seeds: at most 2^30 - 1 seed edges per batch, got " + std::to_string(num_edges));
  return num_edges == 0 ? 0 : 1 + std::min(2 * num_edges, num_nodes);
}

template <class Index>
std::size_t edge_seeds_workspace_bytes(std::int64_t num_edges)
{
  (void)edge_seed_nodes_bound(num_edges, 0);
  return detail::carve_edge_seeds_workspace<Index>(workspace_view{}, num_edges).total;
}

template <class Index>
void relabel_edge_seeds_async(
  cudaStream_t stream, const Index* src, const Index* dst, std::int64_t num_edges, const std::int64_t* edge_times,
  std::int64_t num_nodes, const edge_seeds_view<Index>& out, workspace_view ws)
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
  sampled_slots_view<std::int64_t, Index> const hop{w.endpoints, nullptr, w.counts, w.offsets, 1, 2 * num_edges};
  sampled_block_view<std::int64_t, Index> block;
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

inline void edge_seeds_check(cudaStream_t stream, workspace_view ws, std::int64_t num_nodes)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, "edge_seeds_check: null workspace");
  auto* const records = static_cast<detail::error_record*>(ws.data);
  detail::error_flag_ref{records}.throw_if_set(stream, "edge seed src", num_nodes);
  detail::error_flag_ref{records + 1}.throw_if_set(stream, "edge seed dst", num_nodes);
}

GNNDIRECT_NAMESPACE_END
