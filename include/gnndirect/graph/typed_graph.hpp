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

/// Largest list length of a host-readable CSC (the max_degree fanout -1 samples up to). O(num
/// nodes), one thread; host_typed_graph::view() calls it once per relation.
/// @param csc host-readable view  @return the largest indptr[v + 1] - indptr[v], 0 when empty
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
std::int64_t max_degree_of(const csr_view<Offset, Index>& csc);

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
  typed_graph_view<Offset, Index> view() const;
};

/// A typed graph whose relations each live in their own placement (csr_graph per relation):
/// e.g. the small relations' lists in HBM and paper-cites-paper's in host memory. Move-only.
/// @code
///   host_typed_graph<std::int64_t, std::int32_t> host = ...;  // relations in schema order
///   validate_typed(host.view());                              // the constructor does not
///   typed_graph<std::int64_t, std::int32_t> g(host, {csr_placement::all(memory_kind::device),
///                                                    csr_placement::all(memory_kind::pinned)});
///   sample_typed_blocks_async(stream, g.view(), ...);         // the typed samplers take the view
/// @endcode
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
              resource_ref mr = {}, host_resource_ref host_mr = {});

  /// @return device-visible view, valid while the graph lives (moving the graph keeps its
  /// arrays where they are, so a view taken before the move stays valid)
  const typed_graph_view<Offset, Index>& view() const noexcept { return view_; }
  /// @return names and endpoint types
  const typed_schema& schema() const noexcept { return schema_; }
  /// @param r relation index  @return its storage
  /// @throws std::out_of_range for r outside [0, number of relations)
  const csr_graph<Offset, Index>& relation(int r) const { return relations_.at(static_cast<std::size_t>(r)); }

 private:
  typed_schema schema_;                              ///< copied from the host graph
  std::vector<csr_graph<Offset, Index>> relations_;  ///< per relation: its arrays, in its placement
  typed_graph_view<Offset, Index> view_{};           ///< views of relations_, built once
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/graph/typed_graph.inl>
