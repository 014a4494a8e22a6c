#pragma once
// Definitions of core/sampling_policy.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

constexpr bool is_valid_tile_size(int tile_size) noexcept
{
  return tile_size >= 1 && tile_size <= 32 && (tile_size & (tile_size - 1)) == 0;
}

template <int TileSize>
constexpr sampling_policy make_sampling_policy() noexcept
{
  static_assert(is_valid_tile_size(TileSize),
                "make_sampling_policy: TileSize must be a power of two between 1 and 32 (a tile is "
                "a part of one warp)");
  return sampling_policy{TileSize, 0, true};
}

constexpr sampling_policy select_sampling_policy(int fanout, double mean_degree) noexcept
{
  double const work = mean_degree < fanout ? mean_degree : static_cast<double>(fanout);
  int tile = 8;
  while (tile < 32 && tile < work) { tile *= 2; }
  return sampling_policy{tile, 0, true};
}

template <class Sampler, class Offset, class Index>
void validate(const Sampler& /*sampler*/, const sampling_policy& policy,
              const csr_view<Offset, Index>& csr, int fanout)
{
  GNNDIRECT_EXPECTS(fanout >= 0, "sampling: fanout must be >= 0, got " + std::to_string(fanout));
  GNNDIRECT_EXPECTS(is_valid_tile_size(policy.tile_size),
                    "sampling_policy: tile_size must be a power of two in [1, 32], got " +
                      std::to_string(policy.tile_size));
  GNNDIRECT_EXPECTS(policy.max_blocks >= 0, "sampling_policy: max_blocks must be >= 0");
  GNNDIRECT_EXPECTS(!Sampler::needs_weights || csr.weights != nullptr || csr.num_edges == 0,
                    "sampling: the sampler needs csr_view::weights (its needs_weights is true) "
                    "and the graph has none");
  GNNDIRECT_EXPECTS(csr.num_nodes >= 0 && csr.num_edges >= 0, "sampling: negative graph size");
  GNNDIRECT_EXPECTS(csr.num_nodes == 0 || csr.indptr != nullptr, "sampling: null indptr");
  GNNDIRECT_EXPECTS(csr.num_edges == 0 || csr.indices != nullptr, "sampling: null indices");
}

static_assert(make_sampling_policy<8>().tile_size == 8);
static_assert(select_sampling_policy(15, 25.0).tile_size == 16);

GNNDIRECT_NAMESPACE_END
