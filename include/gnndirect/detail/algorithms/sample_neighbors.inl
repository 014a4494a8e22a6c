#pragma once
// Definitions of algorithms/sample_neighbors.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index, class Sampler>
sampled_neighbors<Offset, Index> sample_neighbors(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                                                  const Index* seeds, std::int64_t num_seeds,
                                                  int fanout, int layer, const Sampler& sampler,
                                                  const sampling_policy& policy,
                                                  resource_ref mr)
{
  return detail::sample_neighbors_sync(stream, csr, seeds, num_seeds, fanout, layer, sampler, policy, mr);
}

template <class Offset, class Index, class Sampler>
sampled_neighbors<Offset, Index> sample_neighbors(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                                                  const Index* seeds, std::int64_t num_seeds,
                                                  int fanout, int layer, const Sampler& sampler,
                                                  const sampling_policy& policy, cudaMemPool_t pool)
{
  return detail::sample_neighbors_sync(stream, csr, seeds, num_seeds, fanout, layer, sampler, policy, pool);
}

GNNDIRECT_NAMESPACE_END
