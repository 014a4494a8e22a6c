#pragma once
/// @file coo_to_csr.hpp
/// @brief Internals of graph/coo_to_csr.hpp: the COO checks shared by the host and GPU
/// conversions, and the passes of the host conversion (host-compilable; not part of the API).

#include <gnndirect/algorithms/validate.hpp>
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
GNNDIRECT_NAMESPACE_END
