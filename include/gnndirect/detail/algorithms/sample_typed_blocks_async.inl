#pragma once
// Definitions of algorithms/sample_typed_blocks_async.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

namespace detail {

/// The row hooks of a plain typed sample: its rows carry nothing (a temporal sample's hooks,
/// detail/algorithms/sample_typed_temporal_blocks_async.cuh, hand query times on).
struct typed_untimed_rows {
  void seeded(cudaStream_t) const {}
  void frontier(cudaStream_t, std::size_t, std::size_t, std::int64_t) const {}
  void sampled(cudaStream_t, std::size_t) const {}
};

/// The checks of a typed sample before any launch (every typed call's): the graph, the seeds,
/// every relation's sampler at every layer (`with_sampler(r, f)` calls f with relation r's), the
/// outputs and the workspace. @return the bounds of the call (seed counts from the view)
template <class Offset, class Index, class WithSampler>
typed_blocks_bounds check_typed_sample(const typed_graph_view<Offset, Index>& graph,
                                       const typed_seeds_view<Index>& seeds, const typed_fanouts& fanouts,
                                       const WithSampler& with_sampler, const sampling_policy& policy,
                                       const sampled_typed_blocks_view<Offset, Index>& out, workspace_view ws,
                                       const char* call, const char* workspace_bytes_call)
{
  check_typed_graph_shape(graph);
  std::vector<std::int64_t> const seed_counts = typed_seed_counts(seeds, graph.num_node_types, call);
  typed_blocks_bounds b = sample_typed_blocks_bounds(graph, seed_counts, fanouts);
  for (int t = 0; t < graph.num_node_types; ++t) {
    if (seeds.counts[t] == 0) { continue; }  // its pointer is ignored
    check_device_accessible(seeds.seeds[t], static_cast<std::size_t>(seeds.counts[t]) * sizeof(Index),
                            alignof(Index), ("seeds of node type " + std::to_string(t)).c_str());
  }
  for (int r = 0; r < graph.num_relations; ++r) {
    auto const& csc = graph.relations[r].csc;
    with_sampler(r, [&](auto const& sampler) {
      static_assert(is_sampler_v<std::decay_t<decltype(sampler)>>,
                    "sample_typed_blocks_async: samplers must model the sampler concept");
      for (std::size_t l = 0; l < b.num_layers(); ++l) {
        validate(sampler, policy, csc, b.fanouts[l][r]);
        // every layer's shared memory, before anything is enqueued (as sample_blocks_async)
        if (b.fanouts[l][r] > 0) { check_sample_shared_memory(sampler, policy, b.fanouts[l][r]); }
      }
    });
    if (csc.num_nodes > 0) { check_device_accessible(csc.indptr, 0, alignof(Offset), "indptr"); }
    if (csc.num_edges > 0) { check_device_accessible(csc.indices, 0, alignof(Index), "indices"); }
  }
  check_typed_outputs(out, b, call);
  GNNDIRECT_EXPECTS(ws.data != nullptr,
                    std::string(call) + ": null workspace (size it with " + workspace_bytes_call + ")");
  check_device_accessible(ws.data, ws.bytes, workspace_alignment, "workspace");
  return b;
}

/// The src type of every relation (what the workspace is carved by).
template <class Offset, class Index>
std::vector<int> typed_src_types(const typed_graph_view<Offset, Index>& graph)
{
  std::vector<int> src_types;
  for (int r = 0; r < graph.num_relations; ++r) { src_types.push_back(graph.relations[r].src_type); }
  return src_types;
}

/// Enqueues a checked typed sample of bounds `b` into the carved workspace `w`: relation r
/// draws with the sampler `with_sampler(r, f)` hands f; `rows` is told when the lists are
/// seeded, when a type's frontier is copied and when a layer is relabelled. Capturable.
template <class Offset, class Index, class WithSampler, class Rows>
void enqueue_typed_blocks(cudaStream_t stream, const typed_graph_view<Offset, Index>& graph,
                          const typed_seeds_view<Index>& seeds, const typed_blocks_bounds& b,
                          const WithSampler& with_sampler, const sampling_policy& policy,
                          const sampled_typed_blocks_view<Offset, Index>& out, const typed_workspace<Offset, Index>& w,
                          const Rows& rows)
{
  std::vector<int> const src_types = typed_src_types(graph);
  std::size_t const relations = src_types.size();
  std::size_t const records = typed_record(b.num_layers(), 0, relations, 0);
  GNNDIRECT_CUDA_TRY(cudaMemsetAsync(w.records, 0xFF, sizeof(error_record) * records, stream));
  for (int t = 0; t < graph.num_node_types; ++t) {
    std::int64_t const n = seeds.counts[t];
    if (!policy.check_indices || n == 0) { continue; }
    error_flag_ref const seed_flag{w.records + t};  // type t's seed record
    launch_first_violation(stream, id_range_rule<Index>{seeds.seeds[t], graph.num_nodes[t]}, n, seed_flag);
    seed_flag.capture_value_async(stream, seeds.seeds[t]);
  }
  for (std::size_t t = 0; t < b.nodes.size(); ++t) {
    typed_set_count_kernel<std::int64_t><<<1, 1, 0, stream>>>(out.node_types[t].counts, seeds.counts[t]);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
  }
  for (std::size_t t = 0; t < b.nodes.size(); ++t) {
    if (seeds.counts[t] == 0) { continue; }
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(out.node_types[t].nodes, seeds.seeds[t],
                                       static_cast<std::size_t>(seeds.counts[t]) * sizeof(Index),
                                       cudaMemcpyDefault, stream));
  }
  rows.seeded(stream);
  for (std::size_t l = 0; l < b.num_layers(); ++l) {
    for (std::size_t t = 0; t < b.nodes.size(); ++t) {
      std::int64_t const bound = b.frontier[l][t];
      if (bound == 0) { continue; }
      typed_frontier_kernel<Index><<<elementwise_blocks(bound), 256, 0, stream>>>(
        out.node_types[t].nodes, out.node_types[t].counts, static_cast<int>(l), bound, w.frontier[t],
        w.frontier_counts + t);
      GNNDIRECT_CUDA_TRY(cudaGetLastError());
      rows.frontier(stream, l, t, bound);
    }
    for (std::size_t r = 0; r < relations; ++r) {
      auto const& rel = graph.relations[r];
      auto const& o = out.layers[l][r];
      relation_bounds const& rb = b.layers[l][r];
      int const fanout = b.fanouts[l][r];
      GNNDIRECT_CUDA_TRY(cudaMemsetAsync(o.offsets, 0, sizeof(std::int64_t), stream));
      if (rb.num_edges == 0) {
        typed_set_count_kernel<std::int64_t><<<1, 1, 0, stream>>>(o.num_edges, std::int64_t{0});
        GNNDIRECT_CUDA_TRY(cudaGetLastError());
      }
      if (rb.num_dst == 0) { continue; }
      error_flag_ref const rows_flag{w.records + typed_record(l, r, relations, 0)};
      error_flag_ref const graph_flag{w.records + typed_record(l, r, relations, 1)};
      sampler_flags const sampler_records{{w.records + typed_record(l, r, relations, 3)},
                                          {w.records + typed_record(l, r, relations, 4)}};
      Offset* const slot_edge_ids = o.edge_ids == nullptr ? nullptr : w.slot_edge_ids[r];
      with_sampler(static_cast<int>(r), [&](auto const& sampler) {
        launch_sample_neighbors(stream, rel.csc, w.frontier[static_cast<std::size_t>(rel.dst_type)], rb.num_dst,
                                w.frontier_counts + rel.dst_type, fanout,
                                typed_random_layer(static_cast<int>(l), static_cast<int>(r)), sampler, policy,
                                w.slot_neighbors[r], slot_edge_ids, w.counts[r], rows_flag, graph_flag,
                                sampler_records);
      });
      capture_list_end_async(stream, graph_flag, rel.csc.indptr);
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
        typed_keep_count_kernel<std::int64_t><<<1, 1, 0, stream>>>(out.node_types[static_cast<std::size_t>(s)].counts,
                                                                   static_cast<int>(l));
        GNNDIRECT_CUDA_TRY(cudaGetLastError());
        continue;
      }
      typed_relabel_async(stream, graph, b, l, s, rels, out, w);
    }
    rows.sampled(stream, l);
  }
}

}  // namespace detail

template <class Offset, class Index>
std::size_t sample_typed_blocks_workspace_bytes(
  const typed_graph_view<Offset, Index>& graph, const typed_blocks_bounds& bounds)
{
  return detail::carve_typed_workspace<Offset, Index>(workspace_view{}, bounds, detail::typed_src_types(graph)).total;
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
  auto const with_sampler = [&samplers](int r, auto&& f) { with_relation_sampler(samplers, r, f); };
  typed_blocks_bounds const b = detail::check_typed_sample(graph, seeds, fanouts, with_sampler, policy, out, ws,
                                                           "sample_typed_blocks_async",
                                                           "sample_typed_blocks_workspace_bytes");
  auto const w = detail::carve_typed_workspace<Offset, Index>(ws, b, detail::typed_src_types(graph));
  detail::enqueue_typed_blocks(stream, graph, seeds, b, with_sampler, policy, out, w, detail::typed_untimed_rows{});
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
