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
void validate_typed(const typed_graph_view<Offset, Index>& graph, const typed_schema* schema = nullptr);

/// Checks that per-node-type feature tables match their node types: rows[t] is the row count of
/// type t's table, or -1 for a type without features (allowed).
/// @param graph the typed graph  @param rows one entry per node type
/// @param schema names for the messages, or null
/// @throws invalid_argument naming the node type, its node count and the table's rows, or a
/// list of another length.
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
void check_typed_table_rows(const typed_graph_view<Offset, Index>& graph, const std::vector<std::int64_t>& rows,
                            const typed_schema* schema = nullptr);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/validate_typed_host.inl>
