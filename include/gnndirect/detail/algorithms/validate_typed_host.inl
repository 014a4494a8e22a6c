#pragma once
// Definitions of algorithms/validate_typed.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
void validate_typed(const typed_graph_view<Offset, Index>& graph, const typed_schema* schema)
{
  check_typed_graph_shape(graph, schema);
  for (int r = 0; r < graph.num_relations; ++r) {
    std::string const name = schema != nullptr ? to_string(schema->relation(r)) : std::to_string(r);
    detail::validate_relation_host(graph.relations[r], graph.num_nodes[graph.relations[r].src_type],
                                   "relation " + name);
  }
}

template <class Offset, class Index>
void check_typed_table_rows(const typed_graph_view<Offset, Index>& graph, const std::vector<std::int64_t>& rows,
                            const typed_schema* schema)
{
  GNNDIRECT_EXPECTS(static_cast<int>(rows.size()) == graph.num_node_types,
                    "typed features: " + std::to_string(rows.size()) + " tables for " +
                      std::to_string(graph.num_node_types) + " node types (one each; -1: none)");
  for (int t = 0; t < graph.num_node_types; ++t) {
    std::int64_t const n = rows[static_cast<std::size_t>(t)];
    if (n == -1) { continue; }
    std::string const name = schema != nullptr ? "'" + schema->node_type_name(t) + "'" : std::to_string(t);
    GNNDIRECT_EXPECTS(n == graph.num_nodes[t], "typed features: the table of node type " + name + " has " +
                                                 std::to_string(n) + " rows, the type has " +
                                                 std::to_string(graph.num_nodes[t]) + " nodes");
  }
}

GNNDIRECT_NAMESPACE_END
