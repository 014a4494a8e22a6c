#pragma once
/// @file csr_graph.hpp
/// @brief csr_graph<Offset, Index>: owning CSR graph whose arrays each live in a chosen placement,
/// handing out csr_view (host-compilable).

#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/graph/csr_graph.hpp>
#include <gnndirect/graph/coo_to_csr.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/coo.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Where the arrays of a csr_graph live. Placing them independently pays: e.g. indptr (small,
/// read once per node) in HBM and the edge arrays (large) in managed_host memory (docs/design.md §3).
struct csr_placement {
  memory_kind indptr{memory_kind::device};  ///< placement of indptr
  memory_kind edges{memory_kind::device};   ///< placement of indices, weights and edge ids

  /// Every array in one placement.  @param kind the placement  @return the placement
  static constexpr csr_placement all(memory_kind kind) noexcept { return {kind, kind}; }
};

/// Owning CSR graph: indptr, indices, optional weights and optional edge ids in buffers, indptr in
/// `placement.indptr` and the edge arrays in `placement.edges` (not `registered`: map caller
/// memory with views instead). Move-only; views stay valid while the graph lives.
///
/// Ways to get one: allocate and fill (constructor), convert a host COO on the host (from_coo),
/// copy existing host CSR arrays (adopt), convert on the GPU (coo_to_csr in coo_to_csr.cuh),
/// generate (generate.hpp / generate.cuh), load .npy files (io/npy.hpp). None validates the
/// arrays it is given: call validate() (validate.hpp / validate.cuh) on untrusted input.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
class csr_graph {
 public:
  using view_type = csr_view<Offset, Index>;  ///< the view type view() returns

  /// Empty graph (no storage).
  csr_graph() noexcept = default;

  /// Allocates uninitialised arrays for num_nodes nodes and num_edges edges (indptr always has
  /// num_nodes + 1 entries). Synchronous. Device arrays come from `mr`, pinned ones from
  /// `host_mr` (defaults: the device's default pool, cudaHostAlloc); the graph returns them
  /// there, so both resources must outlive it.
  /// @param num_nodes, num_edges sizes  @param placement where the arrays go
  /// @param with_weights, with_edge_ids whether to allocate the optional arrays
  /// @param mr, host_mr resources
  /// @throws invalid_argument for negative sizes or sizes the types cannot hold;
  ///         allocation_error; no_device_error without a GPU.
  csr_graph(std::int64_t num_nodes, std::int64_t num_edges, csr_placement placement,
            bool with_weights = false, bool with_edge_ids = false, resource_ref mr = {},
            host_resource_ref host_mr = {});

  /// Builds the graph from a host-readable COO on the host (all cores; stable: a node's edges
  /// keep input order; see host::coo_to_csr), writing host-resident arrays in place and staging
  /// device arrays once. Weights are kept when the COO has them; options.edge_ids stores input
  /// positions. Synchronous. Arrays allocated as the constructor does (from `mr` / `host_mr`).
  /// @param coo the edges  @param placement where the arrays go  @param options edge ids or not
  /// @param mr, host_mr resources  @return the graph
  /// @throws invalid_argument / index_out_of_range for bad input (first bad position);
  ///         allocation_error; cuda_error.
  static csr_graph from_coo(const coo_view<Index>& coo, csr_placement placement,
                            csr_build_options options = {}, resource_ref mr = {},
                            host_resource_ref host_mr = {});

  /// Copies existing CSR arrays from host memory (e.g. a framework's CPU tensors or a loaded
  /// file) into `placement`; optional arrays are copied when non-null. Does not validate.
  /// Synchronous. Arrays allocated as the constructor does (from `mr` / `host_mr`).
  /// @param host_arrays a view with host-readable pointers  @param placement where the arrays go
  /// @param mr, host_mr resources  @return the graph
  /// @throws invalid_argument for negative sizes or null required arrays; allocation_error;
  ///         cuda_error.
  static csr_graph adopt(const view_type& host_arrays, csr_placement placement,
                         resource_ref mr = {}, host_resource_ref host_mr = {});

  /// @return view with device-visible addresses, for kernels and the bulk API
  view_type view() const noexcept;

  /// View with host addresses, for the host reference and host validate().  @return the view
  /// @throws invalid_argument when an array lives in device memory.
  view_type host_view() const;

  /// @return number of nodes
  std::int64_t num_nodes() const noexcept { return num_nodes_; }
  /// @return number of edges
  std::int64_t num_edges() const noexcept { return num_edges_; }
  /// @return placement of the arrays
  csr_placement placement() const noexcept { return placement_; }
  /// @return true when the graph stores one weight per edge
  bool has_weights() const noexcept { return has_weights_; }
  /// @return true when the graph stores one edge id per edge
  bool has_edge_ids() const noexcept { return has_edge_ids_; }

  /// The owning arrays, for code that fills them (e.g. GPU construction). data() of a buffer is
  /// writable; the graph's views see what is written.  @return the offsets
  const buffer<Offset>& indptr() const noexcept { return indptr_; }
  /// @return neighbour ids (see indptr())
  const buffer<Index>& indices() const noexcept { return indices_; }
  /// @return weights; empty unless has_weights()
  const buffer<float>& weights() const noexcept { return weights_; }
  /// @return edge ids; empty unless has_edge_ids()
  const buffer<Offset>& edge_ids() const noexcept { return edge_ids_; }

 private:
  /// @return n  @throws invalid_argument when n < 0 or node ids would not fit Index.
  static std::int64_t checked_nodes(std::int64_t n);
  /// @return m  @throws invalid_argument when m < 0 or m does not fit Offset.
  static std::int64_t checked_edges(std::int64_t m);
  /// A view of the given arrays with this graph's shape (weights and edge ids only when held).
  view_type make_view(const Offset* indptr, const Index* indices, const float* weights,
                      const Offset* edge_ids) const noexcept;

  /// The shape and the placement.
  std::int64_t num_nodes_{0};
  std::int64_t num_edges_{0};
  csr_placement placement_{};
  /// The arrays (weights and edge ids empty unless has_weights_ / has_edge_ids_).
  buffer<Offset> indptr_;
  buffer<Index> indices_;
  buffer<float> weights_;
  buffer<Offset> edge_ids_;
  bool has_weights_{false};
  bool has_edge_ids_{false};
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/graph/csr_graph.inl>
