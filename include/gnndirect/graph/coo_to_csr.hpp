#pragma once
/// @file coo_to_csr.hpp
/// @brief COO -> CSR conversion on the host (host-compilable): the reference the GPU conversion
/// in coo_to_csr.cuh matches bit for bit, and the engine of csr_graph::from_coo.
///
/// Output order is stable: the edges of a node keep their input order, so node v's neighbours
/// are dst[e] for the edges e with src[e] == v, by increasing e. Optional edge ids record e.

#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/graph/coo_to_csr.hpp>
#include <gnndirect/owners/coo.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Options of COO -> CSR conversion.
struct csr_build_options {
  /// Store each edge's input position as its edge id (csr_view::edge_ids), e.g. to map sampled
  /// edges back to edge features held in input order.
  bool edge_ids{false};
};

/// CSR graph in pageable host memory (std::vector): the host conversion's result, for the host
/// reference and tests. Its view is host-readable only (recorded as memory_kind::registered).
/// @tparam Offset offset (and edge id) type  @tparam Index node id type
template <class Offset, class Index>
struct host_csr {
  std::vector<Offset> indptr;    ///< num_nodes + 1 offsets
  std::vector<Index> indices;    ///< neighbour ids
  std::vector<float> weights;    ///< empty, or one weight per edge
  std::vector<Offset> edge_ids;  ///< empty, or one edge id per edge
  std::int64_t num_nodes{0};     ///< number of nodes

  /// @return number of edges
  std::int64_t num_edges() const noexcept { return static_cast<std::int64_t>(indices.size()); }
  /// @return host-readable view (optional arrays null when empty)
  csr_view<Offset, Index> view() const noexcept
  {
    csr_view<Offset, Index> v;
    v.indptr = indptr.empty() ? nullptr : indptr.data();
    v.indices = indices.data();
    v.weights = weights.empty() ? nullptr : weights.data();
    v.edge_ids = edge_ids.empty() ? nullptr : edge_ids.data();
    v.num_nodes = num_nodes;
    v.num_edges = num_edges();
    v.indptr_kind = memory_kind::registered;
    v.indices_kind = memory_kind::registered;
    return v;
  }
};

namespace host {

// Internals are named ::gnndirect::detail:: in full: inside namespace host a bare `detail::`
// would find gnndirect::host::detail once reference/gather_reference.hpp or reference/sample_reference.hpp
// is included first, and then fail to compile (include-order dependence).

/// Converts a host-readable COO into CSR arrays the caller provides (host-writable), with all
/// cores for large inputs. Stable (see file comment); the result does not depend on the thread
/// count.
///
/// @param coo     host-readable edge list; ids must lie in [0, coo.num_nodes)
/// @param indptr  out: num_nodes + 1 offsets
/// @param indices out: num_edges neighbour ids
/// @param weights out (optional, may be null): num_edges weights, written when coo has weights
/// @param edge_ids out (optional, may be null): num_edges input positions
/// @throws invalid_argument for bad sizes or null arrays; index_out_of_range naming the first bad
///         src (then dst) position and value. Synchronous; no CUDA call.
/// @tparam Offset offset (and edge id) type  @tparam Index node id type
template <class Offset, class Index>
void coo_to_csr(const coo_view<Index>& coo, Offset* indptr, Index* indices, float* weights,
                Offset* edge_ids)
{
  ::gnndirect::detail::check_coo_shape<Offset>(coo);
  GNNDIRECT_EXPECTS(indptr != nullptr, "coo_to_csr: null indptr output");
  GNNDIRECT_EXPECTS(coo.num_edges == 0 || indices != nullptr, "coo_to_csr: null indices output");
  ::gnndirect::detail::check_coo_ids_host(coo);
  int const threads = ::gnndirect::detail::host_threads_for(std::max(coo.num_edges, coo.num_nodes));
  ::gnndirect::detail::count_out_degrees(coo, indptr, threads);
  ::gnndirect::detail::parallel_inclusive_scan(indptr + 1, coo.num_nodes, threads);
  // Edge ids are exactly the sorted positions: build them in place when the caller wants them.
  std::vector<Offset> scratch;
  Offset* positions = edge_ids;
  if (positions == nullptr) {
    scratch.resize(static_cast<std::size_t>(coo.num_edges));
    positions = scratch.data();
  }
  ::gnndirect::detail::place_edge_positions(coo, indptr, positions, threads);
  ::gnndirect::detail::gather_edges(coo, positions, indices, weights, threads);
}

/// Converts a host-readable COO into a host_csr (weights kept when coo has them).
/// @tparam Offset offset (and edge id) type  @tparam Index node id type
/// @param coo host-readable edge list
/// @param options options.edge_ids keeps input positions as edge ids
/// @return the graph  @throws as coo_to_csr above. Synchronous.
template <class Offset, class Index>
host_csr<Offset, Index> coo_to_csr(const coo_view<Index>& coo, csr_build_options options = {})
{
  ::gnndirect::detail::check_coo_shape<Offset>(coo);
  auto const m = static_cast<std::size_t>(coo.num_edges);
  host_csr<Offset, Index> csr;
  csr.num_nodes = coo.num_nodes;
  csr.indptr.resize(static_cast<std::size_t>(coo.num_nodes) + 1);
  csr.indices.resize(m);
  if (coo.weights != nullptr) { csr.weights.resize(m); }
  if (options.edge_ids) { csr.edge_ids.resize(m); }
  coo_to_csr(coo, csr.indptr.data(), csr.indices.data(),
             csr.weights.empty() ? nullptr : csr.weights.data(),
             options.edge_ids ? csr.edge_ids.data() : nullptr);
  return csr;
}

}  // namespace host
GNNDIRECT_NAMESPACE_END
