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
#include <gnndirect/device/decode_row.cuh>
#include <gnndirect/detail/pipeline/temporal_batches.cuh>
#include <gnndirect/device/row_codec.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/cuda_handles.hpp>
#include <gnndirect/detail/pipeline/block_views.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
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
  std::vector<block_view<Offset, Index>> block_views;  // storage the batch's blocks_view points to
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
/// Decoded bytes per loaded byte of the feature gather (the gather's own rule): the codec's
/// expansion into Feature, 1 for plain rows.
template <class Feature, class Codec>
constexpr int feature_decode_expansion() noexcept
{
  if constexpr (std::is_void_v<Codec>) {
    return 1;
  } else {
    constexpr int expansion = decoded_bytes_per_load<Codec, Feature, 16> / 16;
    return expansion < 1 ? 1 : expansion;
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
