#pragma once
// Definitions of device/samplers.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

GNNDIRECT_HOST_DEVICE inline auto uniform_sampler::scratch_bytes(
  int fanout, int /*tile_size*/) const noexcept -> std::size_t
{
  return round_scratch(static_cast<std::size_t>(fanout) * sizeof(std::int64_t));
}

template <class Tile, class Offset, class Index>
GNNDIRECT_DEVICE auto uniform_sampler::sample(
  const Tile& tile, const csr_view<Offset, Index>& /*csr*/, const node_edges<Offset>& edges, int fanout, int layer,
  void* scratch, const sampled_output<Offset, Index>& out) const -> std::int64_t
{
  if (edges.degree <= fanout) { return detail::take_all(tile, out, edges.degree); }
  return detail::sample_floyd(tile, out, seed, static_cast<std::uint32_t>(layer),
                              static_cast<std::uint64_t>(edges.node), edges.degree,
                              std::int64_t{fanout}, static_cast<std::int64_t*>(scratch));
}

GNNDIRECT_HOST_DEVICE inline auto uniform_with_replacement_sampler::scratch_bytes(
  int /*fanout*/, int /*tile_size*/) const noexcept -> std::size_t
{
  return 0;
}

template <class Tile, class Offset, class Index>
GNNDIRECT_DEVICE auto uniform_with_replacement_sampler::sample(
  const Tile& tile, const csr_view<Offset, Index>& /*csr*/, const node_edges<Offset>& edges, int fanout, int layer,
  void* /*scratch*/, const sampled_output<Offset, Index>& out) const -> std::int64_t
{
  return detail::sample_with_replacement(tile, out, seed, static_cast<std::uint32_t>(layer),
                                         static_cast<std::uint64_t>(edges.node), edges.degree,
                                         std::int64_t{fanout});
}

GNNDIRECT_HOST_DEVICE inline auto weighted_sampler::scratch_bytes(
  int fanout, int tile_size) const noexcept -> std::size_t
{
  return round_scratch(2 * static_cast<std::size_t>(weighted_buffer_capacity(fanout, tile_size)) *
                       (sizeof(std::uint64_t) + sizeof(std::int64_t)));
}

template <class Tile, class Offset, class Index>
GNNDIRECT_DEVICE auto weighted_sampler::sample(
  const Tile& tile, const csr_view<Offset, Index>& csr, const node_edges<Offset>& edges, int fanout, int layer,
  void* scratch, const sampled_output<Offset, Index>& out) const -> std::int64_t
{
  static_assert(sizeof(detail::keyed_position) == sizeof(std::uint64_t) + sizeof(std::int64_t));
  const float* const weights = csr.weights + edges.first;
  if (edges.degree <= fanout) { return detail::take_eligible(tile, out, weights, edges.degree); }
  return detail::sample_weighted(tile, out, weights, seed, static_cast<std::uint32_t>(layer),
                                 static_cast<std::uint64_t>(edges.node), edges.degree,
                                 std::int64_t{fanout},
                                 weighted_buffer_capacity(fanout, static_cast<int>(tile.num_threads())),
                                 static_cast<detail::keyed_position*>(scratch));
}

GNNDIRECT_NAMESPACE_END
