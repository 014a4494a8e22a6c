#pragma once
/// @file sample_neighbors_async.cuh
/// @brief Internals of algorithms/sample_neighbors_async.cuh: the carving of a sampling
/// workspace, the argument and pointer checks, and the enqueueing around the sampling kernel of
/// sample_kernels.cuh (not part of the API).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/core/workspace.hpp>
#include <gnndirect/detail/algorithms/sample_kernels.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/device/samplers.hpp>

#include <cub/device/device_scan.cuh>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Error records at the start of a sampling workspace: bad seeds, corrupt neighbour lists, the
/// sampler's bad counts, its bad slots.
inline constexpr int sample_records = 4;

/// Slices of a sampling workspace: the error records first (so checks find them without sizes),
/// then CUB's scan storage. The sizing pass and the operation share this carving.
struct sample_workspace {
  error_flag_ref flag;
  error_flag_ref graph_flag;
  sampler_flags sampler;
  void* scan_storage{nullptr};
  std::size_t scan_bytes{0};
  std::size_t total{0};
};

/// Carves (or, with a null workspace, sizes) the slices for `num_seeds` seeds.
/// @throws invalid_argument when a non-null workspace is too small; cuda_error.
inline sample_workspace carve_sample_workspace(workspace_view ws, std::int64_t num_seeds)
{
  sample_workspace slices;
  workspace_carver carver(ws);
  slices.flag.record = carver.take<error_record>(sample_records * sizeof(error_record));
  if (slices.flag.record != nullptr) {
    slices.graph_flag.record = slices.flag.record + 1;
    slices.sampler = sampler_flags{{slices.flag.record + 2}, {slices.flag.record + 3}};
  }
  GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveSum(nullptr, slices.scan_bytes,
                                                     static_cast<const std::int64_t*>(nullptr),
                                                     static_cast<std::int64_t*>(nullptr), num_seeds));
  slices.scan_storage = carver.take<void>(slices.scan_bytes);
  slices.total = carver.used();
  return slices;
}

/// The seed error record of a sampling workspace (its first slice; needs no sizes).
inline error_flag_ref sample_flag(workspace_view ws) noexcept
{
  return error_flag_ref{static_cast<error_record*>(ws.data)};
}

/// The corrupt-list record of a sampling workspace (the second slice).
inline error_flag_ref sample_graph_flag(workspace_view ws) noexcept
{
  return error_flag_ref{static_cast<error_record*>(ws.data) + 1};
}

/// The sampler records of a sampling workspace (its third and fourth slices).
inline sampler_flags sample_sampler_flags(workspace_view ws) noexcept
{
  auto* const records = static_cast<error_record*>(ws.data);
  return sampler_flags{{records + 2}, {records + 3}};
}

/// Throws invalid_argument when `count` or `slot` (host copies of a sampler_flags pair) holds a
/// report; `where` names the call (and layer), `seeds` the array whose position is reported.
inline void throw_if_sampler_failed(const error_record& count, const error_record& slot, const std::string& where,
                                    const std::string& seeds)
{
  if (count.position != no_bad_position) {
    throw invalid_argument(__FILE__, __LINE__,
                           where + ": the sampler returned " + std::to_string(count.value) + " for " + seeds + "[" +
                             std::to_string(count.position) +
                             "], outside [0, fanout] (a sampler returns the number of slots it wrote); "
                             "that seed was given count 0, nothing written outside the outputs");
  }
  if (slot.position != no_bad_position) {
    throw invalid_argument(__FILE__, __LINE__,
                           where + ": the sampler emitted slot " + std::to_string(slot.value) + " for " + seeds +
                             "[" + std::to_string(slot.position) +
                             "], outside [0, fanout); the write was refused");
  }
}

/// The seed array and where the graph's arrays live (one cudaPointerGetAttributes per array).
template <class Offset, class Index>
void check_sample_inputs(const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds)
{
  GNNDIRECT_EXPECTS(num_seeds >= 0, "sample_neighbors: num_seeds must be >= 0");
  GNNDIRECT_EXPECTS(num_seeds == 0 || seeds != nullptr, "sample_neighbors: null seeds");
  check_device_accessible(seeds, static_cast<std::size_t>(num_seeds) * sizeof(Index), alignof(Index), "seeds");
  check_device_accessible(csr.indptr, 0, alignof(Offset), "indptr");
  check_device_accessible(csr.indices, 0, alignof(Index), "csr indices");
  if (csr.weights != nullptr) { check_device_accessible(csr.weights, 0, alignof(float), "weights"); }
  if (csr.edge_ids != nullptr) { check_device_accessible(csr.edge_ids, 0, alignof(Offset), "edge_ids"); }
}

/// Refuses a fanout whose per-tile scratch exceeds the device's shared memory, here rather than
/// at the launch, after the error records' reset was enqueued. @throws invalid_argument,
/// cuda_error.
template <class Sampler>
void check_sample_shared_memory(const Sampler& sampler, const sampling_policy& policy, int fanout)
{
  (void)sample_launch(1, fanout, sampler.scratch_bytes(fanout, policy.tile_size), policy);
}

/// Argument checks shared by the async and synchronous calls (before any launch).
template <class Sampler, class Offset, class Index>
void check_sample_arguments(const csr_view<Offset, Index>& csr, const Index* seeds,
                            std::int64_t num_seeds, int fanout, const Sampler& sampler,
                            const sampling_policy& policy)
{
  static_assert(is_sampler_v<Sampler>,
                "gnndirect sampling: the sampler must model the sampler concept "
                "(device/samplers.hpp): needs_weights, scratch_bytes(fanout, tile_size), "
                "sample(tile, csr, edges, fanout, layer, scratch, out), trivially copyable");
  validate(sampler, policy, csr, fanout);
  check_sample_shared_memory(sampler, policy, fanout);
  check_sample_inputs(csr, seeds, num_seeds);
}

/// The body of sample_neighbors_async: output (capacities required) and workspace checks, error
/// records reset, offsets[0] = 0, then `launch(flag, graph_flag, sampler_flags)` enqueues the
/// sampling kernel, then the value captures of the checks and the scan of the counts.
/// num_seeds is the bound (the device-count form samples fewer, with count 0 past them).
template <class Offset, class Index, class Launch>
void enqueue_sample_neighbors(cudaStream_t stream, const Offset* indptr, const Index* seeds,
                              std::int64_t num_seeds, int fanout, bool check_indices,
                              const sampled_slots_view<Offset, Index>& out, workspace_view ws,
                              Launch&& launch)
{
  GNNDIRECT_EXPECTS(out.offsets != nullptr && (num_seeds == 0 || out.counts != nullptr),
                    "sample_neighbors_async: null counts or offsets");
  GNNDIRECT_EXPECTS(num_seeds == 0 || fanout == 0 || out.neighbors != nullptr,
                    "sample_neighbors_async: null neighbour slots");
  GNNDIRECT_EXPECTS(ws.data != nullptr,
                    "sample_neighbors_async: null workspace (size it with "
                    "sample_neighbors_workspace_bytes)");
  check_slots_capacity(out, num_seeds, fanout, "sample_neighbors_async", "out");
  check_device_accessible(out.counts, static_cast<std::size_t>(num_seeds) * 8, 8, "counts");
  check_device_accessible(out.offsets, static_cast<std::size_t>(num_seeds + 1) * 8, 8, "offsets");
  check_device_accessible(out.neighbors, 0, alignof(Index), "neighbors");
  check_device_accessible(out.edge_ids, 0, alignof(Offset), "edge_ids");
  check_device_accessible(ws.data, ws.bytes, workspace_alignment, "workspace");
  sample_workspace const slices = carve_sample_workspace(ws, num_seeds);
  GNNDIRECT_CUDA_TRY(cudaMemsetAsync(slices.flag.record, 0xFF, sample_records * sizeof(error_record), stream));
  GNNDIRECT_CUDA_TRY(cudaMemsetAsync(out.offsets, 0, sizeof(std::int64_t), stream));
  if (num_seeds == 0) { return; }
  launch(slices.flag, slices.graph_flag, slices.sampler);
  if (check_indices) { slices.flag.capture_value_async(stream, seeds); }
  capture_list_end_async(stream, slices.graph_flag, indptr);
  std::size_t scan_bytes = slices.scan_bytes;
  GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveSum(slices.scan_storage, scan_bytes, out.counts,
                                                     out.offsets + 1, num_seeds, stream));
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
