#pragma once
/// @file typed_graph_view.hpp
/// @brief Heterogeneous (typed) graphs: node types with their own id spaces and relations
/// (src type, name, dst type), each stored as its own CSC (a csr_view indexed by dst node, whose
/// neighbour ids are src nodes), in a trivially copyable view (host-compilable). Names live in
/// typed_schema (core/typed_schema.hpp); the owner is graph/typed_graph.hpp's typed_graph.
///
/// Ids are local to their node type: node type t's ids are [0, num_nodes[t]). Relation r's
/// `csc` has csc.num_nodes == num_nodes[dst_type] rows, and csc.indices holds src-type ids in
/// [0, num_nodes[src_type]) (validate_typed, algorithms/validate_typed.hpp, checks both). Each
/// relation's arrays keep their own placement (csr_view's indptr_kind / indices_kind), so one
/// relation's lists may sit in host memory while another's sit in HBM.

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/version.hpp>

#include <cstdint>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// Most node types a typed_graph_view holds (the view stores fixed-size arrays so that it stays
/// trivially copyable and self-contained; IGBH has 6, ogbn-mag 4).
inline constexpr int max_node_types = 16;
/// Most relations a typed_graph_view holds (IGBH with reverses: 12; ogbn-mag: 7).
inline constexpr int max_relations = 64;

/// One relation (src type, name, dst type) of a typed graph: its CSC and its endpoint types.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct relation_view {
  /// Indexed by dst node: dst node v's src neighbours are csc.indices[csc.indptr[v] ..
  /// csc.indptr[v + 1]), as the homogeneous sampler reads a csr_view. csc.num_nodes is the dst
  /// type's node count; neighbour ids are src-type ids.
  csr_view<Offset, Index> csc;
  int src_type{-1};              ///< node type of the neighbours (csc.indices)
  int dst_type{-1};              ///< node type of the rows (the nodes sampled from)
  /// Largest in-degree (rows' list length), what fanout -1 ("all neighbours") samples up to;
  /// -1 when unknown (fanout -1 is then refused for this relation). typed_graph fills it.
  std::int64_t max_degree{-1};
};

/// A typed graph: node counts per type and relations (seeds side of sampling: the dst types).
/// Trivially copyable; its relations' arrays are device-visible or host-readable as their
/// csr_views say.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct typed_graph_view {
  int num_node_types{0};                        ///< node types in use, <= max_node_types
  int num_relations{0};                         ///< relations in use, <= max_relations
  std::int64_t num_nodes[max_node_types]{};     ///< nodes of each type (ids [0, num_nodes[t]))
  relation_view<Offset, Index> relations[max_relations]{};  ///< in schema order

  /// @param r a relation index  @return relation r
  GNNDIRECT_HOST_DEVICE const relation_view<Offset, Index>& relation(int r) const noexcept
  {
    return relations[r];
  }
  /// @param t a node type  @return number of nodes of type t
  GNNDIRECT_HOST_DEVICE std::int64_t node_count(int t) const noexcept { return num_nodes[t]; }
};

static_assert(std::is_trivially_copyable_v<typed_graph_view<std::int64_t, std::int64_t>>);
static_assert(std::is_trivially_copyable_v<typed_graph_view<std::int32_t, std::int32_t>>);

GNNDIRECT_NAMESPACE_END
