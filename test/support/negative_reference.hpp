#pragma once
// Host implementation of negative sampling (algorithms/negative_sampling.hpp's semantics), written
// from the documented counter layout with the public philox4x32_10 and uniform_below alone, and a
// random graph with sorted neighbour lists for the tests (node 0 is connected to every node, so
// strict draws from it never resolve). A graph may be bipartite (a typed relation's out-CSR):
// `nodes` source rows, destination ids in [0, num_dst).
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/philox.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace gnndirect::test {

/// Sorted, duplicate-free neighbour lists; node 0 links to every destination. `num_dst` (-1:
/// `nodes`) is the destination range (bipartite when it differs).
template <class Offset, class Index>
struct sorted_graph {
  std::vector<Offset> indptr{0};
  std::vector<Index> indices;
  std::int64_t num_dst{0};

  sorted_graph(std::mt19937_64& rng, std::int64_t nodes, std::int64_t dst_nodes = -1)
    : num_dst(dst_nodes < 0 ? nodes : dst_nodes)
  {
    for (std::int64_t v = 0; v < nodes; ++v) {
      std::vector<Index> list;
      if (v == 0) {
        for (std::int64_t u = 0; u < num_dst; ++u) { list.push_back(static_cast<Index>(u)); }
      } else {
        auto const degree = rng() % 100 < 10 ? 0 : rng() % 40;
        for (std::uint64_t e = 0; e < degree; ++e) { list.push_back(static_cast<Index>(rng() % static_cast<std::uint64_t>(num_dst))); }
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
      }
      for (Index u : list) { indices.push_back(u); }
      indptr.push_back(static_cast<Offset>(indices.size()));
    }
  }
  csr_view<Offset, Index> view() const
  {
    csr_view<Offset, Index> csr;
    csr.indptr = indptr.data();
    csr.indices = indices.data();
    csr.num_nodes = static_cast<std::int64_t>(indptr.size()) - 1;
    csr.num_edges = static_cast<std::int64_t>(indices.size());
    return csr;
  }
  bool has(std::int64_t s, std::int64_t d) const
  {
    return std::binary_search(indices.begin() + indptr[static_cast<std::size_t>(s)],
                              indices.begin() + indptr[static_cast<std::size_t>(s) + 1], static_cast<Index>(d));
  }
};

/// What the oracle returns: the pairs and the number of unresolved strict draws.
template <class Index>
struct negative_result {
  std::vector<Index> src, dst;
  std::int64_t unresolved{0};
};

/// Negatives of `num_pos` positives: binary (triplet_amount 0; count ceil(amount * num_pos)) or
/// triplet (triplet_amount per positive), sources uniform over the rows and destinations over
/// [0, g.num_dst), strict with `attempts` draws.
template <class Offset, class Index>
negative_result<Index> negatives_reference(const sorted_graph<Offset, Index>& g, const std::vector<Index>& pos_src,
                                           double binary_amount, std::int64_t triplet_amount, std::uint64_t seed,
                                           std::int64_t batch, bool strict, int attempts)
{
  auto const num_pos = static_cast<std::int64_t>(pos_src.size());
  std::int64_t const num_neg = triplet_amount > 0 ? triplet_amount * num_pos
                                                  : static_cast<std::int64_t>(std::ceil(binary_amount * static_cast<double>(num_pos)));
  auto const n = static_cast<std::uint64_t>(g.indptr.size() - 1);
  auto const m = static_cast<std::uint64_t>(g.num_dst);
  negative_result<Index> r;
  for (std::int64_t k = 0; k < num_neg; ++k) {
    std::int64_t s = 0, d = 0;
    bool open = true;
    for (int a = 0; a < (strict ? attempts : 1); ++a) {
      auto const block = gnndirect::philox4x32_10(
        gnndirect::philox_block{{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(k >> 32),
                                 static_cast<std::uint32_t>(batch), static_cast<std::uint32_t>(a)}},
        gnndirect::philox_key{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
      std::uint64_t const low = (std::uint64_t{block.v[1]} << 32) | block.v[0];
      std::uint64_t const high = (std::uint64_t{block.v[3]} << 32) | block.v[2];
      s = triplet_amount > 0 ? static_cast<std::int64_t>(pos_src[static_cast<std::size_t>(k / triplet_amount)])
                             : static_cast<std::int64_t>(gnndirect::uniform_below(low, n));
      d = static_cast<std::int64_t>(gnndirect::uniform_below(high, m));
      if (!strict || !g.has(s, d)) {
        open = false;
        break;
      }
    }
    r.unresolved += strict && open ? 1 : 0;
    r.src.push_back(static_cast<Index>(s));
    r.dst.push_back(static_cast<Index>(d));
  }
  return r;
}

}  // namespace gnndirect::test
