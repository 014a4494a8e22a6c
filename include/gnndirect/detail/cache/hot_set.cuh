#pragma once
/// @file hot_set.cuh
/// @brief Internals of cache/hot_set.cuh: the kernels and sorts that rank rows by degree or access
/// count (not part of the API).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/detail/core/launch.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// degree(v) saturated to 32 bits (a sort key: degrees beyond 2^32 - 1 tie at the top).
template <class Offset, class Index>
GNNDIRECT_HOST_DEVICE std::uint32_t saturated_degree(const csr_view<Offset, Index>& csr, std::int64_t v)
{
  auto const degree = static_cast<std::uint64_t>(csr.degree(v));
  return degree > 0xFFFFFFFFull ? 0xFFFFFFFFu : static_cast<std::uint32_t>(degree);
}

/// keys[v] = min(degree(v), 2^32 - 1); ids[v] = v.
template <class Offset, class Index>
GNNDIRECT_KERNEL void degree_keys_kernel(csr_view<Offset, Index> csr, std::uint32_t* keys, std::int64_t* ids)
{
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < csr.num_nodes;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    keys[v] = saturated_degree(csr, v);
    ids[v] = v;
  }
}

/// keys[v] = counts[v]; ids[v] = v. A template (of the count type) so that the header may be
/// included in several translation units without `inline`, which nvcc ignores on kernels.
template <class Count>
GNNDIRECT_KERNEL void count_keys_kernel(const Count* counts, std::int64_t n, Count* keys,
                                        std::int64_t* ids)
{
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < n;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    keys[v] = counts[v];
    ids[v] = v;
  }
}

/// keys[v] = counts[v] in the high 32 bits, min(degree(v), 2^32 - 1) in the low 32; ids[v] = v.
/// Sorting these keys ranks by count and breaks ties (above all the many rows pre-sampling never
/// reached) by degree.
template <class Offset, class Index>
GNNDIRECT_KERNEL void count_degree_keys_kernel(const std::uint32_t* counts, csr_view<Offset, Index> csr,
                                               std::uint64_t* keys, std::int64_t* ids)
{
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < csr.num_nodes;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    keys[v] = (std::uint64_t{counts[v]} << 32) | saturated_degree(csr, v);
    ids[v] = v;
  }
}

/// counts[ids[i]] += 1 for every valid id (ids outside [0, num_rows) are ignored).
template <class Index>
GNNDIRECT_KERNEL void count_accesses_kernel(const Index* ids, std::int64_t n, std::int64_t num_rows,
                                            std::uint32_t* counts)
{
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    auto const id = static_cast<std::int64_t>(ids[i]);
    if (id >= 0 && id < num_rows) { atomicAdd(counts + id, 1u); }
  }
}

/// The k ids with the largest keys (ties: smaller id first), most valuable first, in a new
/// device buffer from `mr` on `stream`. Sorts all `n` (key, id) pairs descending on the GPU, its
/// temporaries stream-ordered from `mr`. Synchronous.
template <class Key>
buffer<std::int64_t> top_k_ids(cudaStream_t stream, buffer<Key>& keys, buffer<std::int64_t>& ids,
                               std::int64_t n, std::int64_t k, resource_ref mr)
{
  constexpr int key_bits = 8 * sizeof(Key);
  k = std::clamp<std::int64_t>(k, 0, n);
  buffer<Key> keys_out(static_cast<std::size_t>(n), stream, mr);
  buffer<std::int64_t> ids_out(static_cast<std::size_t>(n), stream, mr);
  std::size_t temp_bytes = 0;
  GNNDIRECT_CUDA_TRY(::cub::DeviceRadixSort::SortPairsDescending(
    nullptr, temp_bytes, keys.data(), keys_out.data(), ids.data(), ids_out.data(), n, 0, key_bits, stream));
  buffer<std::byte> temp(temp_bytes, stream, mr);
  GNNDIRECT_CUDA_TRY(::cub::DeviceRadixSort::SortPairsDescending(
    temp.data(), temp_bytes, keys.data(), keys_out.data(), ids.data(), ids_out.data(), n, 0, key_bits, stream));
  buffer<std::int64_t> top(static_cast<std::size_t>(k), stream, mr);
  if (k > 0) {
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(top.data(), ids_out.data(), top.bytes(), cudaMemcpyDeviceToDevice, stream));
  }
  detail::synchronize(stream);
  return top;
}

/// The k of `n` rows with the largest keys, as top_k_ids; `fill_keys(keys, ids)` enqueues on
/// `stream` the kernel that writes each row's key and id. Everything from `mr`. Synchronous.
template <class Key, class FillKeys>
buffer<std::int64_t> top_k_rows(cudaStream_t stream, std::int64_t n, std::int64_t k, resource_ref mr,
                                FillKeys&& fill_keys)
{
  buffer<Key> keys(static_cast<std::size_t>(n), stream, mr);
  buffer<std::int64_t> ids(static_cast<std::size_t>(n), stream, mr);
  if (n > 0) {
    fill_keys(keys.data(), ids.data());
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
  }
  return top_k_ids(stream, keys, ids, n, k, mr);
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
