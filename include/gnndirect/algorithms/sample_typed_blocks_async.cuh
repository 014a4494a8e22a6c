#pragma once
/// @file sample_typed_blocks_async.cuh
/// @brief Typed (heterogeneous) multi-layer GPU sampling with relabelling per node type into
/// caller-owned outputs (needs nvcc; includes no owners: algorithms/sample_typed_blocks_buffers.cuh
/// adds them).
///
/// Semantics (PyG's hetero NeighborLoader, pyg-lib's hetero neighbour sampler): the seeds, of one
/// node type, start that type's node list and are its frontier at layer 0. At layer l, every
/// relation whose dst type has frontier nodes samples its fanout (fanouts.per_relation[r][l]; -1:
/// all neighbours, 0: none) for each of them, with relation r's sampler (a type; one for all
/// relations, or per_relation_samplers) and counter layer typed_random_layer(l, r); relation by
/// relation in schema order, the sampled src ids that are not yet in their type's list are
/// appended to it in order of first appearance, and every edge gets its src's local id. What a
/// layer appended to a type is that type's frontier at the next layer. Results: one node list
/// per type and one block per layer per relation (core/sampled_typed_refs.hpp). With the
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
#include <gnndirect/core/sampled_typed_refs.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/typed_schema.hpp>
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
                                                const typed_blocks_bounds& bounds)
{
  std::vector<int> src_types;
  for (int r = 0; r < graph.num_relations; ++r) { src_types.push_back(graph.relations[r].src_type); }
  return detail::carve_typed_workspace<Offset, Index>(workspace_view{}, bounds, src_types).total;
}

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
                               const sampled_typed_blocks_ref<Offset, Index>& out, workspace_view ws)
{
  typed_blocks_bounds const b = sample_typed_blocks_bounds(graph, seed_type, num_seeds, fanouts);
  GNNDIRECT_EXPECTS(num_seeds == 0 || seeds != nullptr, "sample_typed_blocks_async: null seeds");
  detail::check_device_accessible(seeds, static_cast<std::size_t>(num_seeds) * sizeof(Index),
                                  alignof(Index), "seeds");
  for (int r = 0; r < graph.num_relations; ++r) {
    auto const& csc = graph.relations[r].csc;
    with_relation_sampler(samplers, r, [&](auto const& sampler) {
      static_assert(is_sampler_v<std::decay_t<decltype(sampler)>>,
                    "sample_typed_blocks_async: samplers must model the sampler concept");
      for (std::size_t l = 0; l < b.num_layers(); ++l) {
        validate(sampler, policy, csc, b.fanouts[l][r]);
        // every layer's shared memory, before anything is enqueued (as sample_blocks_async)
        if (b.fanouts[l][r] > 0) { detail::check_sample_shared_memory(sampler, policy, b.fanouts[l][r]); }
      }
    });
    if (csc.num_nodes > 0) { detail::check_device_accessible(csc.indptr, 0, alignof(Offset), "indptr"); }
    if (csc.num_edges > 0) { detail::check_device_accessible(csc.indices, 0, alignof(Index), "indices"); }
  }
  detail::check_typed_outputs(out, b);
  GNNDIRECT_EXPECTS(ws.data != nullptr, "sample_typed_blocks_async: null workspace (size it with "
                                        "sample_typed_blocks_workspace_bytes)");
  detail::check_device_accessible(ws.data, ws.bytes, workspace_alignment, "workspace");
  std::vector<int> src_types;
  for (int r = 0; r < graph.num_relations; ++r) { src_types.push_back(graph.relations[r].src_type); }
  auto const w = detail::carve_typed_workspace<Offset, Index>(ws, b, src_types);
  std::size_t const relations = src_types.size();
  std::size_t const records = detail::typed_record(b.num_layers(), 0, relations, 0);
  GNNDIRECT_CUDA_TRY(cudaMemsetAsync(w.records, 0xFF, sizeof(detail::error_record) * records, stream));
  detail::error_flag_ref const seed_flag{w.records};
  if (policy.check_indices && num_seeds > 0) {
    detail::launch_first_violation(stream, detail::id_range_rule<Index>{seeds, graph.num_nodes[seed_type]},
                                   num_seeds, seed_flag);
    seed_flag.capture_value_async(stream, seeds);
  }
  for (std::size_t t = 0; t < b.nodes.size(); ++t) {
    bool const seed = static_cast<int>(t) == seed_type;
    detail::typed_set_count_kernel<std::int64_t><<<1, 1, 0, stream>>>(out.node_types[t].counts, seed ? num_seeds : std::int64_t{0});
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
  }
  if (num_seeds > 0) {
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(out.node_types[static_cast<std::size_t>(seed_type)].nodes, seeds,
                                       static_cast<std::size_t>(num_seeds) * sizeof(Index),
                                       cudaMemcpyDefault, stream));
  }
  for (std::size_t l = 0; l < b.num_layers(); ++l) {
    for (std::size_t t = 0; t < b.nodes.size(); ++t) {
      std::int64_t const bound = b.frontier[l][t];
      if (bound == 0) { continue; }
      detail::typed_frontier_kernel<Index><<<detail::elementwise_blocks(bound), 256, 0, stream>>>(
        out.node_types[t].nodes, out.node_types[t].counts, static_cast<int>(l), bound, w.frontier[t],
        w.frontier_counts + t);
      GNNDIRECT_CUDA_TRY(cudaGetLastError());
    }
    for (std::size_t r = 0; r < relations; ++r) {
      auto const& rel = graph.relations[r];
      auto const& o = out.layers[l][r];
      relation_bounds const& rb = b.layers[l][r];
      int const fanout = b.fanouts[l][r];
      GNNDIRECT_CUDA_TRY(cudaMemsetAsync(o.offsets, 0, sizeof(std::int64_t), stream));
      if (rb.num_edges == 0) {
        detail::typed_set_count_kernel<std::int64_t><<<1, 1, 0, stream>>>(o.num_edges, std::int64_t{0});
        GNNDIRECT_CUDA_TRY(cudaGetLastError());
      }
      if (rb.num_dst == 0) { continue; }
      detail::error_flag_ref const rows_flag{w.records + detail::typed_record(l, r, relations, 0)};
      detail::error_flag_ref const graph_flag{w.records + detail::typed_record(l, r, relations, 1)};
      detail::sampler_flags const sampler_records{{w.records + detail::typed_record(l, r, relations, 3)},
                                                  {w.records + detail::typed_record(l, r, relations, 4)}};
      Offset* const slot_edge_ids = o.edge_ids == nullptr ? nullptr : w.slot_edge_ids[r];
      with_relation_sampler(samplers, static_cast<int>(r), [&](auto const& sampler) {
        detail::launch_sample_neighbors(stream, rel.csc, w.frontier[static_cast<std::size_t>(rel.dst_type)],
                                        rb.num_dst, w.frontier_counts + rel.dst_type, fanout,
                                        typed_random_layer(static_cast<int>(l), static_cast<int>(r)),
                                        sampler, policy, w.slot_neighbors[r], slot_edge_ids, w.counts[r],
                                        rows_flag, graph_flag, sampler_records);
      });
      detail::capture_list_end_async(stream, graph_flag, rel.csc.indptr);
      std::size_t bytes = w.relabel.cub_bytes;
      GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveSum(w.relabel.cub_storage, bytes, w.counts[r],
                                                         o.offsets + 1, rb.num_dst, stream));
    }
    for (int s = 0; s < graph.num_node_types; ++s) {
      std::vector<int> rels;
      std::int64_t slots = 0;
      for (std::size_t r = 0; r < relations; ++r) {
        if (src_types[r] != s) { continue; }
        rels.push_back(static_cast<int>(r));
        slots += b.layers[l][r].num_edges;
      }
      if (slots == 0) {
        detail::typed_keep_count_kernel<std::int64_t><<<1, 1, 0, stream>>>(out.node_types[static_cast<std::size_t>(s)].counts,
                                                             static_cast<int>(l));
        GNNDIRECT_CUDA_TRY(cudaGetLastError());
        continue;
      }
      detail::typed_relabel_async(stream, graph, b, l, s, rels, out, w);
    }
  }
}

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
                               std::size_t num_layers)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, "sample_typed_blocks_check: null workspace");
  GNNDIRECT_EXPECTS(seed_type >= 0 && seed_type < graph.num_node_types,
                    "sample_typed_blocks_check: seed type " + std::to_string(seed_type) + " is no node type");
  detail::check_device_accessible(ws.data, 0, workspace_alignment, "workspace");
  auto const relations = static_cast<std::size_t>(graph.num_relations);
  std::vector<detail::error_record> records(detail::typed_record(num_layers, 0, relations, 0));
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(records.data(), ws.data, sizeof(detail::error_record) * records.size(),
                                     cudaMemcpyDefault, stream));
  detail::synchronize(stream);
  auto const bad = [](const detail::error_record& x) { return x.position != detail::no_bad_position; };
  if (bad(records[0])) {
    throw index_out_of_range(__FILE__, __LINE__, "seeds (node type " + std::to_string(seed_type) + ")",
                             static_cast<std::int64_t>(records[0].position),
                             static_cast<std::int64_t>(records[0].value), graph.num_nodes[seed_type]);
  }
  for (std::size_t l = 0; l < num_layers; ++l) {
    for (std::size_t r = 0; r < relations; ++r) {
      std::string const where = "relation " + std::to_string(r) + " at layer " + std::to_string(l);
      detail::error_record const& list = records[detail::typed_record(l, r, relations, 1)];
      if (bad(list)) {
        throw invalid_argument(__FILE__, __LINE__,
                               "sample_typed_blocks: corrupt graph (" + where + "): node " +
                                 std::to_string(list.position) + "'s neighbour list ends at indptr[" +
                                 std::to_string(list.position) + " + 1] = " + std::to_string(list.value) +
                                 ", before it starts or past the edge array (check untrusted graphs "
                                 "with validate_typed())");
      }
      detail::throw_if_sampler_failed(records[detail::typed_record(l, r, relations, 3)],
                                      records[detail::typed_record(l, r, relations, 4)],
                                      "sample_typed_blocks (" + where + ")", "dst nodes of " + where);
      detail::error_record const& ids = records[detail::typed_record(l, r, relations, 2)];
      if (bad(ids)) {
        throw index_out_of_range(__FILE__, __LINE__, "sampled neighbours of " + where,
                                 static_cast<std::int64_t>(ids.position), static_cast<std::int64_t>(ids.value),
                                 graph.num_nodes[graph.relations[r].src_type]);
      }
    }
  }
}

GNNDIRECT_NAMESPACE_END
