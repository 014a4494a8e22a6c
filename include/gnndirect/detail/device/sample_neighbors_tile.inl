#pragma once
// Definitions of device/sample_neighbors_tile.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Sampler>
GNNDIRECT_HOST_DEVICE std::size_t sample_scratch_bytes(const Sampler& sampler, int fanout, int tile_size) noexcept
{
  return sampler.scratch_bytes(fanout, tile_size);
}

template <class Tile, class Sampler, class Offset, class Index>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE std::int64_t sample_neighbors_tile(
  const Tile& tile, const csr_view<Offset, Index>& csr, std::int64_t node, int fanout, int layer,
  const Sampler& sampler, void* scratch, detail::non_deduced_t<Index>* out_neighbors,
  detail::non_deduced_t<Offset>* out_edge_ids, std::int64_t row)
{
  static_assert(is_sampler_v<Sampler>,
                "gnndirect::sample_neighbors_tile: the sampler must model the sampler concept "
                "(device/samplers.hpp): needs_weights, scratch_bytes(fanout, tile_size), "
                "sample(tile, csr, edges, fanout, layer, scratch, out), trivially copyable");
  if (fanout <= 0) { return 0; }
  node_edges<Offset> edges = detail::neighbour_list(csr, node);
  if (edges.degree < 0) { return 0; }
  edges.row = row;
  return detail::sample_list(tile, csr, edges, fanout, layer, sampler, scratch, out_neighbors, out_edge_ids);
}

GNNDIRECT_NAMESPACE_END
