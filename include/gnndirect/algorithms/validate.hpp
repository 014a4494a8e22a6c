#pragma once
/// @file validate.hpp
/// @brief validate(csr_view): full structural check of a CSR graph on the host (host-compilable).
///
/// Validation is a separate call so the sampling and gather hot paths stay lean (docs/design.md §5).
/// The same rules run on the GPU in validate.cuh; both report the same exception
/// (corrupt_graph.hpp) and message.

#include <gnndirect/algorithms/corrupt_graph.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/algorithms/validate.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// Checks that `graph` is a valid CSR graph, reading its arrays on the host (all cores for large
/// graphs): sizes non-negative and representable; indptr (and indices when num_edges > 0)
/// non-null; indptr[0] == 0, indptr non-decreasing, indptr[num_nodes] == num_edges; every index
/// in [0, num_nodes); weights (if present) finite and >= 0; edge ids (if present) >= 0.
///
/// @param graph a view whose pointers the CPU can dereference (csr_graph::host_view(), or views
///        of caller host memory); arrays in memory_kind::device are refused.
/// @throws corrupt_graph naming the first failing array (checked in the order indptr, indices,
///         weights, edge_ids) and its first bad position and value; invalid_argument for a view in
///         device memory. Synchronous; touches no CUDA API.
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
void validate(const csr_view<Offset, Index>& graph);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/validate_host.inl>
