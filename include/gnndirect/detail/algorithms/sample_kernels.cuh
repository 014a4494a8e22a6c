#pragma once
/// @file sample_kernels.cuh
/// @brief Kernels and launch shapes of bulk neighbour sampling (internal).

#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/bounded_count.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/device/dynamic_tile.cuh>
#include <gnndirect/device/sample_neighbors_tile.cuh>
#include <gnndirect/device/samplers.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>
#include <cstddef>
#include <cstdint>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// The two records of a sampler's misbehaviour (see sample_neighbors_kernel), both reported as
/// (seed position, value) pairs.
struct sampler_flags {
  error_flag_ref count;  ///< a returned count outside [0, fanout]
  error_flag_ref slot;   ///< an emitted slot outside [0, fanout)
};

/// *value clamped to [0, bound], or bound when value is null (core/bounded_count.hpp). Device code.
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE std::int64_t device_count_value(const std::int64_t* value,
                                                                       std::int64_t bound) noexcept
{
  return bounded_count{value, bound}.get();
}

GNNDIRECT_USER_KERNELS_BEGIN
/// One tile per seed (grid-stride over seeds, tile-uniform so the tile stays converged): samples
/// into the fixed-stride slots [i * fanout, i * fanout + count) and writes counts[i]. A seed
/// outside [0, num_nodes) (when checked) is reported to `flag`, gets count 0 and no slot write;
/// a seed whose neighbour list is corrupt (indptr decreasing there, or past the edge array) is
/// reported to `graph_flag` by node id, likewise with count 0.
/// With `device_count` set, only the first *device_count seeds (clamped to [0, num_seeds]) are
/// sampled and the others up to num_seeds get count 0, so a caller can size a launch by an upper
/// bound without reading the real count back to the host.
/// The sampler is not trusted with the outputs: an emitted slot outside [0, fanout) is not
/// written and is recorded as (seed position, slot) in `sampler_flags.slot`; a returned count
/// outside [0, fanout] gives the seed count 0 and is recorded as (seed position, count) in
/// `sampler_flags.count`. So counts[i] <= fanout always, and the scan, the compaction and the
/// relabelling stay inside their outputs.
template <class Sampler, class Offset, class Index>
GNNDIRECT_KERNEL void sample_neighbors_kernel(csr_view<Offset, Index> csr, const Index* seeds,
                                              std::int64_t num_seeds, const std::int64_t* device_count,
                                              int fanout, int layer, Sampler sampler, int tile_size,
                                              bool check_indices, std::size_t scratch_bytes,
                                              Index* slot_neighbors, Offset* slot_edge_ids,
                                              std::int64_t* counts, error_flag_ref flag,
                                              error_flag_ref graph_flag, sampler_flags sampler_flags)
{
  // Uniquely named: other headers' kernels may declare dynamic shared memory of another type.
  extern __shared__ __align__(16) unsigned char gnndirect_sample_scratch[];
  dynamic_tile const tile = dynamic_tile::of_calling_thread(tile_size);
  std::int64_t const tiles_per_block = blockDim.x / tile.size;
  std::int64_t const tile_in_block = threadIdx.x / tile.size;
  void* const scratch = gnndirect_sample_scratch + tile_in_block * scratch_bytes;
  std::int64_t const stride = std::int64_t{gridDim.x} * tiles_per_block;
  std::int64_t const active = device_count_value(device_count, num_seeds);
  for (std::int64_t i = blockIdx.x * tiles_per_block + tile_in_block; i < num_seeds; i += stride) {
    std::int64_t count = 0;
    if (i < active) {
      auto const node = static_cast<std::int64_t>(seeds[i]);
      if (!check_indices || (node >= 0 && node < csr.num_nodes)) {
        if (fanout > 0) {
          node_edges<Offset> edges = neighbour_list(csr, node);  // one check per node
          edges.row = i;
          if (edges.degree >= 0) {
            std::int64_t const slot = i * fanout;
            count = sample_list(tile, csr, edges, fanout, layer, sampler, scratch, slot_neighbors + slot,
                                slot_edge_ids == nullptr ? nullptr : slot_edge_ids + slot,
                                sampler_flags.slot.record, i);
            if (count < 0 || count > fanout) {  // the sampler's count, checked in registers
              if (tile.lane == 0) { sampler_flags.count.report(i, static_cast<long long>(count)); }
              count = 0;
            }
          } else if (tile.lane == 0) {
            graph_flag.report(node);  // corrupt list: count 0, nothing read or written
          }
        }
      } else if (tile.lane == 0) {
        flag.report(i);
      }
    }
    if (tile.lane == 0) { counts[i] = count; }
  }
}
GNNDIRECT_USER_KERNELS_END

/// Moves slot j < count of seed i to neighbors[offsets[i] + j] (one thread per slot, so reads
/// and writes are both coalesced); offsets are the scanned counts. Writes stay in
/// [0, num_seeds * fanout) whatever the offsets hold.
template <class Offset, class Index>
GNNDIRECT_KERNEL void compact_slots_kernel(const Index* slot_neighbors, const Offset* slot_edge_ids,
                                           const std::int64_t* offsets, std::int64_t num_seeds,
                                           int fanout, Index* neighbors, Offset* edge_ids)
{
  std::int64_t const slots = num_seeds * fanout;
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t s = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; s < slots; s += stride) {
    std::int64_t const i = s / fanout;
    std::int64_t const j = s - i * fanout;
    std::int64_t const begin = offsets[i];
    // The caller's offsets: a position outside [0, slots) (offsets that are not the scanned
    // counts of these slots) is never written.
    if (j < offsets[i + 1] - begin && begin >= 0 && begin + j < slots) {
      neighbors[begin + j] = slot_neighbors[s];
      if (edge_ids != nullptr) { edge_ids[begin + j] = slot_edge_ids[s]; }
    }
  }
}

/// Grid and block of the sampling kernel.
struct sample_launch_shape {
  int blocks;                 ///< thread blocks (grid-stride beyond)
  int threads;                ///< threads per block (multiple of 32)
  std::size_t tile_scratch;   ///< scratch bytes per tile
  std::size_t shared_bytes;   ///< dynamic shared memory per block
};

/// Enough blocks to fill the device (or the policy's budget), 256 threads unless the per-tile
/// scratch forces fewer tiles per block. @throws invalid_argument when even one tile's scratch
/// exceeds the device's shared memory (a huge fanout); cuda_error.
inline sample_launch_shape sample_launch(std::int64_t num_seeds, int fanout, std::size_t tile_scratch,
                                         const sampling_policy& policy)
{
  int const device = require_device();
  auto const max_shared = static_cast<std::size_t>(
    device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  sample_launch_shape shape{};
  shape.tile_scratch = tile_scratch;
  shape.threads = 256;
  auto shared_for = [&](int threads) {
    return static_cast<std::size_t>(threads / policy.tile_size) * shape.tile_scratch;
  };
  while (shape.threads > 32 && shared_for(shape.threads) > max_shared) { shape.threads /= 2; }
  shape.shared_bytes = shared_for(shape.threads);
  GNNDIRECT_EXPECTS(shape.shared_bytes <= max_shared,
                    "sampling: fanout " + std::to_string(fanout) + " needs " +
                      std::to_string(shape.shared_bytes) + " bytes of shared memory per warp, more "
                      "than the device's " + std::to_string(max_shared));
  std::int64_t const tiles_per_block = shape.threads / policy.tile_size;
  std::int64_t const wanted = (num_seeds + tiles_per_block - 1) / tiles_per_block;
  std::int64_t const resident =
    std::int64_t{device_attribute(cudaDevAttrMultiProcessorCount, device)} * (2048 / shape.threads);
  std::int64_t blocks = std::min(wanted, resident);
  if (policy.max_blocks > 0) { blocks = std::min<std::int64_t>(blocks, policy.max_blocks); }
  shape.blocks = static_cast<int>(std::max<std::int64_t>(blocks, 1));
  return shape;
}

/// Lets `kernel` use the device's whole opt-in shared memory, once per kernel and device. The
/// attribute is process-wide state: setting it per call to the call's own size let two threads
/// that launch the same kernel with different sizes make each other's launch fail. Raising it to
/// the maximum once is safe for every later launch (occupancy follows each launch's own size).
inline void allow_max_dynamic_shared(const void* kernel, int device)
{
  static std::mutex mutex;
  static std::vector<std::pair<const void*, int>> done;  // (kernel, device) already raised
  std::lock_guard<std::mutex> const lock(mutex);
  std::pair<const void*, int> const key{kernel, device};
  if (std::find(done.begin(), done.end(), key) != done.end()) { return; }
  int const max_shared = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  GNNDIRECT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, max_shared));
  done.push_back(key);
}

/// Enqueues the sampling kernel for one sampler type (its only instantiation). `device_count`
/// (nullable) caps the seeds sampled on the device; `sampler_flags` record a faulty sampler (see
/// sample_neighbors_kernel). @throws invalid_argument (shared memory),
/// cuda_error when the launch fails.
template <class Sampler, class Offset, class Index>
void launch_sample_neighbors(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                                  const Index* seeds, std::int64_t num_seeds,
                                  const std::int64_t* device_count, int fanout, int layer,
                                  const Sampler& sampler, const sampling_policy& policy,
                                  Index* slot_neighbors, Offset* slot_edge_ids, std::int64_t* counts,
                                  error_flag_ref flag, error_flag_ref graph_flag, sampler_flags sampler_flags)
{
  static_assert(is_sampler_v<Sampler>, "gnndirect sampling: the sampler must model the sampler "
                                       "concept (device/samplers.hpp)");
  sample_launch_shape const shape =
    sample_launch(num_seeds, fanout, sampler.scratch_bytes(fanout, policy.tile_size), policy);
  auto* const kernel = &sample_neighbors_kernel<Sampler, Offset, Index>;
  if (shape.shared_bytes > 48 * 1024) {
    allow_max_dynamic_shared(reinterpret_cast<const void*>(kernel), require_device());
  }
  kernel<<<shape.blocks, shape.threads, shape.shared_bytes, stream>>>(
    csr, seeds, num_seeds, device_count, fanout, layer, sampler, policy.tile_size,
    policy.check_indices, shape.tile_scratch, slot_neighbors, slot_edge_ids, counts, flag, graph_flag,
    sampler_flags);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
}

/// Completes a corrupt-list record (position = node id) with indptr[node + 1] as its value.
/// Capturable. @throws cuda_error.
template <class Offset>
void capture_list_end_async(cudaStream_t stream, error_flag_ref graph_flag, const Offset* indptr)
{
  graph_flag.capture_value_async(stream, indptr + 1);
}

/// Synchronises `stream` and throws invalid_argument when `graph_flag` holds a corrupt
/// neighbour list; `where` names the call (and layer). @throws invalid_argument, cuda_error.
inline void throw_if_corrupt_list(cudaStream_t stream, error_flag_ref graph_flag, const std::string& where)
{
  error_record host{};
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(&host, graph_flag.record, sizeof(host), cudaMemcpyDefault, stream));
  synchronize(stream);
  if (host.position != no_bad_position) {
    throw invalid_argument(__FILE__, __LINE__,
                           where + ": corrupt graph: node " + std::to_string(host.position) +
                             "'s neighbour list ends at indptr[" + std::to_string(host.position) +
                             " + 1] = " + std::to_string(host.value) +
                             ", before it starts or past the edge array (nothing was read there; "
                             "check untrusted graphs with validate())");
  }
}

/// Enqueues the compaction of fixed-stride slots into CSR arrays.
/// @throws cuda_error when the launch fails.
template <class Offset, class Index>
void launch_compact_slots(cudaStream_t stream, const Index* slot_neighbors,
                          const Offset* slot_edge_ids, const std::int64_t* offsets,
                          std::int64_t num_seeds, int fanout, Index* neighbors, Offset* edge_ids)
{
  std::int64_t const slots = num_seeds * fanout;
  if (slots == 0) { return; }
  constexpr int threads = 256;
  auto const blocks = static_cast<int>(std::min<std::int64_t>((slots + threads - 1) / threads, 65536));
  compact_slots_kernel<Offset, Index><<<blocks, threads, 0, stream>>>(
    slot_neighbors, slot_edge_ids, offsets, num_seeds, fanout, neighbors, edge_ids);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
