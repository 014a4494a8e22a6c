#pragma once
/// @file gnn_preparer.cuh
/// @brief Internals of pipeline/gnn_preparer.cuh: a slot's reusable storage, the input checks,
/// and the traits that let the preparer read plain or encoded feature rows (nvcc; not part of
/// the API).

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/algorithms/sample_blocks.cuh>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/encoded_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/pipeline/temporal_batches.cuh>
#include <gnndirect/device/row_codec.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/cuda_handles.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// A slot's reusable storage for the GNN recipe (internal to gnn_preparer).
template <class Offset, class Index>
struct gnn_slot_storage {
  buffer<Index> staging;               // pinned: the seeds' path to the device
  buffer<std::int64_t> host_counts;    // pinned: 2 x layers counts read back once per batch
  buffer<Index> seeds;                 // device copy of the batch's seeds
  sample_blocks_buffers<Offset, Index> blocks;
  buffer<unsigned char> feature_ws;    // gather workspaces, sized for the bounds
  buffer<unsigned char> label_ws;
  seed_time_storage seed_times;        // temporal samplers: the seeds' times and workspace
  workspace_view sampling_ws{};        // the batch's sampling workspace (sample_blocks_check)
  cudaStream_t stream{nullptr};        // the slot's stream (complete() reads the error records)
  int slot{0};                         // the slot's number (timeline lanes)
  // With gather_priority != 0: the slot's high-priority stream (the gathers' with 1, sampling's
  // with -1) and the events that fork it from the slot's stream and join it back. Empty otherwise.
  stream_handle priority_stream;
  event_handle forked;
  event_handle sampled;
  event_handle gathered;
};

/// A non-blocking stream of the current device's greatest priority (block scheduler: its
/// kernels' blocks are dispatched before those of lower-priority streams). @throws cuda_error.
inline stream_handle make_greatest_priority_stream()
{
  int least = 0;
  int greatest = 0;
  GNNDIRECT_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t stream{};
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest));
  return stream_handle(stream);
}

/// Placement of a device-visible pointer as the gather policy needs it (pinned and registered
/// memory behave alike). @throws invalid_argument for memory the GPU cannot read; cuda_error.
inline memory_kind device_visible_kind(const void* pointer, const char* what)
{
  cudaPointerAttributes attributes{};
  GNNDIRECT_CUDA_TRY(cudaPointerGetAttributes(&attributes, pointer));
  switch (attributes.type) {
    case cudaMemoryTypeDevice: return memory_kind::device;
    case cudaMemoryTypeManaged: return memory_kind::managed_host;
    case cudaMemoryTypeHost: return memory_kind::pinned;
    default: break;
  }
  throw invalid_argument(__FILE__, __LINE__,
                         std::string(what) + " is not device-visible (pageable host memory?): " +
                           "use device, pinned, registered or managed memory");
}

/// First position of an id outside [0, num_nodes), or -1.
template <class Index>
std::int64_t first_bad_id(const std::vector<Index>& ids, std::int64_t num_nodes) noexcept
{
  auto const bad = std::find_if(ids.begin(), ids.end(), [num_nodes](Index id) {
    return id < 0 || static_cast<std::int64_t>(id) >= num_nodes;
  });
  return bad == ids.end() ? -1 : static_cast<std::int64_t>(bad - ids.begin());
}

/// The feature rows a preparer reads: the plain table (Codec void) or an encoded copy of it.
template <class Feature, class Codec>
struct feature_rows_of {
  using type = encoded_view<Codec>;
};
template <class Feature>
struct feature_rows_of<Feature, void> {
  using type = table_view<const Feature>;
};
/// True when Codec is void or produces Feature.
template <class Feature, class Codec>
constexpr bool feature_codec_fits()
{
  if constexpr (std::is_void_v<Codec>) {
    return true;
  } else {
    return codec_decodes_to_v<Codec, Feature>;
  }
}
/// Bytes a gather loads per feature row of a plain table.
template <class T>
std::size_t feature_load_bytes(const table_view<T>& rows) noexcept
{
  return rows.row_bytes();
}
/// Bytes a gather loads per feature row of an encoded table (its encoded row).
template <class Codec>
std::size_t feature_load_bytes(const encoded_view<Codec>& rows) noexcept
{
  return static_cast<std::size_t>(rows.load_bytes());
}
/// Rows a calibration probe gathers (fewer when the table is smaller): 64K random rows, a few
/// milliseconds per probe over a host link.
inline constexpr std::int64_t calibration_probe_rows = 65536;

/// Process-wide results of calibrate_feature_gather, by (device, placement, bytes loaded per row,
/// bytes written per row): each source is calibrated once per process.
inline std::map<std::tuple<int, int, std::size_t, std::size_t>, gather_probe>& calibration_cache(std::mutex*& lock)
{
  static std::mutex mutex;
  static std::map<std::tuple<int, int, std::size_t, std::size_t>, gather_probe> cache;
  lock = &mutex;
  return cache;
}

/// Calibrates the feature gather on its actual source: times gather_async of the same random
/// probe rows (calibration_probe_rows or all rows) into Feature rows for every candidate of
/// gather_calibration_candidates (the caller's `base` policy otherwise, sort included), one
/// untimed run then the median of three, and returns choose_gather_probe's pick. Cached per
/// device, placement and row size. Synchronous on `stream`; scratch from `mr`.
/// @throws what gather_async throws, cuda_error.
template <class Feature, class Rows>
gather_probe calibrate_feature_gather(const Rows& features, gather_policy base, cudaStream_t stream, resource_ref mr)
{
  int const device = require_device();
  std::size_t const load_bytes = feature_load_bytes(features);
  std::size_t const out_bytes = static_cast<std::size_t>(features.cols) * sizeof(Feature);
  std::tuple<int, int, std::size_t, std::size_t> const key{device, static_cast<int>(features.kind), load_bytes,
                                                           out_bytes};
  std::mutex* lock = nullptr;
  auto& cache = calibration_cache(lock);
  {
    std::lock_guard<std::mutex> const guard(*lock);
    auto const hit = cache.find(key);
    if (hit != cache.end()) { return hit->second; }
  }
  std::int64_t const n = std::min<std::int64_t>(features.rows, calibration_probe_rows);
  std::vector<std::int64_t> host_ids(static_cast<std::size_t>(n));
  std::mt19937_64 rng(0x6A7E5EEDu);  // the same probe on every run: calibration compares policies, not draws
  std::uniform_int_distribution<std::int64_t> row(0, std::max<std::int64_t>(features.rows - 1, 0));
  for (auto& id : host_ids) { id = row(rng); }
  buffer<std::int64_t> ids(static_cast<std::size_t>(n), stream, mr);
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(ids.data(), host_ids.data(), host_ids.size() * sizeof(std::int64_t),
                                     cudaMemcpyHostToDevice, stream));
  buffer<Feature> out(static_cast<std::size_t>(std::max<std::int64_t>(1, n * features.cols)), stream, mr);
  table_view<Feature> const dst(out.data(), n, features.cols, features.cols, memory_kind::device);
  buffer<unsigned char> ws(gather_workspace_bytes<std::int64_t>(n, features.rows, features.kind, load_bytes, base),
                           stream, mr);
  workspace_view const view{ws.data(), ws.bytes()};
  auto timing_event = [] {
    cudaEvent_t event{};
    GNNDIRECT_CUDA_TRY(cudaEventCreate(&event));
    return event_handle(event);
  };
  event_handle const start = timing_event();
  event_handle const stop = timing_event();
  std::vector<gather_probe> probes = gather_calibration_candidates(device_attribute(cudaDevAttrMultiProcessorCount, device));
  for (auto& probe : probes) {
    gather_policy policy = base;
    policy.max_blocks = probe.max_blocks * 256 / policy.block_threads;  // candidates count 256-thread blocks
    policy.rows_in_flight = probe.rows_in_flight;
    std::vector<double> times;
    for (int run = 0; run < 4; ++run) {
      GNNDIRECT_CUDA_TRY(cudaEventRecord(start.get(), stream));
      gather_async(stream, features, ids.data(), n, dst, view, policy);
      GNNDIRECT_CUDA_TRY(cudaEventRecord(stop.get(), stream));
      GNNDIRECT_CUDA_TRY(cudaEventSynchronize(stop.get()));
      float ms = 0;
      GNNDIRECT_CUDA_TRY(cudaEventElapsedTime(&ms, start.get(), stop.get()));
      if (run > 0) { times.push_back(1e-3 * static_cast<double>(ms)); }  // run 0 warms up
    }
    std::sort(times.begin(), times.end());
    probe.seconds = std::max(times[times.size() / 2], 1e-9);
  }
  gather_check(stream, view, features.rows);
  gather_probe chosen = choose_gather_probe(probes);
  chosen.max_blocks = chosen.max_blocks * 256 / base.block_threads;
  std::lock_guard<std::mutex> const guard(*lock);
  return cache.emplace(key, chosen).first->second;
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
