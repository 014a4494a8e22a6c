#pragma once
/// @file relabel.cuh
/// @brief GPU relabelling of one sampled layer to local ids, in the host reference's order.
///
/// Local order: the dst nodes first (in order), then every other sampled neighbour in order of
/// first appearance in the concatenated per-dst samples. Method: tag every occurrence with its
/// position (dst i: i; sampled edge q: num_dst + q), radix-sort (id, position) pairs (stable, so
/// each id's run starts with its first position), mark run heads, find each element's head with a
/// max-scan, rank the first appearances of new ids with a sum-scan over edge positions (which
/// is exactly "order of first appearance"), then write local ids and the new src nodes.

#include <gnndirect/config.hpp>
#include <gnndirect/detail/launch.cuh>  // iota_kernel
#include <gnndirect/error.hpp>
#include <gnndirect/host_wait.hpp>
#include <gnndirect/memory/buffer.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace gnndirect::detail {

/// For sorted (id, position) pairs: head_source[t] = t at the first element of an id's run (0
/// elsewhere, so a max-scan yields each element's run head); first_seen[q] = 1 when the run head
/// is sampled edge q, i.e. the id is not a dst node and q is its first appearance.
template <class Index>
GNNDIRECT_KERNEL void mark_heads_kernel(const Index* ids, const std::int64_t* positions,
                                        std::int64_t n, std::int64_t num_dst,
                                        std::int64_t* head_source, std::int64_t* first_seen)
{
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; t < n; t += stride) {
    bool const head = t == 0 || ids[t] != ids[t - 1];
    head_source[t] = head ? t : 0;
    if (head && positions[t] >= num_dst) { first_seen[positions[t] - num_dst] = 1; }
  }
}

/// Local id of every sampled edge, and the global id of every new src node.
/// new_rank is the inclusive scan of first_seen (new node q has local id num_dst + rank - 1).
template <class Index>
GNNDIRECT_KERNEL void assign_local_kernel(const Index* ids, const std::int64_t* positions,
                                          const std::int64_t* head_of, const std::int64_t* new_rank,
                                          std::int64_t n, std::int64_t num_dst, Index* local_ids,
                                          Index* src_nodes)
{
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; t < n; t += stride) {
    std::int64_t const head = head_of[t];
    std::int64_t const first = positions[head];
    std::int64_t const local = first < num_dst ? first : num_dst + new_rank[first - num_dst] - 1;
    std::int64_t const position = positions[t];
    if (position >= num_dst) { local_ids[position - num_dst] = static_cast<Index>(local); }
    if (head == t && first >= num_dst) { src_nodes[local] = ids[t]; }
  }
}

/// Max of two int64 (the head-finding scan operator).
struct max_op {
  GNNDIRECT_HOST_DEVICE std::int64_t operator()(std::int64_t a, std::int64_t b) const noexcept
  {
    return a < b ? b : a;
  }
};

/// Blocks for a grid-stride elementwise kernel over n items.
inline int elementwise_blocks(std::int64_t n) noexcept
{
  return static_cast<int>(std::clamp<std::int64_t>((n + 255) / 256, 1, 65536));
}

/// Device temporaries of one relabelling of n = num_dst + num_edges occurrences, allocated
/// stream-ordered on `stream` from `pool` (null: the default pool) and freed there in order.
template <class Index>
struct relabel_storage {
  buffer<Index> ids_in, ids_sorted;
  buffer<std::int64_t> positions_in, positions_sorted, head_source, head_of, first_seen, new_rank;
  buffer<unsigned char> cub_storage;

  relabel_storage(std::int64_t num_dst, std::int64_t num_edges, int key_bits, cudaStream_t stream,
                  cudaMemPool_t pool)
    : ids_in(size(num_dst + num_edges), stream, pool),
      ids_sorted(size(num_dst + num_edges), stream, pool),
      positions_in(size(num_dst + num_edges), stream, pool),
      positions_sorted(size(num_dst + num_edges), stream, pool),
      head_source(size(num_dst + num_edges), stream, pool),
      head_of(size(num_dst + num_edges), stream, pool),
      first_seen(size(num_edges), stream, pool),
      new_rank(size(num_edges), stream, pool),
      cub_storage(cub_bytes(num_dst + num_edges, num_edges, key_bits), stream, pool)
  {
  }

 private:
  static std::size_t size(std::int64_t n) noexcept { return static_cast<std::size_t>(n); }
  static std::size_t cub_bytes(std::int64_t n, std::int64_t num_edges, int key_bits)
  {
    std::size_t sort = 0;
    std::size_t max_scan = 0;
    std::size_t sum_scan = 0;
    GNNDIRECT_CUDA_TRY(::cub::DeviceRadixSort::SortPairs(
      nullptr, sort, static_cast<const Index*>(nullptr), static_cast<Index*>(nullptr),
      static_cast<const std::int64_t*>(nullptr), static_cast<std::int64_t*>(nullptr), n, 0, key_bits));
    GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveScan(
      nullptr, max_scan, static_cast<const std::int64_t*>(nullptr), static_cast<std::int64_t*>(nullptr),
      max_op{}, n));
    GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveSum(nullptr, sum_scan,
                                                       static_cast<const std::int64_t*>(nullptr),
                                                       static_cast<std::int64_t*>(nullptr), num_edges));
    return std::max({sort, max_scan, sum_scan, std::size_t{1}});
  }
};

/// Sorts the (id, position) occurrences, finds run heads and ranks first appearances; returns
/// the number of new src nodes (synchronises `stream` to read it).
template <class Index>
std::int64_t rank_first_appearances(cudaStream_t stream, relabel_storage<Index>& tmp,
                                    std::int64_t num_dst, std::int64_t num_edges, int key_bits)
{
  std::int64_t const n = num_dst + num_edges;
  int const blocks = elementwise_blocks(n);
  iota_kernel<<<blocks, 256, 0, stream>>>(tmp.positions_in.data(), n);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  GNNDIRECT_CUDA_TRY(cudaMemsetAsync(tmp.first_seen.data(), 0, tmp.first_seen.bytes(), stream));
  std::size_t bytes = tmp.cub_storage.bytes();
  GNNDIRECT_CUDA_TRY(::cub::DeviceRadixSort::SortPairs(
    tmp.cub_storage.data(), bytes, tmp.ids_in.data(), tmp.ids_sorted.data(),
    tmp.positions_in.data(), tmp.positions_sorted.data(), n, 0, key_bits, stream));
  mark_heads_kernel<Index><<<blocks, 256, 0, stream>>>(tmp.ids_sorted.data(),
                                                       tmp.positions_sorted.data(), n, num_dst,
                                                       tmp.head_source.data(), tmp.first_seen.data());
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  bytes = tmp.cub_storage.bytes();
  GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveScan(tmp.cub_storage.data(), bytes,
                                                      tmp.head_source.data(), tmp.head_of.data(),
                                                      max_op{}, n, stream));
  bytes = tmp.cub_storage.bytes();
  GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveSum(tmp.cub_storage.data(), bytes,
                                                     tmp.first_seen.data(), tmp.new_rank.data(),
                                                     num_edges, stream));
  std::int64_t num_new = 0;
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(&num_new, tmp.new_rank.data() + num_edges - 1, sizeof(num_new),
                                     cudaMemcpyDefault, stream));
  detail::synchronize(stream);
  return num_new;
}

/// Relabels one layer: returns src_nodes (num_dst + new nodes, device memory allocated
/// stream-ordered on `stream` from `pool`) and fills local_ids (num_edges, caller-allocated) from
/// the dst ids and the compacted sampled neighbour ids (device-visible). Neighbour ids must lie in
/// [0, num_nodes): the radix sort only looks at the bits that range needs. Synchronises `stream`
/// once, to size src_nodes; the last kernel is still enqueued on return (the temporaries are freed
/// in stream order after it). @throws allocation_error, cuda_error.
template <class Index>
buffer<Index> relabel_layer(cudaStream_t stream, const Index* dst, std::int64_t num_dst,
                            const Index* neighbors, std::int64_t num_edges, std::int64_t num_nodes,
                            Index* local_ids, cudaMemPool_t pool)
{
  int const key_bits = significant_bits(num_nodes);
  relabel_storage<Index> tmp(num_dst, num_edges, key_bits, stream, pool);
  std::int64_t num_new = 0;
  if (num_edges > 0) {
    if (num_dst > 0) {
      GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(tmp.ids_in.data(), dst, sizeof(Index) * num_dst,
                                         cudaMemcpyDefault, stream));
    }
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(tmp.ids_in.data() + num_dst, neighbors,
                                       sizeof(Index) * num_edges, cudaMemcpyDefault, stream));
    num_new = rank_first_appearances(stream, tmp, num_dst, num_edges, key_bits);
  }
  buffer<Index> src_nodes(static_cast<std::size_t>(num_dst + num_new), stream, pool);
  if (num_dst > 0) {
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(src_nodes.data(), dst, sizeof(Index) * num_dst,
                                       cudaMemcpyDefault, stream));
  }
  if (num_edges > 0) {
    std::int64_t const n = num_dst + num_edges;
    assign_local_kernel<Index><<<elementwise_blocks(n), 256, 0, stream>>>(
      tmp.ids_sorted.data(), tmp.positions_sorted.data(), tmp.head_of.data(), tmp.new_rank.data(),
      n, num_dst, local_ids, src_nodes.data());
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
  }
  return src_nodes;
}

}  // namespace gnndirect::detail
