#pragma once
// Definitions of algorithms/sample_temporal_blocks_async.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
std::size_t sample_temporal_blocks_workspace_bytes(
  std::int64_t num_seeds, const std::vector<int>& fanouts, std::int64_t num_nodes)
{
  return detail::carve_temporal_workspace<Offset, Index>(
           workspace_view{}, sample_blocks_bounds(num_seeds, fanouts, num_nodes))
    .total;
}

template <class Offset, class Index, class Strategy, class TimeForm>
void sample_temporal_blocks_async(
  cudaStream_t stream, const csr_view<Offset, Index>& csr, const Index* seeds, const std::int64_t* seed_times,
  std::int64_t num_seeds, const std::vector<int>& fanouts, const temporal_sampler<Strategy, TimeForm>& sampler,
  const sampling_policy& policy, const sampled_blocks_view<Offset, Index>& out, workspace_view ws)
{
  detail::check_blocks_arguments(csr, seeds, num_seeds, fanouts, sampler, policy);
  detail::check_temporal_sampler(sampler, csr, "sample_temporal_blocks_async");
  detail::check_seed_times(seed_times, num_seeds, "sample_temporal_blocks_async");
  GNNDIRECT_EXPECTS(out.layers.size() == fanouts.size(),
                    "sample_temporal_blocks_async: out has " + std::to_string(out.layers.size()) +
                      " layers for " + std::to_string(fanouts.size()) + " fanouts");
  GNNDIRECT_EXPECTS(ws.data != nullptr, "sample_temporal_blocks_async: null workspace (size it with "
                                        "sample_temporal_blocks_workspace_bytes)");
  detail::check_device_accessible(ws.data, ws.bytes, workspace_alignment, "workspace");
  std::vector<block_bounds> const bounds = sample_blocks_bounds(num_seeds, fanouts, csr.num_nodes);
  for (std::size_t l = 0; l < bounds.size(); ++l) { detail::check_layer_output(out.layers[l], bounds[l], l); }
  auto const w = detail::carve_temporal_workspace<Offset, Index>(ws, bounds);
  detail::enqueue_temporal_blocks(stream, csr, seeds, seed_times, bounded_count{nullptr, num_seeds},
                                  fanouts, sampler, policy, out, bounds, w);
}

GNNDIRECT_NAMESPACE_END
