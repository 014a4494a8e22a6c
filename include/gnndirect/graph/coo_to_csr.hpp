#pragma once
/// @file coo_to_csr.hpp
/// @brief COO -> CSR conversion on the host (host-compilable): the reference the GPU conversion
/// in coo_to_csr.cuh matches bit for bit, and the engine of csr_graph::from_coo.
///
/// Output order is stable: the edges of a node keep their input order, so node v's neighbours
/// are dst[e] for the edges e with src[e] == v, by increasing e. Optional edge ids record e.

#include <gnndirect/algorithms/validate.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/algorithms/csr_rules.hpp>
#include <gnndirect/owners/coo.hpp>
#include <gnndirect/util/parallel.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
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

namespace detail {

/// Checks sizes and pointers of a COO to be converted to CSR<Offset, Index> (no id is read).
/// Shared by the host and GPU conversions. @throws invalid_argument.
template <class Offset, class Index>
void check_coo_shape(const coo_view<Index>& coo)
{
  GNNDIRECT_EXPECTS(coo.num_nodes >= 0 && coo.num_edges >= 0,
                    "coo_to_csr: negative num_nodes (" + std::to_string(coo.num_nodes) +
                      ") or num_edges (" + std::to_string(coo.num_edges) + ")");
  GNNDIRECT_EXPECTS(coo.num_nodes == 0 ||
                      coo.num_nodes - 1 <= static_cast<std::int64_t>(std::numeric_limits<Index>::max()),
                    "coo_to_csr: num_nodes exceeds the index type");
  GNNDIRECT_EXPECTS(coo.num_edges <= static_cast<std::int64_t>(std::numeric_limits<Offset>::max()),
                    "coo_to_csr: num_edges " + std::to_string(coo.num_edges) +
                      " exceeds the offset type; use int64_t offsets");
  GNNDIRECT_EXPECTS(coo.num_edges == 0 || (coo.src != nullptr && coo.dst != nullptr),
                    "coo_to_csr: null src or dst with num_edges = " + std::to_string(coo.num_edges));
}

/// Throws index_out_of_range for the first bad id of COO array `name` ("src" or "dst").
[[noreturn]] inline void throw_coo_id_error(const char* name, std::int64_t position,
                                            std::int64_t value, std::int64_t num_nodes)
{
  throw index_out_of_range(__FILE__, __LINE__, std::string("coo ") + name, position, value,
                           num_nodes);
}

/// Checks every src then dst id of a host-readable COO. @throws index_out_of_range (first bad).
template <class Index>
void check_coo_ids_host(const coo_view<Index>& coo)
{
  const Index* const arrays[2] = {coo.src, coo.dst};
  const char* const names[2] = {"src", "dst"};
  for (int a = 0; a < 2; ++a) {
    std::int64_t const at =
      host_first_violation(coo.num_edges, id_range_rule<Index>{arrays[a], coo.num_nodes});
    if (at != no_violation) { throw_coo_id_error(names[a], at, arrays[a][at], coo.num_nodes); }
  }
}

/// Below this many items the host conversion runs on one thread (spawning costs more).
inline constexpr std::int64_t host_parallel_threshold = std::int64_t{1} << 16;

/// Threads worth using for n items.
inline int host_threads_for(std::int64_t n) noexcept
{
  return n < host_parallel_threshold ? 1 : host::default_thread_count();
}

/// In-place inclusive prefix sum with `threads` workers (two passes over contiguous slices).
template <class T>
void parallel_inclusive_scan(T* data, std::int64_t n, int threads)
{
  if (threads <= 1 || n < host_parallel_threshold) {
    std::partial_sum(data, data + n, data);
    return;
  }
  std::vector<T> carry(static_cast<std::size_t>(threads) + 1, T{0});
  host::parallel_for_ranges(
    n,
    [&](std::int64_t begin, std::int64_t end, int worker) {
      carry[static_cast<std::size_t>(worker) + 1] = std::accumulate(data + begin, data + end, T{0});
    },
    threads);
  std::partial_sum(carry.begin(), carry.end(), carry.begin());
  // Same n and thread count: parallel_for_ranges cuts the same slices as in the first pass.
  host::parallel_for_ranges(
    n,
    [&](std::int64_t begin, std::int64_t end, int worker) {
      T sum = carry[static_cast<std::size_t>(worker)];
      for (std::int64_t i = begin; i < end; ++i) { data[i] = sum += data[i]; }
    },
    threads);
}

/// indptr[0..n] = 0, then indptr[v + 1] = number of edges leaving v.
template <class Offset, class Index>
void count_out_degrees(const coo_view<Index>& coo, Offset* indptr, int threads)
{
  host::parallel_for_ranges(
    coo.num_nodes + 1,
    [&](std::int64_t begin, std::int64_t end, int) { std::fill(indptr + begin, indptr + end, Offset{0}); },
    threads);
  host::parallel_for_ranges(
    coo.num_edges,
    [&](std::int64_t begin, std::int64_t end, int) {
      for (std::int64_t e = begin; e < end; ++e) {
        __atomic_fetch_add(&indptr[coo.src[e] + 1], Offset{1}, __ATOMIC_RELAXED);
      }
    },
    threads);
}

/// positions[indptr[v] ..] = the input positions of v's edges in increasing order. Threads claim
/// slots with atomics (arbitrary order), then each node's segment is sorted, which makes the
/// result stable and independent of the thread count.
template <class Offset, class Index>
void place_edge_positions(const coo_view<Index>& coo, const Offset* indptr, Offset* positions,
                          int threads)
{
  std::vector<Offset> cursor(indptr, indptr + coo.num_nodes);
  host::parallel_for_ranges(
    coo.num_edges,
    [&](std::int64_t begin, std::int64_t end, int) {
      for (std::int64_t e = begin; e < end; ++e) {
        Offset const slot = __atomic_fetch_add(&cursor[static_cast<std::size_t>(coo.src[e])],
                                               Offset{1}, __ATOMIC_RELAXED);
        positions[slot] = static_cast<Offset>(e);
      }
    },
    threads);
  host::parallel_for_ranges(
    coo.num_nodes,
    [&](std::int64_t begin, std::int64_t end, int) {
      for (std::int64_t v = begin; v < end; ++v) {
        Offset* const first = positions + indptr[v];
        Offset* const last = positions + indptr[v + 1];
        if (!std::is_sorted(first, last)) { std::sort(first, last); }
      }
    },
    threads);
}

/// indices[k] = dst[positions[k]], weights likewise (when both weight arrays exist).
template <class Offset, class Index>
void gather_edges(const coo_view<Index>& coo, const Offset* positions, Index* indices,
                  float* weights, int threads)
{
  host::parallel_for_ranges(
    coo.num_edges,
    [&](std::int64_t begin, std::int64_t end, int) {
      for (std::int64_t k = begin; k < end; ++k) { indices[k] = coo.dst[positions[k]]; }
      if (weights == nullptr || coo.weights == nullptr) { return; }
      for (std::int64_t k = begin; k < end; ++k) { weights[k] = coo.weights[positions[k]]; }
    },
    threads);
}

}  // namespace detail

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
