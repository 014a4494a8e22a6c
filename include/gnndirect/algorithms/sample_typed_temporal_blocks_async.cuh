#pragma once
/// @file sample_typed_temporal_blocks_async.cuh
/// @brief Typed (heterogeneous) multi-layer temporal sampling: sample_typed_blocks_async's blocks
/// where every relation draws with its own temporal_sampler (device/temporal_samplers.hpp) and
/// every row carries a query time, inherited per node type layer by layer (needs nvcc;
/// caller-owned outputs and workspace).
///
/// Semantics: those of sample_typed_blocks_async (node lists per type, one block per layer per
/// relation, relabelling in order of first appearance), with times. A seed's row has its seed
/// time. A node appended to its type's list at layer l is expanded at layer l + 1 with the
/// minimum of the times of the layer-l rows that sampled it (any relation); a node already in
/// its list keeps the time it was expanded with. Relation r draws with samplers[r]: its edge
/// times (edge_time: one per edge of the relation, in its CSC position order) or the node times
/// of its src type (node_time), its strategy ('uniform' with the counter layer
/// typed_random_layer(l, r), or 'last'), its excluded edge ids (link prediction's seed edges of
/// that relation). So no block ever holds an edge later than the time of the row it was sampled
/// for, nor a row later than any row that reached it first. PyG (pyg-lib) samples temporal
/// hetero graphs in disjoint mode instead (one subtree per seed, that seed's time at every hop);
/// the two agree where seeds share no nodes, and where they do, gnndirect expands a shared node
/// once under the earliest time that reached it (fewer edges, never a later one). With all times
/// at or before the query times and no excluded edges, 'uniform' draws exactly what
/// uniform_sampler draws (the same Floyd draws), so the result is sample_typed_blocks_async's.
///
/// Like sample_typed_blocks_async: outputs sized by sample_typed_blocks_bounds, every size on the
/// device, a caller workspace (sample_typed_temporal_blocks_workspace_bytes: the typed workspace,
/// then the rows' times), errors raised afterwards by sample_typed_blocks_check on the same
/// workspace; never synchronises, never allocates: capturable, replayable with new seeds and
/// seed times copied into the same arrays. Each relation's lists and times may sit in any
/// placement.

#include <gnndirect/algorithms/sample_typed_blocks_async.cuh>
#include <gnndirect/algorithms/typed_blocks_bounds.hpp>
#include <gnndirect/core/sampled_typed_views.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/typed_seeds_view.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/sample_typed_temporal_blocks_async.cuh>
#include <gnndirect/device/temporal_samplers.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Workspace bytes sample_typed_temporal_blocks_async needs for outputs of `bounds` on `graph`:
/// sample_typed_blocks_workspace_bytes plus one int64 time per node list entry and per frontier
/// row of every type.
/// @param graph the typed graph  @param bounds sample_typed_blocks_bounds of the call
/// @return the bytes  @throws cuda_error.
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
std::size_t sample_typed_temporal_blocks_workspace_bytes(const typed_graph_view<Offset, Index>& graph,
                                                         const typed_blocks_bounds& bounds);

/// Enqueues a typed temporal sample (see the file comment) on `stream`; returns at once.
///
/// Writes what sample_typed_blocks_async writes, and records the same errors in `ws` (raise them
/// with sample_typed_blocks_check(stream, ws, graph, seeds, num_layers)). The samplers'
/// query_times are ignored: each layer gets its rows' times.
/// @param stream stream to enqueue on
/// @param graph typed graph with device-visible arrays (any placement per relation)
/// @param seeds per node type its device-visible seeds (typed_seeds_of)
/// @param seed_times per node type (one entry per type) the device-visible query times of its
/// seeds, seeds.count(t) int64 each (null where a type has no seeds)
/// @param fanouts per relation per layer (typed_fanouts_of; -1 = all neighbours at or before the
/// time)
/// @param samplers one temporal sampler per relation, in schema order, each with its own times
/// (relation r's edges, or its src type's nodes), seed and excluded edges
/// @param policy tile, budget, checks (for every relation)
/// @param out outputs sized by sample_typed_blocks_bounds(graph, seed counts, fanouts)
/// @param ws workspace of at least sample_typed_temporal_blocks_workspace_bytes bytes for those
/// bounds
/// @throws invalid_argument (those of sample_typed_blocks_async; a sampler list or seed time list
/// of the wrong length; seeds without times, naming the type; a relation's times null, of the
/// wrong length (naming the relation and both lengths) or unreachable) before any launch;
/// cuda_error.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Strategy, TimeForm the temporal samplers' tags (one strategy and form for all relations)
template <class Offset, class Index, class Strategy, class TimeForm>
void sample_typed_temporal_blocks_async(cudaStream_t stream, const typed_graph_view<Offset, Index>& graph,
                                        const typed_seeds_view<Index>& seeds,
                                        const std::vector<const std::int64_t*>& seed_times,
                                        const typed_fanouts& fanouts,
                                        const std::vector<temporal_sampler<Strategy, TimeForm>>& samplers,
                                        const sampling_policy& policy,
                                        const sampled_typed_blocks_view<Offset, Index>& out, workspace_view ws);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/sample_typed_temporal_blocks_async.inl>
