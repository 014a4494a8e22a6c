#pragma once
// Definitions of algorithms/sample_blocks.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index, class Sampler>
sampled_blocks<Offset, Index> sample_blocks(
  cudaStream_t stream, const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds,
  const std::vector<int>& fanouts, const Sampler& sampler, const sampling_policy& policy, resource_ref mr)
{
  return detail::sample_blocks_sync(stream, csr, seeds, num_seeds, fanouts, sampler, policy, mr);
}

template <class Offset, class Index, class Sampler>
sampled_blocks<Offset, Index> sample_blocks(
  cudaStream_t stream, const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds,
  const std::vector<int>& fanouts, const Sampler& sampler, const sampling_policy& policy, cudaMemPool_t pool)
{
  return detail::sample_blocks_sync(stream, csr, seeds, num_seeds, fanouts, sampler, policy, pool);
}

GNNDIRECT_NAMESPACE_END
