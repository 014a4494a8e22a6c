#pragma once
/// @file coo_to_csr.cuh
/// @brief Internals of graph/coo_to_csr.cuh: the GPU id check of a COO and the sort-based build
/// of the CSR arrays (nvcc; not part of the API).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/algorithms/csr_rules.hpp>
#include <gnndirect/detail/algorithms/validate_kernels.cuh>
#include <gnndirect/detail/core/bits.hpp>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/launch.cuh>
#include <gnndirect/detail/graph/coo_to_csr.hpp>
#include <gnndirect/detail/graph/coo_to_csr_kernels.cuh>
#include <gnndirect/detail/owners/error_flag_owner.cuh>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/coo.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Checks every src then dst id of a device-visible COO on the GPU (its error record from `mr`).
/// Synchronises `stream`.
/// @throws index_out_of_range with the host conversion's message (first bad position); cuda_error.
template <class Index>
void check_coo_ids_device(cudaStream_t stream, const coo_view<Index>& coo, resource_ref mr)
{
  const Index* const arrays[2] = {coo.src, coo.dst};
  const char* const names[2] = {"src", "dst"};
  error_flag const flag(stream, mr);
  for (int a = 0; a < 2; ++a) {
    flag.ref().reset_async(stream);
    launch_first_violation(stream, id_range_rule<Index>{arrays[a], coo.num_nodes}, coo.num_edges,
                           flag.ref());
    flag.ref().capture_value_async(stream, arrays[a]);
    error_record const record = flag.ref().read(stream);
    if (record.position != no_bad_position) {
      throw_coo_id_error(names[a], static_cast<std::int64_t>(record.position), record.value,
                         coo.num_nodes);
    }
  }
}

/// Device copy of a device-visible array (any placement), stream-ordered, from `mr`.
/// @throws cuda_error, allocation_error.
template <class T>
buffer<T> device_copy(cudaStream_t stream, const T* source, std::int64_t n, resource_ref mr)
{
  buffer<T> copy(static_cast<std::size_t>(n), stream, mr);
  if (n > 0) {
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(copy.data(), source, copy.bytes(), cudaMemcpyDefault, stream));
  }
  return copy;
}

/// Fills `graph` (allocated for coo's sizes) from an id-checked COO on `stream`, synchronising
/// before it returns. `disposable_keys`, when not null, is a device array holding coo.src that
/// the sort may overwrite (saves a copy of src, e.g. for generated edges). Temporaries come
/// stream-ordered from `mr`. @throws cuda_error, allocation_error.
template <class Offset, class Index>
void build_csr_device(cudaStream_t stream, const coo_view<Index>& coo,
                      const csr_graph<Offset, Index>& graph, Index* disposable_keys,
                      resource_ref mr = {})
{
  using key_type = std::make_unsigned_t<Index>;  // ids are checked non-negative
  std::int64_t const m = coo.num_edges;
  std::int64_t const n = coo.num_nodes;
  // Random reads of dst (and weights) must come from HBM: stage host-resident inputs once.
  bool const stage = coo.kind != memory_kind::device;
  buffer<Index> const staged_dst = device_copy(stream, stage ? coo.dst : nullptr, stage ? m : 0, mr);
  buffer<float> const staged_weights =
    device_copy(stream, coo.weights, stage && coo.weights != nullptr ? m : 0, mr);
  buffer<key_type> keys(static_cast<std::size_t>(disposable_keys != nullptr ? m : 2 * m), stream, mr);
  buffer<Offset> positions(static_cast<std::size_t>(2 * m), stream, mr);
  key_type* const keys_in =
    disposable_keys != nullptr ? reinterpret_cast<key_type*>(disposable_keys) : keys.data() + m;
  ::cub::DoubleBuffer<key_type> key_buffers(keys_in, keys.data());
  ::cub::DoubleBuffer<Offset> position_buffers(positions.data(), positions.data() + m);
  int const end_bit = significant_bits(n);
  std::size_t temp_bytes = 0;
  if (m > 0) {
    GNNDIRECT_CUDA_TRY(::cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, key_buffers,
                                                         position_buffers, m, 0, end_bit, stream));
  }
  buffer<std::byte> temp(temp_bytes, stream, mr);
  stream_sync_guard const guard(stream);  // after every temporary: they outlive queued work
  if (m > 0) {
    if (disposable_keys == nullptr) {
      GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(keys_in, coo.src, static_cast<std::size_t>(m) * sizeof(Index),
                                         cudaMemcpyDefault, stream));
    }
    iota_kernel<<<grid_stride_blocks(m), elementwise_block_threads, 0, stream>>>(positions.data(), m);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
    GNNDIRECT_CUDA_TRY(::cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, key_buffers,
                                                         position_buffers, m, 0, end_bit, stream));
  }
  indptr_from_sorted_kernel<<<grid_stride_blocks(n + 1), elementwise_block_threads, 0, stream>>>(
    key_buffers.Current(), m, n, graph.indptr().data());
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  if (m > 0) {
    const Index* const dst = stage ? staged_dst.data() : coo.dst;
    const float* const weights = stage ? staged_weights.data() : coo.weights;
    gather_sorted_edges_kernel<<<grid_stride_blocks(m), elementwise_block_threads, 0, stream>>>(
      position_buffers.Current(), m, dst, weights, graph.indices().data(),
      graph.has_weights() ? graph.weights().data() : nullptr,
      graph.has_edge_ids() ? graph.edge_ids().data() : nullptr);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
  }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
