#pragma once
// Definitions of algorithms/sample_neighbors_async.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

inline std::size_t sample_neighbors_workspace_bytes(std::int64_t num_seeds)
{
  return detail::carve_sample_workspace(workspace_view{}, num_seeds).total;
}

template <class Offset, class Index, class Sampler>
void sample_neighbors_async(
  cudaStream_t stream, const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds, int fanout,
  int layer, const Sampler& sampler, const sampling_policy& policy, const sampled_slots_view<Offset, Index>& out,
  workspace_view ws)
{
  sample_neighbors_async(stream, csr, seeds, bounded_count{nullptr, num_seeds}, fanout, layer, sampler, policy,
                         out, ws);
}

template <class Offset, class Index, class Sampler>
void sample_neighbors_async(
  cudaStream_t stream, const csr_view<Offset, Index>& csr, const Index* seeds, bounded_count num_seeds, int fanout,
  int layer, const Sampler& sampler, const sampling_policy& policy, const sampled_slots_view<Offset, Index>& out,
  workspace_view ws)
{
  std::int64_t const bound = num_seeds.bound;
  detail::check_sample_arguments(csr, seeds, bound, fanout, sampler, policy);
  detail::enqueue_sample_neighbors(
    stream, csr.indptr, seeds, bound, fanout, policy.check_indices, out, ws,
    [&](detail::error_flag_ref flag, detail::error_flag_ref graph_flag, detail::sampler_flags sampler_flags) {
      detail::launch_sample_neighbors(stream, csr, seeds, bound, num_seeds.value, fanout, layer, sampler,
                                      policy, out.neighbors, out.edge_ids, out.counts, flag, graph_flag,
                                      sampler_flags);
    });
}

inline void sample_neighbors_check(cudaStream_t stream, workspace_view ws, std::int64_t num_nodes)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, "sample_neighbors_check: null workspace");
  detail::check_device_accessible(ws.data, 0, workspace_alignment, "workspace");
  detail::sample_flag(ws).throw_if_set(stream, "seeds", num_nodes);
  detail::throw_if_corrupt_list(stream, detail::sample_graph_flag(ws), "sample_neighbors");
  detail::sampler_flags const flags = detail::sample_sampler_flags(ws);
  detail::throw_if_sampler_failed(flags.count.read(stream), flags.slot.read(stream), "sample_neighbors", "seeds");
}

template <class Offset, class Index>
void compact_sampled_async(
  cudaStream_t stream, const sampled_slots_view<Offset, Index>& slots, std::int64_t num_seeds, int fanout,
  Index* neighbors, Offset* edge_ids)
{
  GNNDIRECT_EXPECTS(num_seeds >= 0 && fanout >= 0, "compact_sampled_async: negative num_seeds or fanout");
  detail::check_slots_capacity(slots, num_seeds, fanout, "compact_sampled_async", "slots");  // read
  detail::launch_compact_slots(stream, slots.neighbors, slots.edge_ids, slots.offsets, num_seeds,
                               fanout, neighbors, slots.edge_ids == nullptr ? nullptr : edge_ids);
}

GNNDIRECT_NAMESPACE_END
