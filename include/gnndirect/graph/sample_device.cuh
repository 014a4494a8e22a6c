#pragma once
/// @file sample_device.cuh
/// @brief Device primitive: sample up to k neighbours of one node with a tile of threads, for use
/// inside any kernel (a framework's own loader kernel, or the bulk sample_neighbors).
///
/// Semantics and random numbers are those of graph/sampling_policy.hpp, so results equal the host
/// reference (host/sample_reference.hpp) bit for bit. Neighbour ids are read with consecutive
/// lanes on consecutive positions where the algorithm allows it (all-neighbour and weighted
/// streams); random picks read one id per lane.
///
/// @code
///   __global__ void my_loader(csr_view<std::int64_t, std::int64_t> csr, ...) {
///     extern __shared__ unsigned char scratch[];       // tiles_per_block * scratch_bytes
///     auto tile = gnndirect::make_sampling_tile(16);
///     void* mine = scratch + (threadIdx.x / 16) * scratch_bytes;
///     std::int64_t n = gnndirect::sample_neighbors_tile(tile, csr, node, 10, 0, policy, mine,
///                                                       out_ids, out_eids);
///   }
/// @endcode

#include <gnndirect/config.hpp>
#include <gnndirect/detail/graph/sample_tile.cuh>
#include <gnndirect/detail/graph/tile.cuh>
#include <gnndirect/graph/sampling_policy.hpp>
#include <gnndirect/views/csr_view.hpp>

#include <cstddef>
#include <cstdint>

namespace gnndirect {

/// A group of 1..32 consecutive lanes of one warp that samples one node together.
using sampling_tile = detail::warp_tile;

#if defined(__CUDACC__)
/// The calling thread's tile of `size` lanes (power of two <= 32); tiles are consecutive
/// threadIdx.x ranges, and blockDim.x must be a multiple of 32. Device only.
GNNDIRECT_DEVICE inline sampling_tile make_sampling_tile(int size) noexcept
{
  return sampling_tile::of_calling_thread(size);
}
#endif

/// Bytes of scratch one tile needs for sample_neighbors_tile (16-byte multiple; 0 for sampling
/// with replacement). Shared memory is the natural place; any device-visible memory works.
/// @param kind sampling kind  @param fanout k  @param tile_size lanes of the tile
GNNDIRECT_HOST_DEVICE constexpr std::size_t sample_scratch_bytes(sampling_kind kind, int fanout,
                                                                 int tile_size) noexcept
{
  std::size_t bytes = 0;
  switch (kind) {
    case sampling_kind::uniform_without_replacement:
      bytes = static_cast<std::size_t>(fanout) * sizeof(std::int64_t);
      break;
    case sampling_kind::uniform_with_replacement: bytes = 0; break;
    case sampling_kind::weighted_without_replacement:
      bytes = 2 * static_cast<std::size_t>(detail::weighted_buffer_capacity(fanout, tile_size)) *
              sizeof(detail::keyed_position);
      break;
  }
  return (bytes + 15) / 16 * 16;
}

#if defined(__CUDACC__)
/// Samples up to `fanout` neighbours of `node` with the tile and writes them to
/// out_neighbors[0, count) and (if not null) their edge ids to out_edge_ids[0, count).
///
/// All lanes of the tile must call it together with identical arguments. Returns the count on
/// every lane. Never throws and never reads outside node's neighbour list.
/// @param tile the calling tile  @param csr device-visible graph (any placement)
/// @param node a valid node id (0 <= node < csr.num_nodes; the caller checks)
/// @param fanout k >= 0  @param layer random counter layer  @param policy kind and seed
/// @param scratch sample_scratch_bytes(policy.kind, fanout, tile.size) bytes, 8-byte aligned,
///        private to the tile; reusable after return
/// @param out_neighbors room for `fanout` ids  @param out_edge_ids room for `fanout` ids, or null
template <class Offset, class Index>
GNNDIRECT_DEVICE std::int64_t sample_neighbors_tile(const sampling_tile& tile,
                                                    const csr_view<Offset, Index>& csr,
                                                    std::int64_t node, int fanout, int layer,
                                                    const sampling_policy& policy, void* scratch,
                                                    Index* out_neighbors, Offset* out_edge_ids)
{
  if (fanout <= 0) { return 0; }  // every kind samples nothing; the weighted stream needs k >= 1
  Offset const first = csr.indptr[node];
  std::int64_t const degree = static_cast<std::int64_t>(csr.indptr[node + 1] - first);
  detail::node_output<Offset, Index> const out{csr.indices, csr.edge_ids, first, out_neighbors,
                                                 out_edge_ids};
  auto const counter_layer = static_cast<std::uint32_t>(layer);
  auto const counter_node = static_cast<std::uint64_t>(node);
  switch (policy.kind) {
    case sampling_kind::uniform_without_replacement:
      if (degree <= fanout) { return detail::take_all(tile, out, degree); }
      return detail::sample_floyd(tile, out, policy.seed, counter_layer, counter_node, degree,
                                  std::int64_t{fanout}, static_cast<std::int64_t*>(scratch));
    case sampling_kind::uniform_with_replacement:
      return detail::sample_with_replacement(tile, out, policy.seed, counter_layer, counter_node,
                                             degree, std::int64_t{fanout});
    case sampling_kind::weighted_without_replacement:
      if (degree <= fanout) { return detail::take_eligible(tile, out, csr.weights + first, degree); }
      return detail::sample_weighted(tile, out, csr.weights + first, policy.seed, counter_layer,
                                     counter_node, degree, std::int64_t{fanout},
                                     detail::weighted_buffer_capacity(fanout, tile.size),
                                     static_cast<detail::keyed_position*>(scratch));
  }
  return 0;
}
#endif

}  // namespace gnndirect
