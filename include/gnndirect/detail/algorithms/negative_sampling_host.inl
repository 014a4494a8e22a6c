#pragma once
// Definitions of algorithms/negative_sampling.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

GNNDIRECT_HOST_DEVICE constexpr std::int64_t negative_dst_count(const negative_options& options,
                                                                std::int64_t num_src) noexcept
{
  return options.num_dst_nodes < 0 ? num_src : options.num_dst_nodes;
}

template <class Index>
GNNDIRECT_HOST_DEVICE negative_pair<Index> uniform_negative_sampler::draw(std::uint64_t seed, std::int64_t batch,
                                                                          std::int64_t k, std::uint32_t attempt,
                                                                          std::int64_t num_src, std::int64_t num_dst,
                                                                          Index fixed_src) const noexcept
{
  philox_block const bits = philox4x32_10(
    philox_block{{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(static_cast<std::uint64_t>(k) >> 32),
                  static_cast<std::uint32_t>(batch), attempt}},
    philox_key{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
  std::uint64_t const low = (std::uint64_t{bits.v[1]} << 32) | bits.v[0];
  std::uint64_t const high = (std::uint64_t{bits.v[3]} << 32) | bits.v[2];
  Index const src =
    fixed_src >= 0 ? fixed_src : static_cast<Index>(uniform_below(low, static_cast<std::uint64_t>(num_src)));
  return {src, static_cast<Index>(uniform_below(high, static_cast<std::uint64_t>(num_dst)))};
}

template <class Index>
GNNDIRECT_HOST_DEVICE negative_pair<Index> uniform_negative_sampler::draw(std::uint64_t seed, std::int64_t batch,
                                                                          std::int64_t k, std::uint32_t attempt,
                                                                          std::int64_t num_nodes,
                                                                          Index fixed_src) const noexcept
{
  return draw<Index>(seed, batch, k, attempt, num_nodes, num_nodes, fixed_src);
}

template <class Mode>
std::int64_t negative_count(const Mode& mode, std::int64_t num_pos)
{
  static_assert(std::is_same_v<Mode, binary_negatives> || std::is_same_v<Mode, triplet_negatives>,
                "gnndirect negative sampling: Mode must be binary_negatives or triplet_negatives");
  GNNDIRECT_EXPECTS(num_pos >= 0, "negative sampling: num_pos must be >= 0");
  if constexpr (std::is_same_v<Mode, binary_negatives>) {
    GNNDIRECT_EXPECTS(mode.amount > 0.0, "negative sampling: binary amount (negatives per positive) must be > 0, got " +
                                           std::to_string(mode.amount));
    double const count = std::ceil(mode.amount * static_cast<double>(num_pos));
    GNNDIRECT_EXPECTS(count < 9.0e18, "negative sampling: amount * num_pos overflows int64");
    return static_cast<std::int64_t>(count);
  } else {
    GNNDIRECT_EXPECTS(mode.amount >= 1, "negative sampling: triplet amount (destinations per positive) must be "
                                        ">= 1, got " + std::to_string(mode.amount));
    GNNDIRECT_EXPECTS(num_pos == 0 || mode.amount <= std::numeric_limits<std::int64_t>::max() / num_pos,
                      "negative sampling: amount * num_pos overflows int64");
    return mode.amount * num_pos;
  }
}

template <class Mode, class Sampler, class Offset, class Index>
GNNDIRECT_HOST_DEVICE resolved_negative<Index> resolve_negative(const csr_view<Offset, Index>& csr, const Index* src,
                                                                const Mode& mode, const Sampler& sampler,
                                                                const negative_options& options, std::int64_t k)
{
  Index fixed = static_cast<Index>(-1);
  if constexpr (std::is_same_v<Mode, triplet_negatives>) { fixed = src[k / mode.amount]; }
  int const attempts = options.strict ? options.max_attempts : 1;
  negative_pair<Index> pair{fixed, fixed};
  for (int a = 0; a < attempts; ++a) {
    auto const attempt = static_cast<std::uint32_t>(a);
    if constexpr (detail::has_two_range_draw<Sampler, Index>::value) {
      pair = sampler.template draw<Index>(options.seed, options.batch, k, attempt, csr.num_nodes,
                                          negative_dst_count(options, csr.num_nodes), fixed);
    } else {
      pair = sampler.template draw<Index>(options.seed, options.batch, k, attempt, csr.num_nodes, fixed);
    }
    if (!options.strict || !detail::has_edge(csr, static_cast<std::int64_t>(pair.src), static_cast<std::int64_t>(pair.dst))) {
      return {pair, false};
    }
  }
  return {pair, true};
}

GNNDIRECT_NAMESPACE_END
