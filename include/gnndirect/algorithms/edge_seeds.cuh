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
#include <gnndirect/core/deprecated_names.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/sampled_views.hpp>
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
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// Caller-owned outputs of relabel_edge_seeds_async (device-visible).
/// @tparam Index node id type
template <class Index>
struct edge_seeds_view {
  Index* nodes{nullptr};               ///< edge_seed_nodes_bound(E, num_nodes) entries: the seed nodes
  std::int64_t* num_nodes{nullptr};    ///< scalar: number of seed nodes
  Index* local{nullptr};               ///< 2 * E: local ids of src[0..E) then dst[0..E)
  std::int64_t* node_times{nullptr};   ///< optional (with edge times): edge_seed_nodes_bound entries
};
static_assert(std::is_trivially_copyable_v<edge_seeds_view<std::int32_t>>, "edge_seeds_view: trivially copyable");

/// Entries the seed-node outputs need for `num_edges` seed edges on a graph of `num_nodes` nodes
/// (relabel_async's src bound for one row of 2E slots). Pure host function.
/// @param num_edges seed edges (>= 0)  @param num_nodes the graph's size
/// @return 0 for no edges, else 1 + min(2E, num_nodes)
/// @throws invalid_argument for negative sizes or 2E beyond the largest int.
inline std::int64_t edge_seed_nodes_bound(std::int64_t num_edges, std::int64_t num_nodes);

/// Workspace bytes of relabel_edge_seeds_async for up to `num_edges` seed edges.
/// @tparam Index node id type  @param num_edges seed edges  @return the bytes
/// @throws invalid_argument (as edge_seed_nodes_bound), cuda_error.
template <class Index>
std::size_t edge_seeds_workspace_bytes(std::int64_t num_edges);

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
                              const std::int64_t* edge_times, std::int64_t num_nodes, const edge_seeds_view<Index>& out,
                              workspace_view ws);

/// Synchronises `stream` and raises a bad endpoint recorded by the last relabel_edge_seeds_async
/// on `ws`. @param stream its stream  @param ws its workspace  @param num_nodes the graph's size
/// @throws index_out_of_range naming "edge seed src"/"edge seed dst"[e] = value; invalid_argument
/// (null workspace); cuda_error.
inline void edge_seeds_check(cudaStream_t stream, workspace_view ws, std::int64_t num_nodes);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/edge_seeds.inl>
