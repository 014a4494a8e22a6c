#pragma once
/// @file sampling_policy.hpp
/// @brief How neighbours are sampled: kind, random seed, thread mapping, checks (host-compilable).
///
/// Semantics shared by the GPU sampler and the host reference (bit for bit):
/// - Random numbers come from Philox4x32-10 keyed by `seed` with counter (layer, node id, draw)
///   (see device/philox.hpp). They never depend on the launch configuration or on a seed's position
///   in the batch, so a node that appears twice in a batch gets the same neighbours both times.
///   This is DGL's "deterministic per node" behaviour; mini-batches differ through `seed`.
/// - uniform_without_replacement: degree <= fanout: all neighbours in stored order. Otherwise
///   Floyd's algorithm picks `fanout` distinct positions (draw j = 0..fanout-1 picks uniformly in
///   [0, degree - fanout + j]; on a collision it takes degree - fanout + j); the result is emitted in
///   increasing position (stored) order.
/// - uniform_with_replacement: `fanout` independent uniform positions (draw j for slot j), in
///   draw order, even when degree < fanout; degree 0 gives nothing.
/// - weighted_without_replacement: Efraimidis-Spirakis: the edge at position p of the list with
///   weight w > 0 gets the exponential key -log2(u_p) / w (u_p from draw p; the log is an exact
///   fixed-point integer computation and the division one correctly rounded double division, so
///   host and GPU agree bitwise). The `fanout` smallest (key, position) pairs win, emitted in
///   stored order; edges with w <= 0 or NaN are never chosen; degree <= fanout: all edges with
///   w > 0, in stored order.
/// Selections are therefore without duplicates for the two without-replacement kinds.

#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>

#include <cstdint>
#include <string>
#include <string_view>

GNNDIRECT_NAMESPACE_BEGIN

/// Which neighbours a sampler draws (see the file comment for the exact definitions).
enum class sampling_kind : std::uint8_t {
  uniform_without_replacement,  ///< up to fanout distinct neighbours, uniformly
  uniform_with_replacement,     ///< exactly fanout independent uniform draws (0 if degree is 0)
  weighted_without_replacement  ///< up to fanout distinct neighbours, by edge weight (A-ExpJ keys)
};

/// Stable lower-case name of a sampling kind.
constexpr std::string_view to_string(sampling_kind kind) noexcept
{
  switch (kind) {
    case sampling_kind::uniform_without_replacement: return "uniform_without_replacement";
    case sampling_kind::uniform_with_replacement: return "uniform_with_replacement";
    case sampling_kind::weighted_without_replacement: return "weighted_without_replacement";
  }
  return "unknown";
}

/// True when the kind reads csr_view::weights.
constexpr bool needs_weights(sampling_kind kind) noexcept
{
  return kind == sampling_kind::weighted_without_replacement;
}

/// True for a valid tile size: a power of two from 1 to 32 (a tile is part of one warp).
constexpr bool is_valid_tile_size(int tile_size) noexcept
{
  return tile_size >= 1 && tile_size <= 32 && (tile_size & (tile_size - 1)) == 0;
}

/// A sampling request's policy: what to draw, with which random stream, on how many threads.
/// Trivially copyable; passed by value to kernels.
struct sampling_policy {
  sampling_kind kind{sampling_kind::uniform_without_replacement};  ///< what to draw
  std::uint64_t seed{0};      ///< Philox key: same seed, same samples
  int tile_size{32};          ///< threads that sample one seed node together (power of 2, <= 32)
  int block_budget{0};        ///< at most this many thread blocks (0: no limit), to share the GPU
  bool check_seeds{true};     ///< check 0 <= seed < num_nodes on the device (index_out_of_range)
};

/// Compile-time policy: builds a sampling_policy whose tile size is checked by static_assert.
/// @tparam Kind sampling kind  @tparam TileSize threads per seed (power of two, 1..32)
template <sampling_kind Kind, int TileSize = 32>
constexpr sampling_policy make_sampling_policy(std::uint64_t seed) noexcept
{
  static_assert(is_valid_tile_size(TileSize),
                "make_sampling_policy: TileSize must be a power of two between 1 and 32 (a tile is "
                "a part of one warp)");
  return sampling_policy{Kind, seed, TileSize, 0, true};
}

/// Default policy for a fanout and a graph's mean degree: the smallest power-of-two tile that
/// covers min(fanout, mean degree) draws or reads in one step, at least 8 lanes (so a sector of
/// neighbour ids is read at once) and at most a warp. Pure, noexcept.
/// @param kind what to draw  @param seed random seed  @param fanout draws per node
/// @param mean_degree num_edges / num_nodes of the graph (any value >= 0)
constexpr sampling_policy select_sampling_policy(sampling_kind kind, std::uint64_t seed, int fanout,
                                                 double mean_degree) noexcept
{
  double const work = mean_degree < fanout ? mean_degree : static_cast<double>(fanout);
  int tile = 8;
  while (tile < 32 && tile < work) { tile *= 2; }
  return sampling_policy{kind, seed, tile, 0, true};
}

/// Checks a policy against a graph and a fanout before any work is enqueued.
/// @throws invalid_argument when fanout < 0, the tile size is not a power of two in [1, 32], the
/// block budget is negative, or a weighted kind meets a graph without weights.
template <class Offset, class Index>
void validate(const sampling_policy& policy, const csr_view<Offset, Index>& csr, int fanout)
{
  GNNDIRECT_EXPECTS(fanout >= 0, "sampling: fanout must be >= 0, got " + std::to_string(fanout));
  GNNDIRECT_EXPECTS(is_valid_tile_size(policy.tile_size),
                    "sampling_policy: tile_size must be a power of two in [1, 32], got " +
                      std::to_string(policy.tile_size));
  GNNDIRECT_EXPECTS(policy.block_budget >= 0, "sampling_policy: block_budget must be >= 0");
  GNNDIRECT_EXPECTS(!needs_weights(policy.kind) || csr.weights != nullptr || csr.num_edges == 0,
                    std::string("sampling_policy: ") + std::string(to_string(policy.kind)) +
                      " needs csr_view::weights");
  GNNDIRECT_EXPECTS(csr.num_nodes >= 0 && csr.num_edges >= 0, "sampling: negative graph size");
  GNNDIRECT_EXPECTS(csr.num_nodes == 0 || csr.indptr != nullptr, "sampling: null indptr");
  GNNDIRECT_EXPECTS(csr.num_edges == 0 || csr.indices != nullptr, "sampling: null indices");
}

static_assert(make_sampling_policy<sampling_kind::uniform_with_replacement, 8>(1).tile_size == 8);
static_assert(select_sampling_policy(sampling_kind::uniform_without_replacement, 0, 15, 25.0)
                .tile_size == 16);

GNNDIRECT_NAMESPACE_END
