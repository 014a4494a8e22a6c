#pragma once
/// @file coo_to_csr.cuh
/// @brief COO -> CSR conversion on the GPU (nvcc); output identical to host::coo_to_csr.
///
/// Method: a stable radix sort of (src, input position) pairs restricted to the bits node ids
/// use, a binary search per node for indptr, and one gather of dst (and weights) in sorted
/// order, written straight into the csr_graph's arrays in their placement. Stability makes a
/// node's edges keep input order, exactly as on the host.

#include <gnndirect/core/device.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/graph/coo_to_csr.cuh>
#include <gnndirect/graph/coo_to_csr.hpp>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/owners/coo.hpp>

#include <cuda_runtime_api.h>

GNNDIRECT_NAMESPACE_BEGIN

/// Converts a COO into a csr_graph on the GPU, writing the result straight into `placement`.
/// Output (indptr, indices, weights, edge ids) is identical to host::coo_to_csr / from_coo:
/// stable, a node's edges in input order; weights kept when the COO has them.
///
/// @param stream  stream for all the work (ordered after the caller's prior work on it)
/// @param coo     device-visible edge list in any placement (host-resident inputs are staged to
///                the device once)
/// @param placement where the CSR arrays go
/// @param options options.edge_ids stores input positions as edge ids
/// @param mr      resource of the graph's device arrays (synchronous owners, see csr_graph) and of
///                every temporary (stream-ordered on `stream`); default: the device's default pool
/// @param host_mr resource of the graph's pinned arrays (default: cudaHostAlloc)
/// @throws invalid_argument for bad sizes or null arrays; index_out_of_range naming the first bad
///         src (then dst) position and value, as the host conversion; allocation_error (device
///         temporaries of about 2 x (key + offset) bytes per edge); cuda_error. Synchronises
///         `stream`; allocates, so it is for graph construction, not for a hot path.
/// @tparam Offset CSR offset (and edge id) type  @tparam Index node id type, as the COO's
/// @return the graph, owning its arrays in `placement`
template <class Offset, class Index>
csr_graph<Offset, Index> coo_to_csr(cudaStream_t stream, const coo_view<Index>& coo,
                                    csr_placement placement, csr_build_options options = {},
                                    resource_ref mr = {}, host_resource_ref host_mr = {});

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/graph/coo_to_csr.inl>
