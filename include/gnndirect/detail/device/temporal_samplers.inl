#pragma once
// Definitions of device/temporal_samplers.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Strategy, class TimeForm>
GNNDIRECT_HOST_DEVICE auto temporal_sampler<Strategy, TimeForm>::scratch_bytes(
  int fanout, int tile_size) const noexcept -> std::size_t
{
  if constexpr (std::is_same_v<Strategy, temporal_uniform>) {
    (void)tile_size;
    return round_scratch(2 * static_cast<std::size_t>(fanout) * sizeof(std::int64_t));
  } else {
    return round_scratch(2 * static_cast<std::size_t>(weighted_buffer_capacity(fanout, tile_size)) *
                         (sizeof(std::uint64_t) + sizeof(std::int64_t)));
  }
}

template <class Strategy, class TimeForm>
template <class Tile, class Offset, class Index>
GNNDIRECT_DEVICE auto temporal_sampler<Strategy, TimeForm>::sample(
  const Tile& tile, const csr_view<Offset, Index>& csr, const node_edges<Offset>& edges, int fanout, int layer,
  void* scratch, const sampled_output<Offset, Index>& out) const -> std::int64_t
{
  if (edges.row < 0 || edges.row >= num_query_times) { return 0; }
  using eligible_t = detail::temporal_eligible<std::is_same_v<TimeForm, node_time>, Offset, Index>;
  eligible_t const eligible{std::is_same_v<TimeForm, node_time> ? times : times + edges.first,
                            num_times,
                            csr.indices + edges.first,
                            csr.edge_ids == nullptr ? nullptr : csr.edge_ids + edges.first,
                            edges.first,
                            excluded_edges,
                            num_excluded,
                            query_times[edges.row]};
  if constexpr (std::is_same_v<Strategy, temporal_uniform>) {
    return detail::sample_uniform_eligible(tile, out, eligible, seed, static_cast<std::uint32_t>(layer),
                                           static_cast<std::uint64_t>(edges.node), edges.degree,
                                           std::int64_t{fanout}, static_cast<std::int64_t*>(scratch));
  } else {
    return detail::sample_most_recent(
      tile, out, eligible, detail::time_of_eligible<eligible_t>{eligible}, edges.degree, std::int64_t{fanout},
      weighted_buffer_capacity(fanout, static_cast<int>(tile.num_threads())),
      static_cast<detail::keyed_position*>(scratch));
  }
}

GNNDIRECT_NAMESPACE_END
