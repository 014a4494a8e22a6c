#pragma once
// Definitions of cache/hot_set.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
buffer<std::int64_t> hot_rows_by_degree(
  cudaStream_t stream, const csr_view<Offset, Index>& csr, std::int64_t k, resource_ref mr)
{
  detail::check_device_accessible(csr.indptr, 0, alignof(Offset), "indptr");
  return detail::top_k_rows<std::uint32_t>(stream, csr.num_nodes, k, mr, [&](std::uint32_t* keys, std::int64_t* ids) {
    detail::degree_keys_kernel<<<detail::grid_stride_blocks(csr.num_nodes), detail::elementwise_block_threads, 0, stream>>>(csr, keys, ids);
  });
}

template <class Index>
void count_accesses_async(
  cudaStream_t stream, const Index* ids, std::int64_t n, std::int64_t num_rows, std::uint32_t* counts)
{
  if (n <= 0) { return; }
  detail::check_device_accessible(ids, static_cast<std::size_t>(n) * sizeof(Index), alignof(Index), "ids");
  detail::check_device_accessible(counts, 0, alignof(std::uint32_t), "counts");
  detail::count_accesses_kernel<<<detail::grid_stride_blocks(n), detail::elementwise_block_threads, 0, stream>>>(ids, n, num_rows, counts);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
}

inline buffer<std::int64_t> hot_rows_by_count(
  cudaStream_t stream, const std::uint32_t* counts, std::int64_t num_rows, std::int64_t k, resource_ref mr)
{
  detail::check_device_accessible(counts, static_cast<std::size_t>(num_rows) * 4, 4, "counts");
  return detail::top_k_rows<std::uint32_t>(stream, num_rows, k, mr, [&](std::uint32_t* keys, std::int64_t* ids) {
    detail::count_keys_kernel<<<detail::grid_stride_blocks(num_rows), detail::elementwise_block_threads, 0, stream>>>(counts, num_rows, keys, ids);
  });
}

template <class Offset, class Index>
buffer<std::int64_t> hot_rows_by_count(
  cudaStream_t stream, const std::uint32_t* counts, const csr_view<Offset, Index>& csr, std::int64_t k, resource_ref mr)
{
  detail::check_device_accessible(counts, static_cast<std::size_t>(csr.num_nodes) * 4, 4, "counts");
  return detail::top_k_rows<std::uint64_t>(stream, csr.num_nodes, k, mr, [&](std::uint64_t* keys, std::int64_t* ids) {
    detail::count_degree_keys_kernel<<<detail::grid_stride_blocks(csr.num_nodes), detail::elementwise_block_threads, 0, stream>>>(counts, csr, keys, ids);
  });
}

GNNDIRECT_NAMESPACE_END
