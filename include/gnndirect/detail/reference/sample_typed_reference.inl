#pragma once
// Definitions of reference/sample_typed_reference.hpp (included at its end; not part of the API).

#include <unordered_map>

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

template <class Offset, class Index>
typed_blocks_view<Offset, Index> typed_reference_blocks<Offset, Index>::view() const
{
  auto const n = [](std::size_t s) { return static_cast<std::int64_t>(s); };
  typed_blocks_view<Offset, Index> out;
  for (auto const& t : node_types) { out.node_types.push_back({{t.nodes.data(), n(t.nodes.size())}, t.counts}); }
  for (auto const& layer : layers) {
    out.layers.emplace_back();
    for (auto const& b : layer) {
      out.layers.back().push_back({b.relation, b.src_type, b.dst_type, b.dst_begin,
                                   {b.offsets.data(), n(b.offsets.size())},
                                   {b.indices.data(), n(b.indices.size())},
                                   {b.edge_ids.data(), n(b.edge_ids.size())}});
    }
  }
  return out;
}

template <class Offset, class Index, class Samplers>
typed_reference_blocks<Offset, Index> sample_typed_blocks_reference(
  const typed_graph_view<Offset, Index>& graph, int seed_type, const Index* seeds,
  std::int64_t num_seeds, const typed_fanouts& fanouts, const Samplers& samplers, int threads)
{
  // The one-type checks and messages first, then the multi-type form with this type's seeds.
  (void)sample_typed_blocks_bounds(graph, seed_type, num_seeds, fanouts);
  GNNDIRECT_EXPECTS(num_seeds == 0 || seeds != nullptr, "sample_typed_blocks_reference: null seeds");
  return sample_typed_blocks_reference(graph, typed_seeds_of(graph.num_node_types, seed_type, seeds, num_seeds),
                                       fanouts, samplers, threads);
}

template <class Offset, class Index, class Samplers>
typed_reference_blocks<Offset, Index> sample_typed_blocks_reference(
  const typed_graph_view<Offset, Index>& graph, const typed_seeds_view<Index>& seeds,
  const typed_fanouts& fanouts, const Samplers& samplers, int threads)
{
  typed_blocks_bounds const bounds = sample_typed_blocks_bounds(graph, seeds, fanouts);
  for (int t = 0; t < graph.num_node_types; ++t) {
    for (std::int64_t i = 0; i < seeds.counts[t]; ++i) {
      Index const id = seeds.seeds[t][i];
      if (id < 0 || static_cast<std::int64_t>(id) >= graph.num_nodes[t]) {
        throw index_out_of_range(__FILE__, __LINE__, "seeds (node type " + std::to_string(t) + ")", i,
                                 static_cast<std::int64_t>(id), graph.num_nodes[t]);
      }
    }
  }
  auto const types = static_cast<std::size_t>(graph.num_node_types);
  typed_reference_blocks<Offset, Index> out;
  out.node_types.resize(types);
  std::vector<std::unordered_map<Index, Index>> local(types);
  std::vector<std::int64_t> begin(types, 0);  // frontier [begin, end) of each type
  for (std::size_t t = 0; t < types; ++t) {
    auto& list = out.node_types[t];
    for (std::int64_t i = 0; i < seeds.counts[t]; ++i) {
      list.nodes.push_back(seeds.seeds[t][i]);
      local[t].emplace(seeds.seeds[t][i], static_cast<Index>(i));  // first wins
    }
  }
  for (auto& t : out.node_types) { t.counts.push_back(static_cast<std::int64_t>(t.nodes.size())); }
  for (std::size_t l = 0; l < bounds.num_layers(); ++l) {
    std::vector<std::vector<Index>> frontier(types);
    for (std::size_t t = 0; t < types; ++t) {
      auto const& nodes = out.node_types[t].nodes;
      frontier[t].assign(nodes.begin() + begin[t], nodes.end());
    }
    out.layers.emplace_back();
    for (int r = 0; r < graph.num_relations; ++r) {
      relation_view<Offset, Index> const& rel = graph.relations[r];
      auto const& rows = frontier[static_cast<std::size_t>(rel.dst_type)];
      int const fanout = bounds.fanouts[l][static_cast<std::size_t>(r)];
      reference_relation_block<Offset, Index> block;
      block.relation = r;
      block.src_type = rel.src_type;
      block.dst_type = rel.dst_type;
      block.dst_begin = begin[static_cast<std::size_t>(rel.dst_type)];
      reference_neighbors<Offset, Index> sampled;
      with_relation_sampler(samplers, r, [&](auto const& sampler) {
        sampled = sample_neighbors_reference(rel.csc, rows.data(), static_cast<std::int64_t>(rows.size()),
                                             fanout, typed_random_layer(static_cast<int>(l), r),
                                             sampler, threads);
      });
      std::int64_t const src_count = graph.num_nodes[rel.src_type];
      auto& list = out.node_types[static_cast<std::size_t>(rel.src_type)].nodes;
      auto& map = local[static_cast<std::size_t>(rel.src_type)];
      block.indices.resize(sampled.neighbors.size());
      for (std::size_t e = 0; e < sampled.neighbors.size(); ++e) {
        Index const id = sampled.neighbors[e];
        if (id < 0 || static_cast<std::int64_t>(id) >= src_count) {
          throw index_out_of_range(__FILE__, __LINE__,
                                   "sampled neighbour ids of relation " + std::to_string(r) +
                                     " at layer " + std::to_string(l),
                                   static_cast<std::int64_t>(e), static_cast<std::int64_t>(id), src_count);
        }
        auto const inserted = map.emplace(id, static_cast<Index>(list.size()));
        if (inserted.second) { list.push_back(id); }
        block.indices[e] = inserted.first->second;
      }
      block.offsets = std::move(sampled.offsets);
      block.edge_ids = std::move(sampled.edge_ids);
      out.layers.back().push_back(std::move(block));
    }
    for (std::size_t t = 0; t < types; ++t) {
      auto& type = out.node_types[t];
      begin[t] = type.counts.back();
      type.counts.push_back(static_cast<std::int64_t>(type.nodes.size()));
    }
  }
  return out;
}

}  // namespace host
GNNDIRECT_NAMESPACE_END
