// The sampling arithmetic that the GPU sampler and the host reference share
// (detail/core/sampling_math.hpp) checked against expectations computed independently here from
// the documented definitions: Philox4x32-10 (verified by known-answer tests in test_philox.cpp),
// 128-bit products, textbook Floyd with a std::set, and long-double logarithms for weighted keys.
// So "GPU equals host reference bit for bit" cannot hide an error both of them share.
#include <doctest/doctest.h>

#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/philox.hpp>
#include <gnndirect/reference/sample_reference.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang extension: an exact 128-bit product

/// The documented draw: Philox4x32-10 keyed by the seed, counter {draw, layer, node lo, node hi},
/// words 0 and 1 as one 64-bit value.
std::uint64_t documented_bits(std::uint64_t seed, std::uint32_t layer, std::uint64_t node, std::uint32_t draw)
{
  gnndirect::philox_block const counter{{draw, layer, static_cast<std::uint32_t>(node),
                                         static_cast<std::uint32_t>(node >> 32)}};
  gnndirect::philox_key const key{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)};
  gnndirect::philox_block const b = gnndirect::philox4x32_10(counter, key);
  return (std::uint64_t{b.v[1]} << 32) | b.v[0];
}

/// A uniform integer in [0, n) by the documented multiply-high.
std::int64_t documented_below(std::uint64_t bits, std::uint64_t n)
{
  return static_cast<std::int64_t>((u128{bits} * n) >> 64);
}

struct small_graph {
  std::vector<std::int64_t> indptr{0}, indices;
  std::vector<float> weights;
  gnndirect::csr_view<std::int64_t, std::int64_t> view() const
  {
    gnndirect::csr_view<std::int64_t, std::int64_t> v;
    v.indptr = indptr.data();
    v.indices = indices.data();
    v.weights = weights.data();
    v.num_nodes = static_cast<std::int64_t>(indptr.size()) - 1;
    v.num_edges = static_cast<std::int64_t>(indices.size());
    return v;
  }
};

small_graph make_graph(std::mt19937_64& rng, std::int64_t nodes)
{
  small_graph g;
  for (std::int64_t v = 0; v < nodes; ++v) {
    auto const degree = static_cast<std::int64_t>(rng() % 60);
    for (std::int64_t e = 0; e < degree; ++e) {
      g.indices.push_back(static_cast<std::int64_t>(rng() % 1000000));  // ids identify positions
      g.weights.push_back(rng() % 7 == 0 ? 0.0f : static_cast<float>(rng() % 1000 + 1) / 37.0f);
    }
    g.indptr.push_back(static_cast<std::int64_t>(g.indices.size()));
  }
  return g;
}

/// The reference's sample of node i as a vector of neighbour ids.
template <class Sampler>
std::vector<std::int64_t> reference_sample(const small_graph& g, const std::vector<std::int64_t>& seeds,
                                           int fanout, const Sampler& policy, std::size_t i)
{
  auto const r = gnndirect::host::sample_neighbors_reference(g.view(), seeds.data(),
                                                             static_cast<std::int64_t>(seeds.size()), fanout, 3,
                                                             policy, 1);
  return {r.neighbors.begin() + r.offsets[i], r.neighbors.begin() + r.offsets[i + 1]};
}

}  // namespace

TEST_CASE("sampling arithmetic: the library's draws equal the documented definitions")
{
  std::mt19937_64 rng(std::random_device{}());
  for (int i = 0; i < 20000; ++i) {
    std::uint64_t const seed = rng(), node = rng() >> (i % 40);
    auto const layer = static_cast<std::uint32_t>(rng() % 4);
    auto const draw = static_cast<std::uint32_t>(rng() % 64);
    std::int64_t const degree = 1 + static_cast<std::int64_t>(rng() % (i % 2 ? 100 : 4000000000ull));
    std::uint64_t const bits = documented_bits(seed, layer, node, draw);
    CHECK(gnndirect::detail::replacement_draw(seed, layer, node, draw, degree) == documented_below(bits, degree));
    std::int64_t const fanout = 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(degree));
    if (draw < fanout && fanout < degree) {
      CHECK(gnndirect::detail::floyd_candidate(seed, layer, node, draw, degree, fanout) ==
            documented_below(bits, static_cast<std::uint64_t>(degree - fanout + draw + 1)));
    }
    float const weight = static_cast<float>(rng() % 100000 + 1) / 997.0f;
    std::uint64_t const key_bits = gnndirect::detail::weighted_key(seed, layer, node, draw, weight);
    double key = 0;
    std::memcpy(&key, &key_bits, sizeof(key));
    long double const u = (static_cast<long double>(static_cast<std::uint32_t>(bits)) + 1.0L) / 4294967296.0L;
    long double const expected = -std::log2(u) / weight * 4294967296.0L;  // 32 fraction bits
    CHECK(static_cast<double>(std::fabs(key - expected)) <= 1e-9 * static_cast<double>(expected) + 4.0 / weight);  // 2^-30 of -log2, as documented
  }
}

TEST_CASE("host reference sampling equals textbook algorithms driven by the documented draws")
{
  std::uint64_t const run_seed = std::random_device{}();
  CAPTURE(run_seed);
  std::mt19937_64 rng(run_seed);
  small_graph const g = make_graph(rng, 400);
  std::vector<std::int64_t> seeds(400);
  for (std::size_t v = 0; v < seeds.size(); ++v) { seeds[v] = static_cast<std::int64_t>(v); }
  std::uint64_t const seed = rng();
  for (int fanout : {1, 5, 17}) {
    for (std::size_t v = 0; v < seeds.size(); ++v) {
      std::int64_t const first = g.indptr[v], degree = g.indptr[v + 1] - first;
      // With replacement: slot j is draw j.
      std::vector<std::int64_t> with;
      for (int j = 0; degree > 0 && j < fanout; ++j) {
        with.push_back(g.indices[first + documented_below(documented_bits(seed, 3, v, j), degree)]);
      }
      CHECK(reference_sample(g, seeds, fanout, gnndirect::uniform_with_replacement_sampler{seed}, v) == with);
      // Without replacement: Floyd's algorithm with a set, emitted in position order.
      std::set<std::int64_t> chosen;
      if (degree <= fanout) {
        for (std::int64_t p = 0; p < degree; ++p) { chosen.insert(p); }
      } else {
        for (std::int64_t j = 0; j < fanout; ++j) {
          std::int64_t const top = degree - fanout + j;
          std::int64_t const t = documented_below(documented_bits(seed, 3, v, static_cast<std::uint32_t>(j)),
                                                  static_cast<std::uint64_t>(top + 1));
          chosen.insert(chosen.count(t) != 0 ? top : t);
        }
      }
      std::vector<std::int64_t> without;
      for (std::int64_t p : chosen) { without.push_back(g.indices[first + p]); }
      CHECK(reference_sample(g, seeds, fanout, gnndirect::uniform_sampler{seed}, v) ==
            without);
      // Weighted: the fanout smallest exponential keys among positive weights (skip near-ties).
      std::vector<std::pair<long double, std::int64_t>> keys;
      for (std::int64_t p = 0; p < degree; ++p) {
        float const w = g.weights[first + p];
        if (!(w > 0.0f)) { continue; }
        auto const r = static_cast<std::uint32_t>(documented_bits(seed, 3, v, static_cast<std::uint32_t>(p)));
        keys.emplace_back(-std::log2((static_cast<long double>(r) + 1.0L) / 4294967296.0L) / w, p);
      }
      std::sort(keys.begin(), keys.end());
      auto const keep = std::min<std::size_t>(keys.size(), static_cast<std::size_t>(fanout));
      if (keep < keys.size() && keys[keep].first - keys[keep - 1].first < 1e-6L * keys[keep].first) { continue; }
      std::vector<std::int64_t> positions;
      for (std::size_t k = 0; k < keep; ++k) { positions.push_back(keys[k].second); }
      std::sort(positions.begin(), positions.end());
      std::vector<std::int64_t> weighted;
      for (std::int64_t p : positions) { weighted.push_back(g.indices[first + p]); }
      CHECK(reference_sample(g, seeds, fanout, gnndirect::weighted_sampler{seed}, v) ==
            weighted);
    }
  }
}
