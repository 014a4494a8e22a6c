#pragma once
// Definitions of algorithms/sample_typed_blocks_async.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
std::size_t sample_typed_blocks_workspace_bytes(
  const typed_graph_view<Offset, Index>& graph, const typed_blocks_bounds& bounds)
{
  std::vector<int> src_types;
  for (int r = 0; r < graph.num_relations; ++r) { src_types.push_back(graph.relations[r].src_type); }
  return detail::carve_typed_workspace<Offset, Index>(workspace_view{}, bounds, src_types).total;
}

template <class Offset, class Index, class Samplers>
void sample_typed_blocks_async(
  cudaStream_t stream, const typed_graph_view<Offset, Index>& graph, int seed_type, const Index* seeds,
  std::int64_t num_seeds, const typed_fanouts& fanouts, const Samplers& samplers, const sampling_policy& policy,
  const sampled_typed_blocks_view<Offset, Index>& out, workspace_view ws)
{
  // The one-type checks and messages first (the seed type, its count, null seeds), then the
  // multi-type form with this type's seeds only: the same launches, the same results.
  (void)sample_typed_blocks_bounds(graph, seed_type, num_seeds, fanouts);
  GNNDIRECT_EXPECTS(num_seeds == 0 || seeds != nullptr, "sample_typed_blocks_async: null seeds");
  sample_typed_blocks_async(stream, graph, typed_seeds_of(graph.num_node_types, seed_type, seeds, num_seeds),
                            fanouts, samplers, policy, out, ws);
}

template <class Offset, class Index, class Samplers>
void sample_typed_blocks_async(
  cudaStream_t stream, const typed_graph_view<Offset, Index>& graph, const typed_seeds_view<Index>& seeds,
  const typed_fanouts& fanouts, const Samplers& samplers, const sampling_policy& policy,
  const sampled_typed_blocks_view<Offset, Index>& out, workspace_view ws)
{
  check_typed_graph_shape(graph);
  std::vector<std::int64_t> const seed_counts =
    typed_seed_counts(seeds, graph.num_node_types, "sample_typed_blocks_async");
  typed_blocks_bounds const b = sample_typed_blocks_bounds(graph, seed_counts, fanouts);
  for (int t = 0; t < graph.num_node_types; ++t) {
    if (seeds.counts[t] == 0) { continue; }  // its pointer is ignored
    detail::check_device_accessible(seeds.seeds[t], static_cast<std::size_t>(seeds.counts[t]) * sizeof(Index),
                                    alignof(Index), ("seeds of node type " + std::to_string(t)).c_str());
  }
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
  for (int t = 0; t < graph.num_node_types; ++t) {
    std::int64_t const n = seeds.counts[t];
    if (!policy.check_indices || n == 0) { continue; }
    detail::error_flag_ref const seed_flag{w.records + t};  // type t's seed record
    detail::launch_first_violation(stream, detail::id_range_rule<Index>{seeds.seeds[t], graph.num_nodes[t]}, n,
                                   seed_flag);
    seed_flag.capture_value_async(stream, seeds.seeds[t]);
  }
  for (std::size_t t = 0; t < b.nodes.size(); ++t) {
    detail::typed_set_count_kernel<std::int64_t><<<1, 1, 0, stream>>>(out.node_types[t].counts, seed_counts[t]);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
  }
  for (std::size_t t = 0; t < b.nodes.size(); ++t) {
    if (seed_counts[t] == 0) { continue; }
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(out.node_types[t].nodes, seeds.seeds[t],
                                       static_cast<std::size_t>(seed_counts[t]) * sizeof(Index),
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

namespace detail {

template <class Offset, class Index>
void typed_check(cudaStream_t stream, workspace_view ws, const typed_graph_view<Offset, Index>& graph,
                 std::size_t num_layers)
{
  detail::check_device_accessible(ws.data, 0, workspace_alignment, "workspace");
  auto const relations = static_cast<std::size_t>(graph.num_relations);
  std::vector<detail::error_record> records(detail::typed_record(num_layers, 0, relations, 0));
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(records.data(), ws.data, sizeof(detail::error_record) * records.size(),
                                     cudaMemcpyDefault, stream));
  detail::synchronize(stream);
  auto const bad = [](const detail::error_record& x) { return x.position != detail::no_bad_position; };
  for (int t = 0; t < graph.num_node_types; ++t) {
    if (bad(records[static_cast<std::size_t>(t)])) {
      throw index_out_of_range(__FILE__, __LINE__, "seeds (node type " + std::to_string(t) + ")",
                               static_cast<std::int64_t>(records[static_cast<std::size_t>(t)].position),
                               static_cast<std::int64_t>(records[static_cast<std::size_t>(t)].value),
                               graph.num_nodes[t]);
    }
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

}  // namespace detail

template <class Offset, class Index>
void sample_typed_blocks_check(
  cudaStream_t stream, workspace_view ws, const typed_graph_view<Offset, Index>& graph, int seed_type,
  std::size_t num_layers)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, "sample_typed_blocks_check: null workspace");
  GNNDIRECT_EXPECTS(seed_type >= 0 && seed_type < graph.num_node_types,
                    "sample_typed_blocks_check: seed type " + std::to_string(seed_type) + " is no node type");
  // Only the seed type's record can be set after a one-type sample.
  detail::typed_check(stream, ws, graph, num_layers);
}

template <class Offset, class Index>
void sample_typed_blocks_check(
  cudaStream_t stream, workspace_view ws, const typed_graph_view<Offset, Index>& graph,
  const typed_seeds_view<Index>& seeds, std::size_t num_layers)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, "sample_typed_blocks_check: null workspace");
  GNNDIRECT_EXPECTS(seeds.num_node_types == graph.num_node_types,
                    "sample_typed_blocks_check: seeds for " + std::to_string(seeds.num_node_types) +
                      " node types, the graph has " + std::to_string(graph.num_node_types));
  detail::typed_check(stream, ws, graph, num_layers);
}

GNNDIRECT_NAMESPACE_END
