#pragma once
/// @file edge_seeds.cuh
/// @brief Internals of algorithms/edge_seeds.cuh: the workspace layout and the kernels that
/// check edge-seed endpoints, set up the one-row "hop" relabel_async runs on, and give each seed
/// node the earliest time of its seed edges (not part of the API).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/relabel.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/workspace.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Slices of an edge-seeds workspace: two error records (src, dst endpoints) first, the
/// concatenated endpoints (2E), the hop's counts (1) and offsets (2), the relabelled edge count,
/// then relabel_async's workspace.
template <class Index>
struct edge_seeds_workspace {
  error_record* records{nullptr};
  Index* endpoints{nullptr};
  std::int64_t* counts{nullptr};
  std::int64_t* offsets{nullptr};
  std::int64_t* num_edges{nullptr};
  workspace_view relabel{};
  std::size_t total{0};
};

/// Carves (or, with a null workspace, sizes) the slices for up to `num_edges` seed edges.
template <class Index>
edge_seeds_workspace<Index> carve_edge_seeds_workspace(workspace_view ws, std::int64_t num_edges)
{
  workspace_carver carver(ws);
  edge_seeds_workspace<Index> w;
  w.records = carver.take<error_record>(2 * sizeof(error_record));
  w.endpoints = carver.take<Index>(static_cast<std::size_t>(2 * num_edges) * sizeof(Index));
  w.counts = carver.take<std::int64_t>(8);
  w.offsets = carver.take<std::int64_t>(16);
  w.num_edges = carver.take<std::int64_t>(8);
  std::size_t const relabel_bytes = carve_relabel_workspace<Index>(workspace_view{}, num_edges == 0 ? 0 : 1,
                                                                       static_cast<int>(2 * num_edges)).total;
  w.relabel.data = carver.take<unsigned char>(relabel_bytes);
  w.relabel.bytes = relabel_bytes;
  w.total = carver.used();
  return w;
}

GNNDIRECT_USER_KERNELS_BEGIN
/// Checks every endpoint (first bad position of each array recorded) and writes the hop's
/// counts {2E} and offsets {0, 2E}.
template <class Index>
GNNDIRECT_KERNEL void edge_seed_setup_kernel(const Index* src, const Index* dst, std::int64_t num_edges,
                                             std::int64_t num_nodes, std::int64_t* counts, std::int64_t* offsets,
                                             error_flag_ref bad_src, error_flag_ref bad_dst)
{
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  std::int64_t const first = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (first == 0) {
    counts[0] = 2 * num_edges;
    offsets[0] = 0;
    offsets[1] = 2 * num_edges;
  }
  for (std::int64_t e = first; e < num_edges; e += stride) {
    auto const s = static_cast<std::int64_t>(src[e]);
    auto const d = static_cast<std::int64_t>(dst[e]);
    if (s < 0 || s >= num_nodes) { bad_src.report(e); }
    if (d < 0 || d >= num_nodes) { bad_dst.report(e); }
  }
}

/// node_times[i] = INT64_MAX for i < bound. A template (Time is always int64): a non-template
/// kernel defined in a header would be defined by every including translation unit.
template <class Time>
GNNDIRECT_KERNEL void edge_seed_times_start_kernel(Time* node_times, std::int64_t bound)
{
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < bound; i += stride) {
    node_times[i] = INT64_MAX;
  }
}

/// node_times[local endpoint] = min(..., edge_times[e]) for both endpoints of every seed edge
/// (local ids outside [0, bound), left unwritten for a bad endpoint, are skipped).
template <class Index>
GNNDIRECT_KERNEL void edge_seed_times_kernel(const Index* local, const std::int64_t* edge_times,
                                             std::int64_t num_edges, std::int64_t bound, std::int64_t* node_times)
{
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t e = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < num_edges; e += stride) {
    for (std::int64_t i : {e, num_edges + e}) {
      auto const n = static_cast<std::int64_t>(local[i]);
      if (n >= 0 && n < bound) {
        atomicMin(reinterpret_cast<long long*>(node_times + n), static_cast<long long>(edge_times[e]));
      }
    }
  }
}
GNNDIRECT_USER_KERNELS_END

}  // namespace detail
GNNDIRECT_NAMESPACE_END
