#pragma once
// Definitions of algorithms/typed_blocks_bounds.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
void check_typed_graph_shape(const typed_graph_view<Offset, Index>& graph, const typed_schema* schema)
{
  GNNDIRECT_EXPECTS(graph.num_node_types >= 1 && graph.num_node_types <= max_node_types,
                    "typed graph: " + std::to_string(graph.num_node_types) +
                      " node types (1 to " + std::to_string(max_node_types) + ")");
  GNNDIRECT_EXPECTS(graph.num_relations >= 0 && graph.num_relations <= max_relations,
                    "typed graph: " + std::to_string(graph.num_relations) + " relations (0 to " +
                      std::to_string(max_relations) + ")");
  if (schema != nullptr) {
    GNNDIRECT_EXPECTS(schema->num_node_types() == graph.num_node_types &&
                        schema->num_relations() == graph.num_relations,
                      "typed graph: the schema has " + std::to_string(schema->num_node_types()) +
                        " node types and " + std::to_string(schema->num_relations()) +
                        " relations, the view " + std::to_string(graph.num_node_types) + " and " +
                        std::to_string(graph.num_relations));
  }
  auto const type_name = [&](int t) {
    return schema != nullptr ? "'" + schema->node_type_name(t) + "'" : std::to_string(t);
  };
  for (int t = 0; t < graph.num_node_types; ++t) {
    std::int64_t const n = graph.num_nodes[t];
    GNNDIRECT_EXPECTS(n >= 0 && n < static_cast<std::int64_t>(std::numeric_limits<Index>::max()),
                      "typed graph: node type " + type_name(t) + " has " + std::to_string(n) +
                        " nodes (0 to below the largest Index)");
  }
  for (int r = 0; r < graph.num_relations; ++r) {
    relation_view<Offset, Index> const& rel = graph.relations[r];
    std::string const where = "typed graph: relation " +
                              (schema != nullptr ? to_string(schema->relation(r)) : std::to_string(r));
    GNNDIRECT_EXPECTS(rel.src_type >= 0 && rel.src_type < graph.num_node_types,
                      where + ": src_type " + std::to_string(rel.src_type) +
                        " is no node type (the graph has " + std::to_string(graph.num_node_types) + ")");
    GNNDIRECT_EXPECTS(rel.dst_type >= 0 && rel.dst_type < graph.num_node_types,
                      where + ": dst_type " + std::to_string(rel.dst_type) +
                        " is no node type (the graph has " + std::to_string(graph.num_node_types) + ")");
    if (schema != nullptr) {
      GNNDIRECT_EXPECTS(rel.src_type == schema->src_type(r) && rel.dst_type == schema->dst_type(r),
                        where + ": the view's endpoint types (" + type_name(rel.src_type) + " -> " +
                          type_name(rel.dst_type) + ") disagree with the schema");
    }
    GNNDIRECT_EXPECTS(rel.csc.num_nodes == graph.num_nodes[rel.dst_type],
                      where + ": its CSC has " + std::to_string(rel.csc.num_nodes) +
                        " rows but its dst type " + type_name(rel.dst_type) + " has " +
                        std::to_string(graph.num_nodes[rel.dst_type]) + " nodes");
    GNNDIRECT_EXPECTS(rel.csc.num_edges >= 0, where + ": num_edges < 0");
    GNNDIRECT_EXPECTS(rel.csc.num_nodes == 0 || rel.csc.indptr != nullptr, where + ": null indptr");
    GNNDIRECT_EXPECTS(rel.csc.num_edges == 0 || rel.csc.indices != nullptr, where + ": null indices");
  }
}

template <class Offset, class Index>
typed_blocks_bounds sample_typed_blocks_bounds(
  const typed_graph_view<Offset, Index>& graph, int seed_type, std::int64_t num_seeds, const typed_fanouts& fanouts)
{
  check_typed_graph_shape(graph);
  GNNDIRECT_EXPECTS(seed_type >= 0 && seed_type < graph.num_node_types,
                    "sample_typed_blocks: seed type " + std::to_string(seed_type) +
                      " is no node type (the graph has " + std::to_string(graph.num_node_types) + ")");
  GNNDIRECT_EXPECTS(num_seeds >= 0, "sample_typed_blocks: num_seeds must be >= 0");
  std::vector<std::int64_t> per_type(static_cast<std::size_t>(graph.num_node_types), 0);
  per_type[static_cast<std::size_t>(seed_type)] = num_seeds;
  typed_blocks_bounds b = sample_typed_blocks_bounds(graph, per_type, fanouts);
  b.seed_type = seed_type;
  return b;
}

template <class Offset, class Index>
typed_blocks_bounds sample_typed_blocks_bounds(const typed_graph_view<Offset, Index>& graph,
                                               const typed_seeds_view<Index>& seeds,
                                               const typed_fanouts& fanouts)
{
  check_typed_graph_shape(graph);
  return sample_typed_blocks_bounds(graph, typed_seed_counts(seeds, graph.num_node_types, "sample_typed_blocks"),
                                    fanouts);
}

template <class Offset, class Index>
typed_blocks_bounds sample_typed_blocks_bounds(const typed_graph_view<Offset, Index>& graph,
                                               const std::vector<std::int64_t>& seeds_per_type,
                                               const typed_fanouts& fanouts)
{
  check_typed_graph_shape(graph);
  GNNDIRECT_EXPECTS(seeds_per_type.size() == static_cast<std::size_t>(graph.num_node_types),
                    "sample_typed_blocks: seed counts for " + std::to_string(seeds_per_type.size()) +
                      " node types, the graph has " + std::to_string(graph.num_node_types) +
                      " (one entry per node type; 0 where a type has no seeds)");
  for (std::size_t t = 0; t < seeds_per_type.size(); ++t) {
    GNNDIRECT_EXPECTS(seeds_per_type[t] >= 0, "sample_typed_blocks: node type " + std::to_string(t) + " has " +
                                                std::to_string(seeds_per_type[t]) + " seeds (must be >= 0)");
  }
  GNNDIRECT_EXPECTS(static_cast<int>(fanouts.per_relation.size()) == graph.num_relations,
                    "sample_typed_blocks: fanouts for " + std::to_string(fanouts.per_relation.size()) +
                      " relations, the graph has " + std::to_string(graph.num_relations) +
                      " (build them with typed_fanouts_of)");
  int const num_layers = graph.num_relations == 0 ? 0 : fanouts.num_layers();
  GNNDIRECT_EXPECTS(num_layers >= 1 && num_layers <= max_typed_layers,
                    "sample_typed_blocks: 1 to " + std::to_string(max_typed_layers) +
                      " layers needed, got " + std::to_string(num_layers));
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max() / 4;
  auto const types = static_cast<std::size_t>(graph.num_node_types);
  typed_blocks_bounds b;
  std::vector<std::int64_t> cap(types);
  std::vector<std::int64_t> frontier(types, 0);
  b.nodes.assign(types, 0);
  for (std::size_t t = 0; t < types; ++t) {
    std::int64_t const n = seeds_per_type[t];
    GNNDIRECT_EXPECTS(n <= max, "sample_typed_blocks: node type " + std::to_string(t) + "'s seed count overflows");
    cap[t] = graph.num_nodes[t] + n;
    frontier[t] = n;
    b.nodes[t] = n;
  }
  for (int l = 0; l < num_layers; ++l) {
    std::vector<int> resolved(static_cast<std::size_t>(graph.num_relations));
    std::vector<relation_bounds> rel(static_cast<std::size_t>(graph.num_relations));
    std::vector<std::int64_t> added(types, 0);
    for (int r = 0; r < graph.num_relations; ++r) {
      auto const& list = fanouts.per_relation[static_cast<std::size_t>(r)];
      GNNDIRECT_EXPECTS(static_cast<int>(list.size()) == num_layers,
                        "sample_typed_blocks: relation " + std::to_string(r) + " has " +
                          std::to_string(list.size()) + " fanouts, relation 0 " +
                          std::to_string(num_layers));
      int f = list[static_cast<std::size_t>(l)];
      relation_view<Offset, Index> const& relation = graph.relations[r];
      if (f == -1) {
        GNNDIRECT_EXPECTS(relation.max_degree >= 0,
                          "sample_typed_blocks: fanout -1 (all neighbours) for relation " +
                            std::to_string(r) + ", whose max_degree is not known (set it)");
        GNNDIRECT_EXPECTS(relation.max_degree <= std::numeric_limits<int>::max(),
                          "sample_typed_blocks: relation " + std::to_string(r) +
                            "'s max_degree exceeds int");
        f = static_cast<int>(relation.max_degree);
      }
      GNNDIRECT_EXPECTS(f >= 0, "sample_typed_blocks: relation " + std::to_string(r) +
                                  " has fanout " + std::to_string(f) + " at layer " + std::to_string(l));
      resolved[static_cast<std::size_t>(r)] = f;
      std::int64_t const rows = frontier[static_cast<std::size_t>(relation.dst_type)];
      GNNDIRECT_EXPECTS(f == 0 || rows <= max / f,
                        "sample_typed_blocks: layer " + std::to_string(l) + " bound overflows int64");
      rel[static_cast<std::size_t>(r)] = {rows, rows * f};
      auto& a = added[static_cast<std::size_t>(relation.src_type)];
      a = std::min(max, a + rows * f);
    }
    for (std::size_t t = 0; t < types; ++t) {
      added[t] = std::min(added[t], static_cast<std::int64_t>(graph.num_nodes[t]));
      b.nodes[t] = std::min(b.nodes[t] + added[t], cap[t]);
    }
    b.fanouts.push_back(std::move(resolved));
    b.frontier.push_back(frontier);
    b.layers.push_back(std::move(rel));
    b.new_nodes.push_back(added);
    frontier = added;
  }
  return b;
}

GNNDIRECT_NAMESPACE_END
