#pragma once
/// @file sample_typed_blocks_async.cuh
/// @brief Typed (heterogeneous) multi-layer GPU sampling with relabelling per node type into
/// caller-owned outputs (needs nvcc; includes no owners: algorithms/sample_typed_blocks_buffers.cuh
/// adds them).
///
/// Semantics (PyG's hetero NeighborLoader, pyg-lib's hetero neighbour sampler): the seeds, of one
/// node type (or, in the multi-type form, of every type: core/typed_seeds_view.hpp, as link
/// seeds whose endpoints have two types), start that type's node list and are its frontier at
/// layer 0. At layer l, every
/// relation whose dst type has frontier nodes samples its fanout (fanouts.per_relation[r][l]; -1:
/// all neighbours, 0: none) for each of them, with relation r's sampler (a type; one for all
/// relations, or per_relation_samplers) and counter layer typed_random_layer(l, r); relation by
/// relation in schema order, the sampled src ids that are not yet in their type's list are
/// appended to it in order of first appearance, and every edge gets its src's local id. What a
/// layer appended to a type is that type's frontier at the next layer. Results: one node list
/// per type and one block per layer per relation (core/sampled_typed_views.hpp). With the
/// library's samplers they equal host::sample_typed_blocks_reference bit for bit.
///
/// Like sample_blocks_async: outputs sized by upper bounds (sample_typed_blocks_bounds), every
/// size on the device (the node counts per type per layer, the edges per block), a caller
/// workspace; never synchronises, never allocates device memory: capturable in a CUDA graph and
/// replayable with new seeds copied into the same array. Each relation's lists may sit in any
/// placement (HBM, pinned, managed_host), independently of the others.

#include <gnndirect/algorithms/typed_blocks_bounds.hpp>
#include <gnndirect/algorithms/typed_samplers.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/sampled_typed_views.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/typed_schema.hpp>
#include <gnndirect/core/typed_seeds_view.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/sample_neighbors_async.cuh>
#include <gnndirect/detail/algorithms/sample_typed_blocks_async.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>

#include <cub/device/device_scan.cuh>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Workspace bytes sample_typed_blocks_async needs for outputs of `bounds` on `graph`.
/// @param graph the typed graph  @param bounds sample_typed_blocks_bounds of the call
/// @return the bytes  @throws cuda_error.
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
std::size_t sample_typed_blocks_workspace_bytes(const typed_graph_view<Offset, Index>& graph,
                                                const typed_blocks_bounds& bounds);

/// Enqueues a typed multi-layer sample (see the file comment) on `stream`; returns at once.
///
/// Writes, per node type t: counts[0, L] and nodes[0, counts[L]); per layer l and relation r:
/// offsets[0, num_dst bound] (entries past the frontier's length equal num_edges), *num_edges,
/// indices and (when not null) edge_ids [0, num_edges); nothing else. A seed outside its type
/// (checked when policy.check_indices; without, undefined behaviour), a corrupt neighbour list
/// or a sampled id outside its src type is recorded in `ws` (such an edge's local id is left
/// unwritten): call sample_typed_blocks_check afterwards to raise them.
/// @param stream stream to enqueue on
/// @param graph typed graph with device-visible arrays (any placement per relation)
/// @param seed_type node type of the seeds
/// @param seeds device-visible ids of that type (repeats allowed: separate rows of layer 0)
/// @param num_seeds their number
/// @param fanouts per relation per layer (typed_fanouts_of)
/// @param samplers one sampler type for all relations, or per_relation_samplers (each type's
/// kernel is instantiated; relation r's is picked per launch)
/// @param policy tile, budget, checks (for every relation)
/// @param out outputs sized by sample_typed_blocks_bounds(graph, seed_type, num_seeds, fanouts)
/// (capacities required)
/// @param ws workspace of at least sample_typed_blocks_workspace_bytes bytes for those bounds
/// @throws invalid_argument (graph shape, fanouts, seed type: as sample_typed_blocks_bounds;
/// weights missing for a sampler with needs_weights; a capacity not given or too small, naming
/// the node type or layer and relation; null, unreachable or misaligned arrays; the workspace)
/// before any launch; cuda_error.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Samplers a sampler type (device/samplers.hpp) or per_relation_samplers
template <class Offset, class Index, class Samplers>
void sample_typed_blocks_async(cudaStream_t stream, const typed_graph_view<Offset, Index>& graph,
                               int seed_type, const Index* seeds, std::int64_t num_seeds,
                               const typed_fanouts& fanouts, const Samplers& samplers,
                               const sampling_policy& policy,
                               const sampled_typed_blocks_view<Offset, Index>& out, workspace_view ws);

/// Multi-type form: enqueues a typed sample whose layer 0 is every type's seeds (type t's list
/// starts with seeds.of(t)[0, seeds.count(t)), in order, repeats as separate rows; its frontier
/// at layer 0), then as the one-type form, which is this form with one type's seeds. Returns at
/// once; never synchronises, never allocates: capturable, replayable with new seeds copied into
/// the same arrays (the counts are part of the capture).
/// @param stream stream to enqueue on  @param graph as the one-type form
/// @param seeds per node type its device-visible seeds (one entry per type of the graph; a type
/// may have none)
/// @param fanouts, samplers, policy as the one-type form
/// @param out outputs sized by sample_typed_blocks_bounds(graph, seeds, fanouts) or by larger
/// per-type counts (capacities required)
/// @param ws workspace of at least sample_typed_blocks_workspace_bytes bytes for those bounds
/// @throws invalid_argument (as the one-type form; a seeds view of another node type count, a
/// negative count or a null array with seeds, naming the type) before any launch; cuda_error.
/// A seed outside its type is recorded (policy.check_indices) and raised by
/// sample_typed_blocks_check naming the type.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Samplers a sampler type (device/samplers.hpp) or per_relation_samplers
template <class Offset, class Index, class Samplers>
void sample_typed_blocks_async(cudaStream_t stream, const typed_graph_view<Offset, Index>& graph,
                               const typed_seeds_view<Index>& seeds, const typed_fanouts& fanouts,
                               const Samplers& samplers, const sampling_policy& policy,
                               const sampled_typed_blocks_view<Offset, Index>& out, workspace_view ws);

/// Synchronises `stream` and raises the first error recorded in `ws` by the last
/// sample_typed_blocks_async of `num_layers` layers on `graph` that used it: the seeds, then layer
/// by layer and relation by relation a corrupt neighbour list, then a sampled id outside its src
/// type. Not capturable.
/// @param stream the stream it ran on  @param ws the workspace it used
/// @param graph the graph it sampled (for the bounds in messages)  @param seed_type its seed type
/// @param num_layers its layers
/// @throws index_out_of_range naming "seeds"[position] = value, or "sampled neighbours of
/// relation r at layer l"[edge position] = value; invalid_argument naming the relation, the layer
/// and the node whose list is corrupt; invalid_argument (null workspace); cuda_error.
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
void sample_typed_blocks_check(cudaStream_t stream, workspace_view ws,
                               const typed_graph_view<Offset, Index>& graph, int seed_type,
                               std::size_t num_layers);

/// Multi-type form of sample_typed_blocks_check, after a multi-type sample_typed_blocks_async:
/// raises the first bad seed in type order (naming the type, the position within its seeds and
/// the value), then as the one-type form. Synchronises `stream`; not capturable.
/// @param stream the stream it ran on  @param ws the workspace it used
/// @param graph the graph it sampled  @param seeds the seeds view it took (its counts name the
/// types; no array is read)  @param num_layers its layers
/// @throws as the one-type form; invalid_argument (a seeds view of another node type count).
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
void sample_typed_blocks_check(cudaStream_t stream, workspace_view ws,
                               const typed_graph_view<Offset, Index>& graph,
                               const typed_seeds_view<Index>& seeds, std::size_t num_layers);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/sample_typed_blocks_async.inl>
