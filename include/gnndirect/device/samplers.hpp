#pragma once
/// @file samplers.hpp
/// @brief Samplers as types: the sampler concept and the library's three samplers
/// (host-compilable types; their `sample` members are device code that a host compiler also
/// compiles, so the host tests run them with an emulated tile).
///
/// A sampler is the *behaviour* of neighbour sampling (which neighbours, with which random
/// stream and data); sampling_policy (core/sampling_policy.hpp) holds only tuning values.
/// Every sampling entry point is a template on the sampler: the tile primitive
/// sample_neighbors_tile (device/sample_neighbors_tile.cuh), sample_neighbors_async /
/// sample_neighbors, sample_blocks_async / sample_blocks, the GNN preparer and
/// minibatch_pipeline, so a framework's own sampler goes through every layer and only the sampler
/// in use is compiled. The host paths (host::cpu_sampler, the reference) take the library's
/// sampler types. A type `S` is a sampler when it is trivially copyable (kernels take it by
/// value) and has:
/// @code
///   static constexpr bool needs_weights;       // reads csr_view::weights (checked on the host)
///   // Scratch bytes one tile needs (16-byte multiple, may be 0). Host and device.
///   GNNDIRECT_HOST_DEVICE std::size_t scratch_bytes(int fanout, int tile_size) const;
///   // Samples up to `fanout` of the node's edges: calls out.emit(position, slot) for each kept
///   // edge (position in [0, edges.degree), slot in [0, fanout), each slot once) and returns the
///   // number of slots written, on every lane. All lanes of the tile call it together. `Tile` is
///   // a cooperative_groups::thread_block_tile<N> (N <= 32) or a dynamic_tile.
///   template <class Tile, class Offset, class Index>
///   GNNDIRECT_DEVICE std::int64_t sample(const Tile& tile, const csr_view<Offset, Index>& csr,
///                                        const node_edges<Offset>& edges, int fanout, int layer,
///                                        void* scratch,
///                                        const sampled_output<Offset, Index>& out) const;
///   // Optional: the same sampler on another random stream. The pipeline calls it once per batch
///   // (with batch_sampling_seed(options.seed, epoch, batch)) so that every batch draws
///   // fresh neighbours; a sampler without it is used unchanged for every batch.
///   S with_seed(std::uint64_t seed) const;
/// @endcode
/// The primitive handles fanout <= 0 (nothing sampled) before calling `sample`. A sampler carries
/// its own data (seed, per-edge arrays, query times, ...); `edges.row` is the node's position in
/// the call's seed array, for per-row data. The library's temporal samplers (PyG's 'uniform' and
/// 'last', edge or node times, excluded edges) are temporal_sampler in
/// device/temporal_samplers.hpp; multi-layer temporal sampling, whose query times change per
/// layer, goes through sample_temporal_blocks_async. Examples of user-written samplers (the
/// most recent neighbours before a per-node query time, for temporal GNNs), each checked against
/// a host implementation written in the test: test/gpu/test_device_layer.cu ("a user-written
/// sampler ... through the bulk call", one hop); test/support/temporal_sampler.cuh, a tile-generic
/// one, through three-layer sample_blocks_async in test/gpu/test_blocks_async.cu ("a user-written
/// temporal sampler drives three-layer sample_blocks_async ...") and through the pipeline in
/// test/gpu/test_pipeline.cu ("minibatch_pipeline with a user-written temporal sampler ...");
/// examples/custom_sampler.cu is a complete program.
///
/// The library's samplers reproduce the host reference (reference/sample_reference.hpp) bit for
/// bit. Semantics (random numbers: Philox4x32-10 keyed by the sampler's seed with counter (layer,
/// node id, draw), core/philox.hpp; they never depend on the launch configuration or on a
/// seed's position in the batch, so a node that appears twice in a batch gets the same
/// neighbours both times: DGL's "deterministic per node" behaviour):
/// - uniform_sampler (without replacement): degree <= fanout: all neighbours in stored order.
///   Otherwise Floyd's algorithm picks `fanout` distinct positions (draw j = 0..fanout-1 picks
///   uniformly in [0, degree - fanout + j]; on a collision it takes degree - fanout + j); the
///   result is emitted in increasing position (stored) order.
/// - uniform_with_replacement_sampler: `fanout` independent uniform positions (draw j for slot
///   j), in draw order, even when degree < fanout; degree 0 gives nothing.
/// - weighted_sampler (without replacement, Efraimidis-Spirakis): the edge at position p with
///   weight w > 0 gets the exponential key -log2(u_p) / w (u_p from draw p; the log is an exact
///   fixed-point integer computation and the division one correctly rounded double division, so
///   host and GPU agree bitwise). The `fanout` smallest (key, position) pairs win, emitted in
///   stored order; edges with w <= 0 or NaN are never chosen; degree <= fanout: all edges with
///   w > 0, in stored order.

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/device/sampled_output.hpp>

#include <gnndirect/detail/device/sample_tile.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

/// Rounds a scratch size up to the 16-byte multiple every sampler reports.
/// @param bytes the size  @return it rounded up
GNNDIRECT_HOST_DEVICE constexpr std::size_t round_scratch(std::size_t bytes) noexcept
{
  return (bytes + 15) / 16 * 16;
}

/// Entries of the weighted sampler's candidate buffer (it needs two such areas): room for the
/// fanout kept plus at least one full step, and as many again so that reductions stay rare.
/// @param fanout draws per node  @param tile_size threads per tile  @return the entries
GNNDIRECT_HOST_DEVICE constexpr std::int64_t weighted_buffer_capacity(int fanout, int tile_size) noexcept
{
  return 2 * std::int64_t{fanout} + tile_size;
}

/// Uniform without replacement (Floyd's algorithm; all neighbours when degree <= fanout).
struct uniform_sampler {
  static constexpr bool needs_weights = false;  ///< reads no edge weights
  std::uint64_t seed{0};  ///< Philox key

  /// The same sampler keyed by `new_seed` (the pipeline's per-batch stream).
  /// @param new_seed the key  @return the sampler
  constexpr uniform_sampler with_seed(std::uint64_t new_seed) const noexcept { return {new_seed}; }
  /// fanout positions (int64) per tile.  @param fanout draws per node (the tile size is unused)
  /// @return the bytes
  GNNDIRECT_HOST_DEVICE std::size_t scratch_bytes(int fanout, int /*tile_size*/) const noexcept;
  /// See the sampler concept (file comment). @tparam Tile cg tile or dynamic_tile
  /// @tparam Offset, Index the graph's offset (and edge id) and node id types
  /// @param tile the calling tile  @param edges the node's edges  @param fanout draws
  /// @param layer hop index
  /// @param scratch scratch_bytes() bytes for the tile  @param out where the sample goes
  /// @return the number of neighbours written (the graph argument is unnamed: unused)
  template <class Tile, class Offset, class Index>
  GNNDIRECT_DEVICE std::int64_t sample(const Tile& tile, const csr_view<Offset, Index>& /*csr*/,
                                       const node_edges<Offset>& edges, int fanout, int layer,
                                       void* scratch, const sampled_output<Offset, Index>& out) const;
};

/// Uniform with replacement: exactly fanout independent draws (none when degree is 0).
struct uniform_with_replacement_sampler {
  static constexpr bool needs_weights = false;  ///< reads no edge weights
  std::uint64_t seed{0};  ///< Philox key

  /// The same sampler keyed by `new_seed` (the pipeline's per-batch stream).
  /// @param new_seed the key  @return the sampler
  constexpr uniform_with_replacement_sampler with_seed(std::uint64_t new_seed) const noexcept
  {
    return {new_seed};
  }
  /// No scratch (both arguments unused).  @return 0
  GNNDIRECT_HOST_DEVICE std::size_t scratch_bytes(int /*fanout*/, int /*tile_size*/) const noexcept;
  /// See the sampler concept (file comment). @tparam Tile cg tile or dynamic_tile
  /// @tparam Offset, Index the graph's offset (and edge id) and node id types
  /// @param tile the calling tile  @param edges the node's edges  @param fanout draws
  /// @param layer hop index
  /// @param out where the sample goes  @return the number of neighbours written (fanout, or 0 for
  /// a node without edges; the graph and scratch arguments are unnamed: unused)
  template <class Tile, class Offset, class Index>
  GNNDIRECT_DEVICE std::int64_t sample(const Tile& tile, const csr_view<Offset, Index>& /*csr*/,
                                       const node_edges<Offset>& edges, int fanout, int layer,
                                       void* /*scratch*/, const sampled_output<Offset, Index>& out) const;
};

/// Weighted without replacement by csr_view::weights (Efraimidis-Spirakis keys).
struct weighted_sampler {
  static constexpr bool needs_weights = true;  ///< reads csr.weights
  std::uint64_t seed{0};  ///< Philox key

  /// The same sampler keyed by `new_seed` (the pipeline's per-batch stream).
  /// @param new_seed the key  @return the sampler
  constexpr weighted_sampler with_seed(std::uint64_t new_seed) const noexcept { return {new_seed}; }
  /// Two candidate buffers of weighted_buffer_capacity entries per tile (16 bytes each).
  /// @param fanout draws per node  @param tile_size threads per tile  @return the bytes
  GNNDIRECT_HOST_DEVICE std::size_t scratch_bytes(int fanout, int tile_size) const noexcept;
  /// See the sampler concept (file comment). @tparam Tile cg tile or dynamic_tile
  /// @tparam Offset, Index the graph's offset (and edge id) and node id types
  /// @param tile the calling tile  @param edges the node's edges  @param fanout draws
  /// @param layer hop index
  /// @param csr the graph (its weights)  @param scratch scratch_bytes() bytes for the tile
  /// @param out where the sample goes  @return the number of neighbours written
  template <class Tile, class Offset, class Index>
  GNNDIRECT_DEVICE std::int64_t sample(const Tile& tile, const csr_view<Offset, Index>& csr,
                                       const node_edges<Offset>& edges, int fanout, int layer,
                                       void* scratch, const sampled_output<Offset, Index>& out) const;
};

/// True when `S` has the host-visible part of the sampler concept (needs_weights, scratch_bytes)
/// and is trivially copyable; `sample` is checked where the kernel instantiates it.
/// @tparam S the type to test
template <class S, class = void>
struct is_sampler : std::false_type {};

/// The case where both members exist: S must also be trivially copyable.
/// @tparam S the type to test
template <class S>
struct is_sampler<S, std::void_t<decltype(S::needs_weights),
                                 decltype(std::declval<const S&>().scratch_bytes(1, 32))>>
  : std::bool_constant<std::is_trivially_copyable_v<S>> {};

/// Shorthand for is_sampler<S>::value.  @tparam S the type to test
template <class S>
inline constexpr bool is_sampler_v = is_sampler<S>::value;

/// True when `S` has the optional member `S with_seed(std::uint64_t) const`.
/// @tparam S the type to test
template <class S, class = void>
struct has_with_seed : std::false_type {};

/// The case where with_seed exists: it must return S.  @tparam S the type to test
template <class S>
struct has_with_seed<S, std::void_t<decltype(std::declval<const S&>().with_seed(std::uint64_t{}))>>
  : std::is_same<decltype(std::declval<const S&>().with_seed(std::uint64_t{})), S> {};

/// `sampler.with_seed(seed)` when the sampler has it, else `sampler` unchanged (how the pipeline
/// gives each batch its own random stream). Host.
/// @tparam S the sampler type  @param sampler the sampler  @param seed the new key
/// @return the sampler
template <class S>
constexpr S reseeded(const S& sampler, std::uint64_t seed)
{
  if constexpr (has_with_seed<S>::value) {
    return sampler.with_seed(seed);
  } else {
    (void)seed;
    return sampler;
  }
}

static_assert(is_sampler_v<uniform_sampler> && is_sampler_v<uniform_with_replacement_sampler> &&
              is_sampler_v<weighted_sampler>);
static_assert(has_with_seed<uniform_sampler>::value && has_with_seed<weighted_sampler>::value);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/device/samplers.inl>
