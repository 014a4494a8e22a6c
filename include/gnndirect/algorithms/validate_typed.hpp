#pragma once
/// @file validate_typed.hpp
/// @brief validate_typed: the structural check of a typed graph on the host, and the row-count
/// check of per-node-type feature tables (host-compilable).
///
/// Each relation's CSC is checked by validate()'s rules (algorithms/validate.hpp), except that
/// its neighbour ids must lie in its src type's range (not in its row count), after the shape
/// checks of check_typed_graph_shape (a relation whose row count disagrees with its dst type).

#include <gnndirect/algorithms/corrupt_graph.hpp>
#include <gnndirect/algorithms/typed_blocks_bounds.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/typed_schema.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/algorithms/validate_typed.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Checks a typed graph whose arrays the CPU can read (host_typed_graph::view(), or views of
/// caller host memory): its shape (check_typed_graph_shape), then every relation's CSC as
/// validate(csr_view) does, with neighbour ids bounded by the src type's node count.
/// @param graph host-readable view  @param schema names for the messages, or null
/// @throws invalid_argument for a shape problem (naming the relation and field);
/// corrupt_graph whose message starts "relation (src, name, dst): " (or "relation r: ") and names
/// the first failing array, position and value, e.g. a neighbour id outside its src type;
/// invalid_argument for arrays in device memory. Synchronous; touches no CUDA API.
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
void validate_typed(const typed_graph_view<Offset, Index>& graph, const typed_schema* schema = nullptr)
{
  check_typed_graph_shape(graph, schema);
  for (int r = 0; r < graph.num_relations; ++r) {
    std::string const name = schema != nullptr ? to_string(schema->relation(r)) : std::to_string(r);
    detail::validate_relation_host(graph.relations[r], graph.num_nodes[graph.relations[r].src_type],
                                   "relation " + name);
  }
}

/// Checks that per-node-type feature tables match their node types: rows[t] is the row count of
/// type t's table, or -1 for a type without features (allowed).
/// @param graph the typed graph  @param rows one entry per node type
/// @param schema names for the messages, or null
/// @throws invalid_argument naming the node type, its node count and the table's rows, or a
/// list of another length.
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
void check_typed_table_rows(const typed_graph_view<Offset, Index>& graph, const std::vector<std::int64_t>& rows,
                            const typed_schema* schema = nullptr)
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
