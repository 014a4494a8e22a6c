#pragma once
/// @file relabel.cuh
/// @brief Frontier de-duplication to local ids on the GPU: turns one sampled hop into a
/// message-flow block (needs nvcc).
///
/// A framework that composes its own multi-hop sampling from one-hop calls
/// (sample_neighbors_async with its own sampler) relabels each hop with relabel_async: the src
/// nodes are the dst nodes (same order, repeats kept as separate rows) followed by every other
/// sampled neighbour in order of first appearance in the concatenated per-dst samples, and each
/// sampled edge gets the local id of its neighbour. These are the semantics of
/// sample_blocks_async's layers, which run the same code (detail/algorithms/relabel.cuh): two
/// sample_neighbors_async + relabel_async hops equal a two-layer sample_blocks_async bit for bit
/// (test/gpu/test_blocks_async.cu, "relabel_async composes one-hop samples into blocks").
/// Every size stays on the device; nothing allocates or synchronises, so it can be captured in a
/// CUDA graph.

#include <gnndirect/core/sampled_refs.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/relabel.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN

/// Workspace bytes relabel_async needs for up to `num_dst` dst rows sampled with `fanout`.
/// @tparam Index node id type  @param num_dst dst rows  @param fanout the hop's fanout
/// @return the bytes  @throws invalid_argument (negative sizes), cuda_error.
template <class Index>
std::size_t relabel_workspace_bytes(std::int64_t num_dst, int fanout)
{
  GNNDIRECT_EXPECTS(num_dst >= 0 && fanout >= 0, "relabel_workspace_bytes: negative size");
  return detail::carve_relabel_workspace<Index>(workspace_view{}, num_dst, fanout).total;
}

/// Enqueues the relabelling of one sampled hop into a block on `stream`; returns at once.
///
/// Writes out.offsets[0, num_dst] (a copy of sampled.offsets, unless they are the same array),
/// *out.num_src, *out.num_edges, src_nodes[0, num_src), indices[0, num_edges) and, when
/// out.edge_ids is not null, edge_ids[0, num_edges) (the sampled edge ids, compacted). Nothing
/// else. A sampled id outside [0, num_nodes) (a corrupt graph or a faulty sampler) is dropped
/// from the src nodes, its local id left unwritten, and recorded in `ws`: call relabel_check
/// afterwards to raise it. Never synchronises, never allocates: capturable.
/// @tparam Offset, Index the graph's offset and node id types
/// @param stream stream to enqueue on
/// @param dst device-visible dst ids (the hop's seeds)  @param num_dst their number
/// @param fanout the fanout the hop was sampled with (the slots' stride)
/// @param sampled the hop's slots, counts and offsets (sample_neighbors_async's output, complete
/// in stream order), with its capacities (at least num_dst and num_dst * fanout);
/// sampled.edge_ids may be null when out.edge_ids is
/// @param num_nodes the graph's node count (valid ids are [0, num_nodes); below the largest Index)
/// @param out caller-owned, device-visible outputs: offsets num_dst + 1, src_nodes num_dst +
/// min(num_dst * fanout, num_nodes) (sample_blocks_bounds's num_src), indices and edge_ids
/// num_dst * fanout, num_src and num_edges one each; out.capacity says what they hold
/// @param ws workspace of at least relabel_workspace_bytes<Index>(num_dst, fanout) bytes
/// @throws invalid_argument (sizes; a capacity of `sampled` or `out` not given or too small,
/// naming the field; null, unreachable or misaligned arrays; workspace) before any launch;
/// cuda_error.
template <class Offset, class Index>
void relabel_async(cudaStream_t stream, const Index* dst, std::int64_t num_dst, int fanout,
                   const sampled_slots_ref<Offset, Index>& sampled, std::int64_t num_nodes,
                   const sampled_block_ref<Offset, Index>& out, workspace_view ws)
{
  GNNDIRECT_EXPECTS(num_dst >= 0, "relabel_async: num_dst must be >= 0");
  GNNDIRECT_EXPECTS(fanout >= 0, "relabel_async: fanout must be >= 0");
  GNNDIRECT_EXPECTS(num_nodes >= 0 && num_nodes < std::int64_t{std::numeric_limits<Index>::max()},
                    "relabel_async: num_nodes must be in [0, largest Index) (the sentinel id is "
                    "num_nodes)");
  GNNDIRECT_EXPECTS(num_dst == 0 || dst != nullptr, "relabel_async: null dst");
  GNNDIRECT_EXPECTS(sampled.offsets != nullptr && (num_dst == 0 || sampled.counts != nullptr),
                    "relabel_async: null sampled counts or offsets");
  std::int64_t const slots = num_dst * fanout;
  GNNDIRECT_EXPECTS(slots == 0 || sampled.neighbors != nullptr, "relabel_async: null sampled neighbours");
  GNNDIRECT_EXPECTS(out.edge_ids == nullptr || slots == 0 || sampled.edge_ids != nullptr,
                    "relabel_async: out.edge_ids wanted but sampled.edge_ids is null");
  GNNDIRECT_EXPECTS(out.offsets != nullptr && out.num_src != nullptr && out.num_edges != nullptr,
                    "relabel_async: null offsets, num_src or num_edges");
  GNNDIRECT_EXPECTS(num_dst == 0 || out.src_nodes != nullptr, "relabel_async: null src_nodes");
  GNNDIRECT_EXPECTS(slots == 0 || out.indices != nullptr, "relabel_async: null indices");
  GNNDIRECT_EXPECTS(ws.data != nullptr,
                    "relabel_async: null workspace (size it with relabel_workspace_bytes)");
  detail::check_slots_capacity(sampled, num_dst, fanout, "relabel_async", "sampled");  // read
  block_bounds const need{num_dst, slots, num_dst + std::min(slots, num_nodes)};
  detail::check_block_capacity(out, need, "relabel_async", "out",
                               " (sample_blocks_bounds(num_dst, {fanout}, num_nodes)[0] gives the sizes)");
  auto const bytes = [](std::int64_t n, std::size_t size) { return static_cast<std::size_t>(n) * size; };
  detail::check_device_accessible(dst, bytes(num_dst, sizeof(Index)), alignof(Index), "dst");
  detail::check_device_accessible(sampled.neighbors, bytes(slots, sizeof(Index)), alignof(Index), "sampled neighbors");
  detail::check_device_accessible(sampled.counts, bytes(num_dst, 8), 8, "sampled counts");
  detail::check_device_accessible(sampled.offsets, bytes(num_dst + 1, 8), 8, "sampled offsets");
  detail::check_device_accessible(out.offsets, bytes(num_dst + 1, 8), 8, "offsets");
  detail::check_device_accessible(out.src_nodes, 0, alignof(Index), "src_nodes");
  detail::check_device_accessible(out.indices, 0, alignof(Index), "indices");
  if (out.edge_ids != nullptr) {
    detail::check_device_accessible(sampled.edge_ids, bytes(slots, sizeof(Offset)), alignof(Offset), "sampled edge_ids");
    detail::check_device_accessible(out.edge_ids, 0, alignof(Offset), "edge_ids");
  }
  detail::check_device_accessible(out.num_src, 8, 8, "num_src");
  detail::check_device_accessible(out.num_edges, 8, 8, "num_edges");
  detail::check_device_accessible(ws.data, ws.bytes, workspace_alignment, "workspace");
  auto const w = detail::carve_relabel_workspace<Index>(ws, num_dst, fanout);
  w.flag.reset_async(stream);
  if (out.offsets != sampled.offsets) {
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(out.offsets, sampled.offsets, bytes(num_dst + 1, 8),
                                       cudaMemcpyDefault, stream));
  }
  detail::relabel_input<Offset, Index> in;
  in.dst = dst;
  in.num_dst = detail::device_count{nullptr, num_dst};
  in.slot_neighbors = sampled.neighbors;
  in.slot_edge_ids = out.edge_ids == nullptr ? nullptr : sampled.edge_ids;
  in.counts = sampled.counts;
  in.offsets = sampled.offsets;
  in.fanout = fanout;
  in.num_nodes = num_nodes;
  in.bad_neighbors = w.flag;
  detail::relabel_output<Offset, Index> const result{out.src_nodes, out.indices, out.edge_ids,
                                                     out.num_src, out.num_edges};
  detail::relabel_async(stream, in, result, w.scratch);
}

/// Synchronises `stream` and raises the bad neighbour id recorded in `ws` by the last
/// relabel_async that used it. Not capturable.
/// @param stream the stream relabel_async ran on  @param ws the workspace it used
/// @param num_nodes the graph's node count (for the message)
/// @throws index_out_of_range naming "sampled neighbours"[edge position] = value; invalid_argument
/// (null workspace); cuda_error.
inline void relabel_check(cudaStream_t stream, workspace_view ws, std::int64_t num_nodes)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, "relabel_check: null workspace");
  detail::check_device_accessible(ws.data, 0, workspace_alignment, "workspace");
  detail::error_flag_ref{static_cast<detail::error_record*>(ws.data)}.throw_if_set(
    stream, "sampled neighbours", num_nodes);
}

GNNDIRECT_NAMESPACE_END
