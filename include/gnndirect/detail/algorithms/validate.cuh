#pragma once
/// @file validate.cuh
/// @brief Internals of algorithms/validate.cuh: the pointer checks of a graph's arrays and the
/// GPU search for the first violation, one kernel per array (not part of the API).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/detail/algorithms/csr_rules.hpp>
#include <gnndirect/detail/algorithms/validate.hpp>
#include <gnndirect/detail/algorithms/validate_kernels.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Runs every rule of a shape-checked view on `stream` (one grid-stride kernel per array, each
/// lowering its own position flag) and returns the first violation in array order; the records
/// come from `mr` on `stream`. Synchronises the stream. @throws cuda_error, allocation_error.
template <class Offset, class Index>
std::optional<csr_violation> find_csr_violation_device(cudaStream_t stream,
                                                       const csr_view<Offset, Index>& graph,
                                                       resource_ref mr)
{
  constexpr int arrays = 4;  // one record per csr_array, in checking order
  buffer<error_record> records(arrays, stream, mr);
  stream_sync_guard const guard(stream);
  auto const flag = [&](csr_array array) {
    return error_flag_ref{records.data() + static_cast<int>(array)};
  };
  for (int a = 0; a < arrays; ++a) { flag(static_cast<csr_array>(a)).reset_async(stream); }
  std::int64_t const n = graph.num_nodes;
  std::int64_t const m = graph.num_edges;
  if (graph.indptr != nullptr) {
    launch_first_violation(stream, indptr_rule<Offset>{graph.indptr, n, m}, n + 1,
                           flag(csr_array::indptr));
  }
  launch_first_violation(stream, id_range_rule<Index>{graph.indices, n}, m,
                         flag(csr_array::indices));
  if (graph.weights != nullptr) {
    launch_first_violation(stream, weight_rule{graph.weights}, m, flag(csr_array::weights));
  }
  if (graph.edge_ids != nullptr) {
    id_range_rule<Offset> const rule{graph.edge_ids, std::numeric_limits<std::int64_t>::max()};
    launch_first_violation(stream, rule, m, flag(csr_array::edge_ids));
  }
  for (int a = 0; a < arrays; ++a) {
    error_record const record = flag(static_cast<csr_array>(a)).read(stream);
    if (record.position != no_bad_position) {
      return csr_violation{static_cast<csr_array>(a), static_cast<std::int64_t>(record.position)};
    }
  }
  return std::nullopt;
}

/// Where the graph's arrays live and how they are aligned (after the shape check, so that a null
/// array is still reported as corrupt_graph). @throws invalid_argument naming the array.
template <class Offset, class Index>
void check_csr_pointers(const csr_view<Offset, Index>& graph)
{
  auto const nodes = static_cast<std::size_t>(graph.num_nodes);
  auto const edges = static_cast<std::size_t>(graph.num_edges);
  // Null arrays of an empty graph passed the shape check; only present arrays are located.
  if (graph.indptr != nullptr) {
    check_device_accessible(graph.indptr, (nodes + 1) * sizeof(Offset), alignof(Offset), "indptr");
  }
  if (graph.indices != nullptr) {
    check_device_accessible(graph.indices, edges * sizeof(Index), alignof(Index), "indices");
  }
  if (graph.weights != nullptr) { check_device_accessible(graph.weights, edges * sizeof(float), alignof(float), "weights"); }
  if (graph.edge_ids != nullptr) { check_device_accessible(graph.edge_ids, edges * sizeof(Offset), alignof(Offset), "edge_ids"); }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
