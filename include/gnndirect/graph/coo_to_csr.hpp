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
  csr_view<Offset, Index> view() const noexcept;
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
                Offset* edge_ids);

/// Converts a host-readable COO into a host_csr (weights kept when coo has them).
/// @tparam Offset offset (and edge id) type  @tparam Index node id type
/// @param coo host-readable edge list
/// @param options options.edge_ids keeps input positions as edge ids
/// @return the graph  @throws as coo_to_csr above. Synchronous.
template <class Offset, class Index>
host_csr<Offset, Index> coo_to_csr(const coo_view<Index>& coo, csr_build_options options = {});

}  // namespace host
GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/graph/coo_to_csr_host.inl>
