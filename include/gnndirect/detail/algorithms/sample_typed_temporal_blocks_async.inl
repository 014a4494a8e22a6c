#pragma once
// Definitions of algorithms/sample_typed_temporal_blocks_async.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
std::size_t sample_typed_temporal_blocks_workspace_bytes(
  const typed_graph_view<Offset, Index>& graph, const typed_blocks_bounds& bounds)
{
  return detail::carve_typed_temporal_workspace<Offset, Index>(workspace_view{}, bounds,
                                                               detail::typed_src_types(graph))
    .total;
}

template <class Offset, class Index, class Strategy, class TimeForm>
void sample_typed_temporal_blocks_async(
  cudaStream_t stream, const typed_graph_view<Offset, Index>& graph, const typed_seeds_view<Index>& seeds,
  const std::vector<const std::int64_t*>& seed_times, const typed_fanouts& fanouts,
  const std::vector<temporal_sampler<Strategy, TimeForm>>& samplers, const sampling_policy& policy,
  const sampled_typed_blocks_view<Offset, Index>& out, workspace_view ws)
{
  char const* const call = "sample_typed_temporal_blocks_async";
  check_typed_graph_shape(graph);
  GNNDIRECT_EXPECTS(samplers.size() == static_cast<std::size_t>(graph.num_relations),
                    std::string(call) + ": " + std::to_string(samplers.size()) + " temporal samplers for " +
                      std::to_string(graph.num_relations) + " relations (one per relation, in schema order)");
  GNNDIRECT_EXPECTS(seed_times.size() == static_cast<std::size_t>(graph.num_node_types),
                    std::string(call) + ": seed times for " + std::to_string(seed_times.size()) +
                      " node types, the graph has " + std::to_string(graph.num_node_types) +
                      " (one entry per type, null where a type has no seeds)");
  auto const as_given = [&samplers](int r, auto&& f) { f(samplers[static_cast<std::size_t>(r)]); };
  typed_blocks_bounds const b = detail::check_typed_sample(graph, seeds, fanouts, as_given, policy, out, ws, call,
                                                           "sample_typed_temporal_blocks_workspace_bytes");
  for (int r = 0; r < graph.num_relations; ++r) {
    auto const& rel = graph.relations[r];
    detail::check_temporal_times(samplers[static_cast<std::size_t>(r)], graph.num_nodes[rel.src_type],
                                 rel.csc.num_edges, std::string(call) + " (relation " + std::to_string(r) + ")");
  }
  std::vector<std::int64_t> const seed_counts = typed_seed_counts(seeds, graph.num_node_types, call);
  for (int t = 0; t < graph.num_node_types; ++t) {
    std::string const what = call + std::string(" (node type ") + std::to_string(t) + ")";
    detail::check_seed_times(seed_times[static_cast<std::size_t>(t)], seed_counts[static_cast<std::size_t>(t)],
                             what.c_str());
  }
  auto const w = detail::carve_typed_temporal_workspace<Offset, Index>(ws, b, detail::typed_src_types(graph));
  // Relation r's rows are its dst type's frontier: their times are that type's frontier times.
  auto const with_row_times = [&](int r, auto&& f) {
    auto const dst = static_cast<std::size_t>(graph.relations[r].dst_type);
    f(samplers[static_cast<std::size_t>(r)].with_query_times(w.frontier_times[dst], w.frontier_bound[dst]));
  };
  detail::typed_temporal_rows<Offset, Index> const rows{b, graph, seed_times, seed_counts, out, w};
  detail::enqueue_typed_blocks(stream, graph, seeds, b, with_row_times, policy, out, w.blocks, rows);
}

GNNDIRECT_NAMESPACE_END
