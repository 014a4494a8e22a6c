#pragma once
/// @file sample_temporal_blocks_async.cuh
/// @brief Internals of algorithms/sample_temporal_blocks_async.cuh: the checks of a temporal
/// sampler's arrays, the workspace layout (a sample_blocks workspace, then every layer's row
/// times) and the kernels that hand the query times on to the next layer's rows (not part of the
/// API).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/relabel.cuh>
#include <gnndirect/detail/algorithms/sample_blocks_async.cuh>
#include <gnndirect/detail/core/launch.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/detail/core/workspace.hpp>
#include <gnndirect/device/temporal_samplers.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// A temporal-blocks workspace: the sample_blocks workspace first (so sample_blocks_check reads
/// its error records at the start), then one query time per dst row of every layer.
template <class Offset, class Index>
struct temporal_blocks_workspace {
  blocks_workspace<Offset, Index> blocks;
  std::vector<std::int64_t*> row_times;  ///< layer l's rows (layer 0: null, the caller's seed times)
  std::size_t total{0};
};

/// Carves (or, with a null workspace, sizes) it for the given bounds.
template <class Offset, class Index>
temporal_blocks_workspace<Offset, Index> carve_temporal_workspace(workspace_view ws,
                                                                  const std::vector<block_bounds>& bounds)
{
  temporal_blocks_workspace<Offset, Index> w;
  w.blocks = carve_blocks_workspace<Offset, Index>(ws, bounds);
  std::size_t const head = w.blocks.total;
  workspace_view rest{};
  if (ws.data != nullptr) {
    rest = workspace_view{static_cast<char*>(ws.data) + head, ws.bytes > head ? ws.bytes - head : 0};
  }
  workspace_carver carver(rest);
  w.row_times.push_back(nullptr);
  for (std::size_t l = 1; l < bounds.size(); ++l) {
    w.row_times.push_back(carver.take<std::int64_t>(static_cast<std::size_t>(bounds[l].num_dst) * 8));
  }
  w.total = head + carver.used();
  return w;
}

/// The checks of a temporal sampler's arrays (before any launch): its times cover
/// `neighbour_nodes` nodes (node_time: the ids a neighbour list holds) or `edges` edges
/// (edge_time, CSR position order), reachable from the device; its excluded edges.
template <class Strategy, class TimeForm>
void check_temporal_times(const temporal_sampler<Strategy, TimeForm>& sampler, std::int64_t neighbour_nodes,
                          std::int64_t edges, const std::string& call)
{
  bool constexpr per_node = std::is_same_v<TimeForm, node_time>;
  std::int64_t const want = per_node ? neighbour_nodes : edges;
  std::string const what = per_node ? "node times" : "edge times";
  GNNDIRECT_EXPECTS(want == 0 || sampler.times != nullptr,
                    call + ": the temporal sampler has no " + what + " (times is null)");
  GNNDIRECT_EXPECTS(sampler.num_times == want,
                    call + ": the temporal sampler has " + std::to_string(sampler.num_times) + " " + what +
                      " for a graph of " + std::to_string(want) + (per_node ? " nodes" : " edges") +
                      " (one int64 per " + (per_node ? "node" : "edge, in CSR position order") + ")");
  check_device_accessible(sampler.times, static_cast<std::size_t>(want) * sizeof(std::int64_t),
                          alignof(std::int64_t), per_node ? "node times" : "edge times");
  GNNDIRECT_EXPECTS(sampler.num_excluded >= 0 && (sampler.num_excluded == 0 || sampler.excluded_edges != nullptr),
                    call + ": num_excluded must be >= 0, with excluded_edges non-null when > 0");
  if (sampler.num_excluded > 0) {
    check_device_accessible(sampler.excluded_edges, static_cast<std::size_t>(sampler.num_excluded) * 8,
                            alignof(std::int64_t), "excluded_edges");
  }
}

/// The checks of a temporal sampler's arrays against a homogeneous graph (before any launch).
template <class Strategy, class TimeForm, class Offset, class Index>
void check_temporal_sampler(const temporal_sampler<Strategy, TimeForm>& sampler,
                            const csr_view<Offset, Index>& csr, const char* call)
{
  check_temporal_times(sampler, csr.num_nodes, csr.num_edges, call);
}

/// The seed times of a temporal call: one per seed, device-visible.
inline void check_seed_times(const std::int64_t* seed_times, std::int64_t num_seeds, const char* call)
{
  GNNDIRECT_EXPECTS(num_seeds == 0 || seed_times != nullptr,
                    std::string(call) + ": seeds without times (seed_times is null for " +
                      std::to_string(num_seeds) + " seeds; a temporal sampler needs one per seed)");
  check_device_accessible(seed_times, static_cast<std::size_t>(num_seeds) * sizeof(std::int64_t),
                          alignof(std::int64_t), "seed_times");
}

GNNDIRECT_USER_KERNELS_BEGIN
/// next[s] for s in [0, src_bound): a dst row's own time, else "no time yet" (INT64_MAX).
/// A template (Time is always int64) because a non-template kernel defined in a header is
/// defined again by every translation unit that includes it: duplicate symbols at link time.
template <class Time>
GNNDIRECT_KERNEL void start_row_times_kernel(const Time* times, bounded_count num_dst, std::int64_t src_bound,
                                             Time* next)
{
  std::int64_t const dst = num_dst.get();
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t s = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; s < src_bound; s += stride) {
    next[s] = s < dst ? times[s] : INT64_MAX;
  }
}

/// For every sampled edge of dst row d: next[local src] = min(next[local src], times[d]), so a
/// row's time is never later than that of any row that reached it. Local ids outside
/// [0, src_bound) (left unwritten for a dropped bad neighbour) are skipped.
template <class Index>
GNNDIRECT_KERNEL void inherit_row_times_kernel(const std::int64_t* times, bounded_count num_dst,
                                               const std::int64_t* offsets, const Index* indices,
                                               std::int64_t src_bound, std::int64_t* next)
{
  std::int64_t const dst = num_dst.get();
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t d = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; d < dst; d += stride) {
    std::int64_t const t = times[d];
    for (std::int64_t e = offsets[d]; e < offsets[d + 1]; ++e) {
      auto const s = static_cast<std::int64_t>(indices[e]);
      if (s >= 0 && s < src_bound) {
        atomicMin(reinterpret_cast<long long*>(next + s), static_cast<long long>(t));
      }
    }
  }
}
GNNDIRECT_USER_KERNELS_END

/// Enqueues the times of layer l + 1's rows from layer l's (times, block). Capturable.
template <class Offset, class Index>
void inherit_row_times_async(cudaStream_t stream, const std::int64_t* times, bounded_count num_dst,
                             const sampled_block_view<Offset, Index>& block, std::int64_t src_bound,
                             std::int64_t* next)
{
  if (src_bound <= 0) { return; }
  start_row_times_kernel<<<grid_stride_blocks(src_bound), elementwise_block_threads, 0, stream>>>(
    times, num_dst, src_bound, next);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  if (num_dst.bound <= 0) { return; }
  inherit_row_times_kernel<Index><<<grid_stride_blocks(num_dst.bound), elementwise_block_threads, 0, stream>>>(
    times, num_dst, block.offsets, block.indices, src_bound, next);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
}

/// The layers of a temporal sample whose layer-0 rows are seeds[0, num_seeds) (the count on the
/// device when num_seeds.value is set) with times seed_times: arguments checked by the caller.
template <class Offset, class Index, class Strategy, class TimeForm>
void enqueue_temporal_blocks(cudaStream_t stream, const csr_view<Offset, Index>& csr, const Index* seeds,
                             const std::int64_t* seed_times, bounded_count num_seeds,
                             const std::vector<int>& fanouts,
                             const temporal_sampler<Strategy, TimeForm>& sampler,
                             const sampling_policy& policy, const sampled_blocks_view<Offset, Index>& out,
                             const std::vector<block_bounds>& bounds,
                             const temporal_blocks_workspace<Offset, Index>& w)
{
  GNNDIRECT_CUDA_TRY(
    cudaMemsetAsync(w.blocks.records, 0xFF, block_records * sizeof(error_record) * bounds.size(), stream));
  const std::int64_t* times = seed_times;
  for (std::size_t l = 0; l < bounds.size(); ++l) {
    const Index* const dst = l == 0 ? seeds : out.layers[l - 1].src_nodes;
    bounded_count const num_dst = l == 0 ? num_seeds : bounded_count{out.layers[l - 1].num_src, bounds[l].num_dst};
    if (l > 0) {
      bounded_count const previous = l == 1 ? num_seeds : bounded_count{out.layers[l - 2].num_src, bounds[l - 1].num_dst};
      inherit_row_times_async(stream, times, previous, out.layers[l - 1], bounds[l].num_dst, w.row_times[l]);
      times = w.row_times[l];
    }
    sample_block_async(stream, csr, dst, num_dst, fanouts[l], static_cast<int>(l),
                       sampler.with_query_times(times, bounds[l].num_dst), policy, out.layers[l], w.blocks);
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
