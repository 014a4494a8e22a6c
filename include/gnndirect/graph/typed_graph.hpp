#pragma once
/// @file typed_graph.hpp
/// @brief Owners of typed graphs: host_typed_graph (host vectors: what generators and loaders
/// build, and what the host reference and host validation read) and typed_graph (each
/// relation's arrays in its own placement, handing out typed_graph_view) (host-compilable).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/typed_schema.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/graph/coo_to_csr.hpp>
#include <gnndirect/graph/csr_graph.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Largest list length of a host-readable CSC (the max_degree fanout -1 samples up to).
/// @param csc host-readable view  @return the largest indptr[v + 1] - indptr[v], 0 when empty
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
std::int64_t max_degree_of(const csr_view<Offset, Index>& csc)
{
  std::int64_t best = 0;
  for (std::int64_t v = 0; v < csc.num_nodes; ++v) {
    best = std::max<std::int64_t>(best, static_cast<std::int64_t>(csc.indptr[v + 1] - csc.indptr[v]));
  }
  return best;
}

/// A typed graph in host vectors: schema, node counts per type and one host CSC per relation
/// (indexed by dst node, neighbour ids of the src type).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct host_typed_graph {
  typed_schema schema;                               ///< names and endpoint types
  std::vector<std::int64_t> num_nodes;               ///< per node type
  std::vector<host_csr<Offset, Index>> relations;    ///< per relation, schema order

  /// @return view with host addresses (memory_kind::registered: host memory the CPU reads),
  /// max_degree filled in; does not validate
  /// @throws invalid_argument when the counts disagree with the schema or exceed the view's limits.
  typed_graph_view<Offset, Index> view() const
  {
    GNNDIRECT_EXPECTS(static_cast<int>(num_nodes.size()) == schema.num_node_types() &&
                        static_cast<int>(relations.size()) == schema.num_relations(),
                      "host_typed_graph: " + std::to_string(num_nodes.size()) + " node counts and " +
                        std::to_string(relations.size()) + " relations for a schema of " +
                        std::to_string(schema.num_node_types()) + " and " +
                        std::to_string(schema.num_relations()));
    typed_graph_view<Offset, Index> v;
    v.num_node_types = schema.num_node_types();
    v.num_relations = schema.num_relations();
    for (int t = 0; t < v.num_node_types; ++t) { v.num_nodes[t] = num_nodes[static_cast<std::size_t>(t)]; }
    for (int r = 0; r < v.num_relations; ++r) {
      auto& rel = v.relations[r];
      rel.csc = relations[static_cast<std::size_t>(r)].view();
      rel.csc.indptr_kind = memory_kind::registered;
      rel.csc.indices_kind = memory_kind::registered;
      rel.src_type = schema.src_type(r);
      rel.dst_type = schema.dst_type(r);
      rel.max_degree = max_degree_of(rel.csc);
    }
    return v;
  }
};

/// A typed graph whose relations each live in their own placement (csr_graph per relation):
/// e.g. the small relations' lists in HBM and paper-cites-paper's in host memory. Move-only.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
class typed_graph {
 public:
  /// Empty.
  typed_graph() = default;
  /// Copies `host` into device-visible storage, relation r in placements[r] (one entry: every
  /// relation there). Synchronous. Does not validate (validate_typed on `host.view()` first).
  /// @param host the graph in host vectors  @param placements per relation, or one for all
  /// @param mr, host_mr resources of device and pinned arrays (outliving the graph)
  /// @throws invalid_argument for a placement list of another length; allocation_error;
  /// cuda_error.
  typed_graph(const host_typed_graph<Offset, Index>& host, const std::vector<csr_placement>& placements,
              resource_ref mr = {}, host_resource_ref host_mr = {})
    : schema_(host.schema)
  {
    view_ = host.view();  // counts, endpoint types and max degrees
    GNNDIRECT_EXPECTS(placements.size() == 1 || placements.size() == host.relations.size(),
                      "typed_graph: " + std::to_string(placements.size()) + " placements for " +
                        std::to_string(host.relations.size()) + " relations (give one, or one each)");
    for (std::size_t r = 0; r < host.relations.size(); ++r) {
      csr_placement const p = placements.size() == 1 ? placements[0] : placements[r];
      relations_.push_back(csr_graph<Offset, Index>::adopt(host.relations[r].view(), p, mr, host_mr));
      view_.relations[r].csc = relations_.back().view();
    }
  }

  /// @return device-visible view, valid while the graph lives
  const typed_graph_view<Offset, Index>& view() const noexcept { return view_; }
  /// @return names and endpoint types
  const typed_schema& schema() const noexcept { return schema_; }
  /// @param r relation index  @return its storage
  const csr_graph<Offset, Index>& relation(int r) const { return relations_.at(static_cast<std::size_t>(r)); }

 private:
  typed_schema schema_;
  std::vector<csr_graph<Offset, Index>> relations_;
  typed_graph_view<Offset, Index> view_{};
};

GNNDIRECT_NAMESPACE_END
