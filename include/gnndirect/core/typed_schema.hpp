#pragma once
/// @file typed_schema.hpp
/// @brief Names of a typed graph: node types, relations (src type, name, dst type), and fanouts
/// per relation per layer with PyG's `num_neighbors` dict semantics (host-compilable, host only).
///
/// Names are resolved to indices here, once, at the host boundary; everything below
/// (typed_graph_view, the typed sampler, the preparer) works with indices. Every lookup that
/// fails throws invalid_argument naming what was asked for and what exists.

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/version.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// A relation's key: edges go from `src` nodes to `dst` nodes (PyG's edge type tuple); sampling
/// for a dst node draws among its src neighbours.
struct relation_type {
  std::string src;   ///< source node type (the sampled neighbours' type)
  std::string name;  ///< relation name (e.g. "cites", "rev_writes")
  std::string dst;   ///< destination node type (the type sampled from)

  /// @param other another key  @return true when all three names agree
  bool operator==(const relation_type& other) const;
};

/// "(src, name, dst)", as messages write a relation.  @param r the relation  @return the text
inline std::string to_string(const relation_type& r);

/// Node types and relations of a typed graph, in a fixed order (the indices every other typed
/// call uses). Immutable once built.
class typed_schema {
 public:
  /// No types.
  typed_schema() = default;
  /// @param node_types distinct, non-empty names (at most max_node_types)
  /// @param relations distinct keys (at most max_relations) whose src and dst are node types
  /// @throws invalid_argument naming an empty or repeated node type, a relation with an unknown
  /// node type, a repeated relation or too many of either.
  typed_schema(std::vector<std::string> node_types, std::vector<relation_type> relations);

  /// @return number of node types
  int num_node_types() const noexcept { return static_cast<int>(node_types_.size()); }
  /// @return number of relations
  int num_relations() const noexcept { return static_cast<int>(relations_.size()); }
  /// @param t a node type index  @return its name
  const std::string& node_type_name(int t) const { return node_types_.at(static_cast<std::size_t>(t)); }
  /// @param r a relation index  @return its key
  const relation_type& relation(int r) const { return relations_.at(static_cast<std::size_t>(r)); }
  /// @param r a relation index  @return the index of its src node type
  int src_type(int r) const { return src_.at(static_cast<std::size_t>(r)); }
  /// @param r a relation index  @return the index of its dst node type
  int dst_type(int r) const { return dst_.at(static_cast<std::size_t>(r)); }

  /// @param name a node type's name  @return its index
  /// @throws invalid_argument "unknown node type 'name' (node types: ...)".
  int node_type(const std::string& name) const { return find_node_type(name, "typed graph"); }

  /// @param key a relation's key  @return its index
  /// @throws invalid_argument "unknown relation (src, name, dst) (relations: ...)".
  int relation_index(const relation_type& key) const;

  /// The relation called `name`, when exactly one is (PyG accepts a bare relation name too).
  /// @param name a relation name  @return its index
  /// @throws invalid_argument naming an unknown or ambiguous name.
  int relation_index(const std::string& name) const;

  /// @return the relations, comma-separated, for messages
  std::string relation_list() const;

 private:
  int find_node_type(const std::string& name, const std::string& where) const;

  std::vector<std::string> node_types_;
  std::vector<relation_type> relations_;
  std::vector<int> src_;
  std::vector<int> dst_;
};

/// Fanouts of a typed sample: per_relation[r][l] is relation r's fanout at layer l (schema
/// order), -1 meaning all neighbours (PyG's `-1`; sampled as fanout = the relation's
/// max_degree) and 0 none. Build with typed_fanouts_of, which checks them.
struct typed_fanouts {
  std::vector<std::vector<int>> per_relation;  ///< [relation][layer]

  /// @return number of layers (0 when empty)
  int num_layers() const noexcept;
};


/// PyG's `num_neighbors` dict: one fanout list per relation. Every relation of the schema must
/// be listed (unless `fallback` is given: then it applies to the unlisted ones, PyG's
/// `default`), every key must be a relation of the schema, once, and all lists must have the
/// same length (the layer count, >= 1); entries are >= -1.
/// @param schema the graph's schema
/// @param dict (relation key, fanouts per layer) pairs
/// @param fallback fanouts of unlisted relations, or empty (unlisted relations are an error)
/// @return the fanouts in schema order
/// @throws invalid_argument naming an unknown relation key (a missing relation of the graph), a
/// key given twice, a relation of the graph without fanouts, a list of another length or an
/// entry below -1.
inline typed_fanouts typed_fanouts_of(const typed_schema& schema,
                                      const std::vector<std::pair<relation_type, std::vector<int>>>& dict,
                                      const std::vector<int>& fallback = {});

/// The same fanouts for every relation (PyG's plain `num_neighbors` list).
/// @param schema the graph's schema  @param fanouts one per layer (>= -1)  @return the fanouts
/// @throws invalid_argument for an empty list or an entry below -1.
inline typed_fanouts typed_fanouts_of(const typed_schema& schema, const std::vector<int>& fanouts);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/typed_schema.inl>
