#pragma once
/// @file generate.hpp
/// @brief Internals of graph/generate.hpp: the per-edge draw (SplitMix64 streams, R-MAT levels,
/// id scrambling and folding) shared by the host and GPU generators (host and device code;
/// host-compilable; not part of the API).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/graph/generator_options.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mix with full avalanche.
GNNDIRECT_HOST_DEVICE constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept
{
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// High 64 bits of the 128-bit product a * b (same result on host and device).
GNNDIRECT_HOST_DEVICE inline std::uint64_t mul_high(std::uint64_t a, std::uint64_t b) noexcept
{
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  std::uint64_t const a_lo = a & 0xffffffffu, a_hi = a >> 32;
  std::uint64_t const b_lo = b & 0xffffffffu, b_hi = b >> 32;
  std::uint64_t const lo_lo = a_lo * b_lo;
  std::uint64_t const hi_lo = a_hi * b_lo;
  std::uint64_t const lo_hi = a_lo * b_hi;
  std::uint64_t const cross = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;
  return a_hi * b_hi + (hi_lo >> 32) + (cross >> 32);
#endif
}

/// Everything the per-edge draw needs, precomputed and checked once on the host (trivially
/// copyable: passed by value to kernels).
struct generator_plan {
  std::uint64_t edge_key;      ///< keys the endpoint streams
  std::uint64_t weight_key;    ///< keys the weight stream
  std::uint64_t scramble_key;  ///< keys the id permutation
  std::int64_t num_nodes;
  std::uint64_t threshold_a;    ///< 2^32 * a
  std::uint64_t threshold_ab;   ///< 2^32 * (a + b)
  std::uint64_t threshold_abc;  ///< 2^32 * (a + b + c)
  int scale;                    ///< R-MAT id bits: smallest k with 2^k >= num_nodes
  bool rmat;
  bool scramble;
  bool drop_self_loops;
  bool symmetrize;
};

/// Redraws allowed per edge before a self loop is broken deterministically (dst = src + 1 mod n).
inline constexpr int max_draw_attempts = 32;

/// A drawn edge.
struct drawn_edge {
  std::int64_t src;
  std::int64_t dst;
};

/// Independent 64-bit random words for (key, counter): word w is SplitMix64's w-th output from a
/// state derived from both.
struct random_stream {
  std::uint64_t base;
  GNNDIRECT_HOST_DEVICE random_stream(std::uint64_t key, std::uint64_t counter) noexcept
    : base(splitmix64(key ^ splitmix64(counter)))
  {
  }
  GNNDIRECT_HOST_DEVICE std::uint64_t word(std::uint64_t w) const noexcept
  {
    return splitmix64(base + w * 0x9E3779B97F4A7C15ull);
  }
};

/// A bijection on [0, 2^scale): xor with a key, then two multiply (odd) / xor-shift rounds, each
/// step invertible modulo 2^scale.
GNNDIRECT_HOST_DEVICE inline std::uint64_t scramble_id(std::uint64_t x, std::uint64_t key,
                                                       int scale) noexcept
{
  if (scale == 0) { return 0; }
  std::uint64_t const mask = (std::uint64_t{1} << scale) - 1;
  int const shift = (scale + 1) / 2;
  x = (x ^ key) & mask;
  x = (x * 0x9E3779B97F4A7C15ull) & mask;
  x ^= x >> shift;
  x = (x * 0xBF58476D1CE4E5B9ull) & mask;
  x ^= x >> shift;
  return x;
}

/// R-MAT endpoints in [0, 2^scale) of one attempt: one 32-bit uniform picks a quadrant per level
/// (two levels per 64-bit word), compared as integers so host and device agree exactly.
GNNDIRECT_HOST_DEVICE inline drawn_edge draw_rmat_ids(const generator_plan& plan,
                                                      const random_stream& stream,
                                                      std::uint64_t first_word) noexcept
{
  std::uint64_t src = 0;
  std::uint64_t dst = 0;
  std::uint64_t word = 0;
  for (int level = 0; level < plan.scale; ++level) {
    if ((level & 1) == 0) { word = stream.word(first_word + static_cast<std::uint64_t>(level / 2)); }
    std::uint64_t const u = (level & 1) == 0 ? (word & 0xffffffffu) : (word >> 32);
    bool const src_high = u >= plan.threshold_ab;  // quadrants c and d
    bool const dst_high = (u >= plan.threshold_a && u < plan.threshold_ab) || u >= plan.threshold_abc;
    src = src << 1 | static_cast<std::uint64_t>(src_high);
    dst = dst << 1 | static_cast<std::uint64_t>(dst_high);
  }
  return {static_cast<std::int64_t>(src), static_cast<std::int64_t>(dst)};
}

/// Folds an id of [0, 2^scale) onto [0, n): floor(id * n / 2^scale), no 128-bit type needed.
GNNDIRECT_HOST_DEVICE inline std::int64_t fold_id(std::uint64_t id, std::int64_t n, int scale) noexcept
{
  if (scale == 0) { return 0; }
  return static_cast<std::int64_t>(mul_high(id << (64 - scale), static_cast<std::uint64_t>(n)));
}

/// Endpoints of attempt `attempt` of drawn edge e.
GNNDIRECT_HOST_DEVICE inline drawn_edge draw_attempt(const generator_plan& plan,
                                                     const random_stream& stream,
                                                     int attempt) noexcept
{
  std::uint64_t const words_per_attempt = plan.rmat ? static_cast<std::uint64_t>(plan.scale + 1) / 2 : 2;
  std::uint64_t const first_word = static_cast<std::uint64_t>(attempt) * words_per_attempt;
  auto const n = static_cast<std::uint64_t>(plan.num_nodes);
  if (!plan.rmat) {
    return {static_cast<std::int64_t>(mul_high(stream.word(first_word), n)),
            static_cast<std::int64_t>(mul_high(stream.word(first_word + 1), n))};
  }
  drawn_edge ids = draw_rmat_ids(plan, stream, first_word);
  std::uint64_t src = static_cast<std::uint64_t>(ids.src);
  std::uint64_t dst = static_cast<std::uint64_t>(ids.dst);
  if (plan.scramble) {
    src = scramble_id(src, plan.scramble_key, plan.scale);
    dst = scramble_id(dst, plan.scramble_key, plan.scale);
  }
  return {fold_id(src, plan.num_nodes, plan.scale), fold_id(dst, plan.num_nodes, plan.scale)};
}

/// Endpoints of output edge j (drawn edge j, or j / 2 reversed for odd j when symmetrising).
GNNDIRECT_HOST_DEVICE inline drawn_edge generate_edge(const generator_plan& plan, std::int64_t j) noexcept
{
  std::int64_t const e = plan.symmetrize ? j / 2 : j;
  random_stream const stream(plan.edge_key, static_cast<std::uint64_t>(e));
  drawn_edge edge = draw_attempt(plan, stream, 0);
  for (int attempt = 1; plan.drop_self_loops && edge.src == edge.dst; ++attempt) {
    if (attempt == max_draw_attempts) {
      edge.dst = (edge.src + 1) % plan.num_nodes;
      break;
    }
    edge = draw_attempt(plan, stream, attempt);
  }
  if (plan.symmetrize && (j & 1) != 0) { return {edge.dst, edge.src}; }
  return edge;
}

/// Weight of output edge j: a 24-bit uniform in (0, 1], exact in float on host and device; both
/// directions of a symmetrised edge share it.
GNNDIRECT_HOST_DEVICE inline float generate_weight(const generator_plan& plan, std::int64_t j) noexcept
{
  std::int64_t const e = plan.symmetrize ? j / 2 : j;
  std::uint64_t const bits = random_stream(plan.weight_key, static_cast<std::uint64_t>(e)).word(0) >> 40;
  return static_cast<float>(bits + 1) * (1.0f / 16777216.0f);
}

/// 2^32 * p rounded, for integer comparison with 32-bit uniforms.
inline std::uint64_t probability_threshold(double p)
{
  return static_cast<std::uint64_t>(std::llround(std::ldexp(p, 32)));
}

/// Checks `options` for ids of type Index and precomputes the plan. @throws invalid_argument.
template <class Index>
generator_plan make_generator_plan(const generator_options& options)
{
  std::int64_t const n = options.num_nodes;
  std::int64_t const m = options.num_edges;
  GNNDIRECT_EXPECTS(n >= 0 && m >= 0, "generator: negative num_nodes or num_edges");
  GNNDIRECT_EXPECTS(m == 0 || n >= 1, "generator: edges need at least one node");
  GNNDIRECT_EXPECTS(n <= (std::int64_t{1} << 62), "generator: num_nodes above 2^62");
  GNNDIRECT_EXPECTS(n == 0 || n - 1 <= static_cast<std::int64_t>(std::numeric_limits<Index>::max()),
                    "generator: num_nodes " + std::to_string(n) + " exceeds the index type");
  GNNDIRECT_EXPECTS(!options.symmetrize || m <= std::numeric_limits<std::int64_t>::max() / 2,
                    "generator: num_edges too large to symmetrise");
  GNNDIRECT_EXPECTS(!options.drop_self_loops || m == 0 || n >= 2,
                    "generator: dropping self loops needs at least two nodes");
  rmat_parameters const& p = options.rmat;
  GNNDIRECT_EXPECTS(p.a >= 0 && p.b >= 0 && p.c >= 0 && p.a + p.b + p.c <= 1.0 + 1e-12,
                    "generator: R-MAT probabilities must be >= 0 with a + b + c <= 1");
  generator_plan plan{};
  plan.edge_key = splitmix64(options.seed);
  plan.weight_key = splitmix64(plan.edge_key ^ 0x5745494748545321ull);
  plan.scramble_key = splitmix64(plan.edge_key ^ 0x534352414D424C45ull);
  plan.num_nodes = n;
  plan.threshold_a = probability_threshold(p.a);
  plan.threshold_ab = probability_threshold(p.a + p.b);
  plan.threshold_abc = probability_threshold(p.a + p.b + p.c);
  while (plan.scale < 62 && (std::int64_t{1} << plan.scale) < n) { ++plan.scale; }
  plan.rmat = options.model == graph_model::rmat;
  plan.scramble = options.scramble_ids;
  plan.drop_self_loops = options.drop_self_loops;
  plan.symmetrize = options.symmetrize;
  return plan;
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
