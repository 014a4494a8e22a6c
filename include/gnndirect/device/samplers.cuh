#pragma once
/// @file samplers.cuh
/// @brief Samplers as types: the sampler concept and the library's three samplers (device code).
///
/// A sampler decides which of one node's neighbours a tile of threads keeps. The device primitive
/// sample_neighbors_tile<Sampler> (device/sample_neighbors_tile.cuh) and the bulk kernels are templates on
/// it, so a framework that inlines the primitive compiles only the sampler it uses, and can write
/// its own. A type `S` is a sampler when it is trivially copyable (kernels take it by value) and
/// has:
/// @code
///   static constexpr bool needs_weights;       // reads csr_view::weights (checked on the host)
///   // Scratch bytes one tile needs (16-byte multiple, may be 0). Host and device.
///   GNNDIRECT_HOST_DEVICE std::size_t scratch_bytes(int fanout, int tile_size) const;
///   // Samples up to `fanout` of the node's edges: calls out.emit(position, slot) for each kept
///   // edge (position in [0, edges.degree), slot in [0, fanout), each slot once) and returns the
///   // number of slots written, on every lane. All lanes of the tile call it together.
///   template <class Offset, class Index>
///   GNNDIRECT_DEVICE std::int64_t sample(const dynamic_tile& tile,
///                                        const csr_view<Offset, Index>& csr,
///                                        const node_edges<Offset>& edges, int fanout, int layer,
///                                        void* scratch,
///                                        const sampled_output<Offset, Index>& out) const;
/// @endcode
/// The primitive handles fanout <= 0 (nothing sampled) before calling `sample`. A sampler carries
/// its own data (seed, per-edge arrays, ...). test/gpu/test_sampling.cu has a user-written one
/// (the most recent neighbours before a per-node query time, for temporal GNNs) checked against a
/// host reference.
///
/// The library's samplers reproduce the host reference (reference/sample_reference.hpp) bit for bit;
/// their semantics are documented in algorithms/sampling_policy.hpp.

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/detail/device/sample_tile.cuh>
#include <gnndirect/device/dynamic_tile.cuh>
#include <gnndirect/device/sampled_output.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN


/// Rounds a scratch size up to the 16-byte multiple every sampler reports.
GNNDIRECT_HOST_DEVICE constexpr std::size_t round_scratch(std::size_t bytes) noexcept
{
  return (bytes + 15) / 16 * 16;
}

/// Uniform without replacement (Floyd's algorithm; all neighbours when degree <= fanout).
struct uniform_sampler {
  static constexpr bool needs_weights = false;
  std::uint64_t seed{0};  ///< Philox key

  /// fanout positions (int64) per tile.
  GNNDIRECT_HOST_DEVICE std::size_t scratch_bytes(int fanout, int /*tile_size*/) const noexcept
  {
    return round_scratch(static_cast<std::size_t>(fanout) * sizeof(std::int64_t));
  }
#if defined(__CUDACC__)
  /// See the sampler concept (file comment).
  template <class Offset, class Index>
  GNNDIRECT_DEVICE std::int64_t sample(const dynamic_tile& tile, const csr_view<Offset, Index>& /*csr*/,
                                       const node_edges<Offset>& edges, int fanout, int layer,
                                       void* scratch, const sampled_output<Offset, Index>& out) const
  {
    if (edges.degree <= fanout) { return detail::take_all(tile, out, edges.degree); }
    return detail::sample_floyd(tile, out, seed, static_cast<std::uint32_t>(layer),
                                static_cast<std::uint64_t>(edges.node), edges.degree,
                                std::int64_t{fanout}, static_cast<std::int64_t*>(scratch));
  }
#endif
};

/// Uniform with replacement: exactly fanout independent draws (none when degree is 0).
struct uniform_with_replacement_sampler {
  static constexpr bool needs_weights = false;
  std::uint64_t seed{0};  ///< Philox key

  /// No scratch.
  GNNDIRECT_HOST_DEVICE std::size_t scratch_bytes(int /*fanout*/, int /*tile_size*/) const noexcept
  {
    return 0;
  }
#if defined(__CUDACC__)
  /// See the sampler concept (file comment).
  template <class Offset, class Index>
  GNNDIRECT_DEVICE std::int64_t sample(const dynamic_tile& tile, const csr_view<Offset, Index>& /*csr*/,
                                       const node_edges<Offset>& edges, int fanout, int layer,
                                       void* /*scratch*/, const sampled_output<Offset, Index>& out) const
  {
    return detail::sample_with_replacement(tile, out, seed, static_cast<std::uint32_t>(layer),
                                           static_cast<std::uint64_t>(edges.node), edges.degree,
                                           std::int64_t{fanout});
  }
#endif
};

/// Weighted without replacement by csr_view::weights (Efraimidis-Spirakis keys).
struct weighted_sampler {
  static constexpr bool needs_weights = true;
  std::uint64_t seed{0};  ///< Philox key

  /// Two candidate buffers of weighted_buffer_capacity entries per tile.
  GNNDIRECT_HOST_DEVICE std::size_t scratch_bytes(int fanout, int tile_size) const noexcept
  {
    return round_scratch(2 * static_cast<std::size_t>(detail::weighted_buffer_capacity(fanout, tile_size)) *
                         sizeof(detail::keyed_position));
  }
#if defined(__CUDACC__)
  /// See the sampler concept (file comment).
  template <class Offset, class Index>
  GNNDIRECT_DEVICE std::int64_t sample(const dynamic_tile& tile, const csr_view<Offset, Index>& csr,
                                       const node_edges<Offset>& edges, int fanout, int layer,
                                       void* scratch, const sampled_output<Offset, Index>& out) const
  {
    const float* const weights = csr.weights + edges.first;
    if (edges.degree <= fanout) { return detail::take_eligible(tile, out, weights, edges.degree); }
    return detail::sample_weighted(tile, out, weights, seed, static_cast<std::uint32_t>(layer),
                                   static_cast<std::uint64_t>(edges.node), edges.degree,
                                   std::int64_t{fanout},
                                   detail::weighted_buffer_capacity(fanout, tile.size),
                                   static_cast<detail::keyed_position*>(scratch));
  }
#endif
};

/// True when `S` has the host-visible part of the sampler concept (needs_weights, scratch_bytes)
/// and is trivially copyable; `sample` is checked where the kernel instantiates it.
template <class S, class = void>
struct is_sampler : std::false_type {};

template <class S>
struct is_sampler<S, std::void_t<decltype(S::needs_weights),
                                 decltype(std::declval<const S&>().scratch_bytes(1, 32))>>
  : std::bool_constant<std::is_trivially_copyable_v<S>> {};

/// Shorthand for is_sampler<S>::value.
template <class S>
inline constexpr bool is_sampler_v = is_sampler<S>::value;

static_assert(is_sampler_v<uniform_sampler> && is_sampler_v<uniform_with_replacement_sampler> &&
              is_sampler_v<weighted_sampler>);

GNNDIRECT_NAMESPACE_END
