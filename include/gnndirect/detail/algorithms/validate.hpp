#pragma once
/// @file validate.hpp
/// @brief Internals of algorithms/validate.hpp: the shape check, the wording of a violation (one
/// place, so the host and GPU validators throw the same message) and the parallel host search for
/// the first violation (not part of the API; host-compilable).

#include <gnndirect/algorithms/corrupt_graph.hpp>
#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/detail/algorithms/csr_rules.hpp>
#include <gnndirect/util/parallel.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// The first rule violation found: which array and where.
struct csr_violation {
  csr_array array;
  std::int64_t position;
};

/// Sentinel meaning "no violation" in position searches.
inline constexpr std::int64_t no_violation = -1;

/// Throws corrupt_graph for a whole-array problem (position -1).
[[noreturn]] inline void throw_shape_error(csr_array array, const std::string& problem)
{
  throw corrupt_graph(__FILE__, __LINE__, array, -1, problem);
}

/// Checks sizes and pointers of a view (no array is read): sizes non-negative and representable
/// in the view's types, required arrays present. An empty view (0 nodes, 0 edges) may have a null
/// indptr. Shared by the host and GPU validators. @throws corrupt_graph with position -1.
template <class Offset, class Index>
void check_csr_shape(const csr_view<Offset, Index>& graph)
{
  std::int64_t const n = graph.num_nodes;
  std::int64_t const m = graph.num_edges;
  if (n < 0) { throw_shape_error(csr_array::indptr, "num_nodes = " + std::to_string(n) + " < 0"); }
  if (m < 0) { throw_shape_error(csr_array::indices, "num_edges = " + std::to_string(m) + " < 0"); }
  // Node ids 0 .. n-1 must fit Index; the edge count must fit Offset (indptr[n] == m).
  if (n > 0 && n - 1 > static_cast<std::int64_t>(std::numeric_limits<Index>::max())) {
    throw_shape_error(csr_array::indices, "num_nodes = " + std::to_string(n) +
                                            " exceeds the range of the index type");
  }
  if (m > static_cast<std::int64_t>(std::numeric_limits<Offset>::max())) {
    throw_shape_error(csr_array::indptr, "num_edges = " + std::to_string(m) +
                                           " exceeds the range of the offset type");
  }
  if (graph.indptr == nullptr && (n > 0 || m > 0)) {
    throw_shape_error(csr_array::indptr, "indptr is null but num_nodes = " + std::to_string(n));
  }
  if (graph.indices == nullptr && m > 0) {
    throw_shape_error(csr_array::indices, "indices is null but num_edges = " + std::to_string(m));
  }
}

/// Text of a float as messages show it (shortest form that round-trips; nan/inf spelled out).
inline std::string format_float(float value)
{
  if (std::isnan(value)) { return "nan"; }
  if (std::isinf(value)) { return value > 0 ? "inf" : "-inf"; }
  std::ostringstream text;
  text.precision(std::numeric_limits<float>::max_digits10);
  text << value;
  return text.str();
}

/// "name[position] = value".
inline std::string element_text(csr_array array, std::int64_t position, const std::string& value)
{
  return std::string(to_string(array)) + "[" + std::to_string(position) + "] = " + value;
}

/// Describes the indptr rule broken at `position` (the order matches indptr_rule).
template <class Offset, class Index, class Fetch>
std::string describe_indptr_violation(const csr_view<Offset, Index>& graph, std::int64_t position,
                                      Fetch&& fetch)
{
  std::int64_t const value = fetch(graph.indptr, position);
  std::string const here = element_text(csr_array::indptr, position, std::to_string(value));
  if (position == 0 && value != 0) { return here + ", expected 0"; }
  if (position > 0) {
    std::int64_t const previous = fetch(graph.indptr, position - 1);
    if (value < previous) {
      return here + " < " + element_text(csr_array::indptr, position - 1, std::to_string(previous)) +
             " (indptr must be non-decreasing)";
    }
  }
  return here + ", expected num_edges = " + std::to_string(graph.num_edges);
}

/// Throws the corrupt_graph describing `violation`. `fetch(pointer, i)` reads element i of one of
/// the view's arrays (a host read, or a copy from the device), so the host and GPU validators
/// produce the same message. Throws from this one place so that what() matches too.
template <class Offset, class Index, class Fetch>
[[noreturn]] void throw_csr_violation(const csr_view<Offset, Index>& graph,
                                      csr_violation violation, Fetch&& fetch)
{
  std::int64_t const at = violation.position;
  std::string problem;
  switch (violation.array) {
    case csr_array::indptr: problem = describe_indptr_violation(graph, at, fetch); break;
    case csr_array::indices:
      problem = element_text(csr_array::indices, at,
                             std::to_string(static_cast<std::int64_t>(fetch(graph.indices, at)))) +
                " is out of range [0, " + std::to_string(graph.num_nodes) + ")";
      break;
    case csr_array::weights:
      problem = element_text(csr_array::weights, at, format_float(fetch(graph.weights, at))) +
                " is not a finite non-negative number";
      break;
    case csr_array::edge_ids:
      problem = element_text(csr_array::edge_ids, at,
                             std::to_string(static_cast<std::int64_t>(fetch(graph.edge_ids, at)))) +
                " is negative";
      break;
  }
  throw corrupt_graph(__FILE__, __LINE__, violation.array, at, problem);
}

/// Smallest i in [0, n) with rule(i), or no_violation. Slices run in parallel for large n; each
/// worker stops at its first hit, and because slices are contiguous and ascending the first
/// worker (in slice order) that found one holds the global minimum.
template <class Rule>
std::int64_t host_first_violation(std::int64_t n, const Rule& rule)
{
  constexpr std::int64_t parallel_threshold = std::int64_t{1} << 18;
  int const threads = n < parallel_threshold ? 1 : host::default_thread_count();
  std::vector<std::int64_t> firsts(static_cast<std::size_t>(threads), no_violation);
  host::parallel_for_ranges(
    n,
    [&](std::int64_t begin, std::int64_t end, int worker) {
      for (std::int64_t i = begin; i < end; ++i) {
        if (rule(i)) {
          firsts[static_cast<std::size_t>(worker)] = i;
          return;
        }
      }
    },
    threads);
  for (std::int64_t const first : firsts) {
    if (first != no_violation) { return first; }
  }
  return no_violation;
}

/// First violation of a shape-checked view whose arrays are host-readable, in the order
/// indptr, indices, weights, edge_ids; std::nullopt when the graph is valid.
template <class Offset, class Index>
std::optional<csr_violation> find_csr_violation_host(const csr_view<Offset, Index>& graph)
{
  std::int64_t const n = graph.num_nodes;
  std::int64_t const m = graph.num_edges;
  auto found = [](csr_array array, std::int64_t position) -> std::optional<csr_violation> {
    if (position == no_violation) { return std::nullopt; }
    return csr_violation{array, position};
  };
  if (graph.indptr != nullptr) {
    if (auto v = found(csr_array::indptr,
                       host_first_violation(n + 1, indptr_rule<Offset>{graph.indptr, n, m}))) {
      return v;
    }
  }
  if (auto v = found(csr_array::indices,
                     host_first_violation(m, id_range_rule<Index>{graph.indices, n}))) {
    return v;
  }
  if (graph.weights != nullptr) {
    if (auto v = found(csr_array::weights, host_first_violation(m, weight_rule{graph.weights}))) {
      return v;
    }
  }
  if (graph.edge_ids != nullptr) {
    id_range_rule<Offset> const rule{graph.edge_ids, std::numeric_limits<std::int64_t>::max()};
    if (auto v = found(csr_array::edge_ids, host_first_violation(m, rule))) { return v; }
  }
  return std::nullopt;
}

/// Refuses host validation of arrays the CPU cannot read.
template <class Offset, class Index>
void check_host_readable(const csr_view<Offset, Index>& graph)
{
  bool const has_edges_data = graph.num_edges > 0;
  GNNDIRECT_EXPECTS(graph.indptr_kind != memory_kind::device || graph.indptr == nullptr,
                    "validate: indptr is in device memory; validate it on the GPU with "
                    "validate(stream, graph) from <gnndirect/algorithms/validate.cuh>");
  GNNDIRECT_EXPECTS(graph.indices_kind != memory_kind::device || !has_edges_data,
                    "validate: indices are in device memory; validate them on the GPU with "
                    "validate(stream, graph) from <gnndirect/algorithms/validate.cuh>");
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
