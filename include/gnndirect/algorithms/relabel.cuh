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

#include <gnndirect/core/bounded_count.hpp>
#include <gnndirect/core/sampled_views.hpp>
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
/// from the src nodes, its local id left unwritten, and recorded in `ws`; so is a dst id outside
/// [0, num_nodes) (its src row left unwritten) and a row whose sampled count or offsets cannot be
/// the slots' (a count outside [0, fanout], e.g. a fanout other than the hop's, or offsets that
/// disagree with the counts or leave [0, num_dst * fanout]: the row is relabelled as empty and
/// num_edges clamped, so nothing is written outside the outputs). Call relabel_check afterwards
/// to raise them. Never synchronises, never allocates: capturable.
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
                   const sampled_slots_view<Offset, Index>& sampled, std::int64_t num_nodes,
                   const sampled_block_view<Offset, Index>& out, workspace_view ws)
{
  detail::relabel_hop_async(stream, dst, bounded_count{nullptr, num_dst}, fanout, sampled, num_nodes, out, ws);
}

/// The same with the dst count on the device (e.g. the previous hop's out.num_src): the first
/// num_dst.get() dst rows are relabelled, read when the work runs, so composed hops need no
/// read-back and can be captured in one CUDA graph. Everything the host checks and sizes
/// (capacities, workspace, the copy of sampled.offsets[0, bound]) uses num_dst.bound; rows from
/// the device count to the bound must have count 0 (sample_neighbors_async's device-count form
/// writes them so) and give offsets entries equal to num_edges. Writes as the host-count form,
/// with bound in place of num_dst for out.offsets. Never synchronises, never allocates:
/// capturable.
/// @tparam Offset, Index the graph's offset and node id types
/// @param stream stream to enqueue on  @param dst device-visible dst ids (num_dst.bound of room)
/// @param num_dst the dst count on the device and its bound
/// @param fanout, sampled, num_nodes, out, ws as the host-count form (sized for num_dst.bound)
/// @throws as the host-count form (before any launch); cuda_error.
template <class Offset, class Index>
void relabel_async(cudaStream_t stream, const Index* dst, bounded_count num_dst, int fanout,
                   const sampled_slots_view<Offset, Index>& sampled, std::int64_t num_nodes,
                   const sampled_block_view<Offset, Index>& out, workspace_view ws)
{
  detail::relabel_hop_async(stream, dst, num_dst, fanout, sampled, num_nodes, out, ws);
}

/// Synchronises `stream` and raises what the last relabel_async that used `ws` recorded: a
/// dst id outside the graph first, then a row whose count or offsets do not fit the slots, then a
/// sampled neighbour outside the graph. Not capturable.
/// @param stream the stream relabel_async ran on  @param ws the workspace it used
/// @param num_nodes the graph's node count (for the message)
/// @throws index_out_of_range naming "relabel_async: dst"[row] = id, or "sampled
/// neighbours"[edge position] = value; invalid_argument naming sampled.counts[row] = count (a
/// count or offsets that cannot be the slots'), or a null workspace; cuda_error.
inline void relabel_check(cudaStream_t stream, workspace_view ws, std::int64_t num_nodes)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, "relabel_check: null workspace");
  detail::check_device_accessible(ws.data, 0, workspace_alignment, "workspace");
  detail::relabel_raise(stream, ws, num_nodes);
}

GNNDIRECT_NAMESPACE_END
