#pragma once
/// @file sample_neighbors_tile.cuh
/// @brief Device primitive: sample up to k neighbours of one node with a tile of threads, for use
/// inside any kernel (a framework's own loader kernel, or the bulk sample_neighbors).
///
/// The sampler is a type (device/samplers.hpp): the primitive compiles only the sampler it is
/// given, and a user's own sampler plugs in by modelling the sampler concept. The tile is any
/// cooperative_groups::thread_block_tile<N> (N <= 32) or a dynamic_tile (run-time size), as for
/// copy_row, so one fused kernel can sample and copy with the same tile. The library's
/// samplers give results equal to the host reference (reference/sample_reference.hpp) bit for bit.
/// Neighbour ids are read with consecutive lanes on consecutive positions where the algorithm
/// allows it (all-neighbour and weighted streams); random picks read one id per lane.
///
/// @code
///   __global__ void my_loader(gnndirect::csr_view<std::int64_t, std::int64_t> csr, ...) {
///     extern __shared__ unsigned char scratch[];       // tiles_per_block * per_tile bytes
///     auto tile = cooperative_groups::tiled_partition<16>(cooperative_groups::this_thread_block());
///     gnndirect::uniform_sampler const sampler{seed};
///     void* mine = scratch + (threadIdx.x / 16) * per_tile;   // sampler.scratch_bytes(10, 16)
///     std::int64_t n = gnndirect::sample_neighbors_tile(tile, csr, node, 10, 0, sampler, mine,
///                                                       out_ids, out_eids);
///   }
/// @endcode
/// examples/custom_loader.cu is a complete kernel that samples one hop and copies the sampled
/// rows with copy_row.

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/device/dynamic_tile.cuh>
#include <gnndirect/device/sampled_output.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/detail/device/sample_neighbors_tile.cuh>

#include <cstddef>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// Bytes of scratch one tile of `tile_size` lanes needs to sample `fanout` neighbours with
/// `sampler` (16-byte multiple). Shared memory is the natural place; any device-visible memory
/// works. Host and device.
/// @tparam Sampler a model of the sampler concept  @param sampler the sampler
/// @param fanout draws per node  @param tile_size threads per tile  @return the bytes
template <class Sampler>
GNNDIRECT_HOST_DEVICE std::size_t sample_scratch_bytes(const Sampler& sampler, int fanout,
                                                       int tile_size) noexcept;

/// Samples up to `fanout` neighbours of `node` with the tile and the sampler, and writes them to
/// out_neighbors[0, count) and (if not null) their edge ids to out_edge_ids[0, count).
///
/// All lanes of the tile must call it together with identical arguments. Returns the count on
/// every lane. A corrupt neighbour list (indptr decreasing at the node, or past the edge array)
/// gives 0 without reading it (the bulk kernels also report it). Never throws and never reads
/// outside node's neighbour list (for the library's samplers; a user's sampler is bound by the
/// concept).
/// @tparam Tile cooperative_groups::thread_block_tile<N> (N a power of two <= 32) or dynamic_tile
/// @tparam Sampler a model of the sampler concept (device/samplers.hpp)
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @param tile the calling tile (a cg tile, or dynamic_tile::of_calling_thread)
/// @param csr device-visible graph (any placement)
/// @param node a valid node id (0 <= node < csr.num_nodes; the caller checks)
/// @param fanout k (<= 0: nothing is sampled)  @param layer random counter layer
/// @param sampler a sampler (device/samplers.hpp)
/// @param scratch sample_scratch_bytes(sampler, fanout, tile.num_threads()) bytes, 8-byte aligned,
///        private to the tile; reusable after return
/// @param out_neighbors room for `fanout` ids  @param out_edge_ids room for `fanout` ids, or null
/// @param row the node's row (node_edges::row: its position in the caller's seed array, for
///        samplers that read per-row data such as temporal_sampler's query times), or -1
/// @return the number of neighbours written, on every lane
template <class Tile, class Sampler, class Offset, class Index>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE std::int64_t sample_neighbors_tile(
  const Tile& tile, const csr_view<Offset, Index>& csr, std::int64_t node, int fanout,
  int layer, const Sampler& sampler, void* scratch, detail::non_deduced_t<Index>* out_neighbors,
  detail::non_deduced_t<Offset>* out_edge_ids, std::int64_t row = -1);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/device/sample_neighbors_tile.inl>
