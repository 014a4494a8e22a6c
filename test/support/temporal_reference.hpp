#pragma once
// Host implementation of temporal neighbour sampling (one hop and blocks with inherited query
// times), written from the definitions in device/temporal_samplers.hpp and
// algorithms/sample_temporal_blocks_async.cuh alone: it uses only the public Philox functions
// (core/philox.hpp: sampling_random, uniform_below), no library sampling code, so it is an oracle for the GPU kernels and for the
// emulated-tile runs of the device code.
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/philox.hpp>
#include <gnndirect/reference/reference_blocks.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gnndirect::test {

/// Appends `from` to `to` element by element (GCC 12 under nvcc -O3 reports a false -Wnonnull
/// for std::vector's bulk copy of a possibly empty vector).
template <class T>
void append(std::vector<T>& to, const std::vector<T>& from)
{
  for (T const& x : from) { to.push_back(x); }
}

/// What the oracle samples: strategy, time form, seed, times and excluded edge ids (sorted).
struct temporal_setup {
  bool last{false};        ///< 'last' (else 'uniform')
  bool node_times{false};  ///< times per node (else per edge, CSR position order)
  std::uint64_t seed{0};
  std::vector<std::int64_t> times;
  std::vector<std::int64_t> excluded;  ///< sorted edge ids
};

/// A random graph with times for the temporal tests: degrees 0..~200 with two hubs (nodes 3 and
/// 7), optional shuffled edge ids, edge and node times in a small range (so ties occur) and
/// sorted excluded edge ids (about 1 in 8 edges).
template <class Offset, class Index>
struct temporal_graph {
  std::vector<Offset> indptr;
  std::vector<Index> indices;
  std::vector<Offset> edge_ids;
  std::vector<std::int64_t> edge_times, node_times, excluded;

  temporal_graph(std::mt19937_64& rng, std::int64_t nodes, bool with_edge_ids, std::int64_t time_range = 50)
  {
    indptr.push_back(0);
    for (std::int64_t v = 0; v < nodes; ++v) {
      auto const kind = rng() % 100;
      std::int64_t degree = v == 3   ? 3000 + static_cast<std::int64_t>(rng() % 3000)
                            : v == 7 ? 400 + static_cast<std::int64_t>(rng() % 800)
                            : kind < 10 ? 0
                            : kind < 70 ? static_cast<std::int64_t>(rng() % 24)
                                        : static_cast<std::int64_t>(rng() % 201);
      if (v >= nodes / 2 && v != 3 && v != 7) { degree = std::min<std::int64_t>(degree, 30); }
      indptr.push_back(static_cast<Offset>(indptr.back() + degree));
    }
    auto const edges = static_cast<std::size_t>(indptr.back());
    indices.resize(edges);
    edge_times.resize(edges);
    for (std::size_t e = 0; e < edges; ++e) {
      indices[e] = static_cast<Index>(rng() % static_cast<std::uint64_t>(nodes));
      edge_times[e] = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(time_range)) - time_range / 4;
    }
    node_times.resize(static_cast<std::size_t>(nodes));
    for (auto& t : node_times) { t = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(time_range)) - time_range / 4; }
    if (with_edge_ids) {
      edge_ids.resize(edges);
      std::iota(edge_ids.begin(), edge_ids.end(), Offset{0});
      std::shuffle(edge_ids.begin(), edge_ids.end(), rng);
    }
    for (std::size_t e = 0; e < edges; ++e) {
      if (rng() % 8 == 0) { excluded.push_back(static_cast<std::int64_t>(e)); }
    }
  }

  /// The graph with host addresses.
  csr_view<Offset, Index> view() const
  {
    csr_view<Offset, Index> csr;
    csr.indptr = indptr.data();
    csr.indices = indices.data();
    csr.edge_ids = edge_ids.empty() ? nullptr : edge_ids.data();
    csr.num_nodes = static_cast<std::int64_t>(indptr.size()) - 1;
    csr.num_edges = static_cast<std::int64_t>(indptr.back());
    csr.indptr_kind = gnndirect::memory_kind::pinned;
    csr.indices_kind = gnndirect::memory_kind::pinned;
    return csr;
  }
};

/// Positions (relative to the list's first edge) of node `node`'s sample at query time `limit`,
/// in stored order.
template <class Offset, class Index>
std::vector<std::int64_t> temporal_positions(const csr_view<Offset, Index>& csr, const temporal_setup& s,
                                             std::int64_t node, std::int64_t limit, int fanout, int layer)
{
  std::int64_t const first = csr.indptr[node];
  std::int64_t const degree = csr.indptr[node + 1] - first;
  std::vector<std::int64_t> eligible;
  auto time_of = [&](std::int64_t p) {
    return s.node_times ? s.times[static_cast<std::size_t>(csr.indices[first + p])]
                        : s.times[static_cast<std::size_t>(first + p)];
  };
  for (std::int64_t p = 0; p < degree; ++p) {
    auto const v = static_cast<std::int64_t>(csr.indices[first + p]);
    if (s.node_times && (v < 0 || v >= static_cast<std::int64_t>(s.times.size()))) { continue; }
    if (time_of(p) > limit) { continue; }
    std::int64_t const id = csr.edge_ids != nullptr ? static_cast<std::int64_t>(csr.edge_ids[first + p]) : first + p;
    if (std::binary_search(s.excluded.begin(), s.excluded.end(), id)) { continue; }
    eligible.push_back(p);
  }
  auto const n = static_cast<std::int64_t>(eligible.size());
  if (n <= fanout) { return eligible; }
  std::vector<std::int64_t> picked;
  if (s.last) {
    std::vector<std::int64_t> order;
    append(order, eligible);
    std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      return time_of(a) != time_of(b) ? time_of(a) > time_of(b) : a > b;
    });
    picked.assign(order.begin(), order.begin() + fanout);
  } else {
    // Floyd over ranks [0, n): draw j uniform in [0, n - fanout + j] by Lemire's multiply-high of
    // the block's low 64 bits; on a collision n - fanout + j.
    std::vector<std::int64_t> ranks;
    for (std::int64_t j = 0; j < fanout; ++j) {
      auto const bound = static_cast<std::uint64_t>(n - fanout + j + 1);
      auto const block = gnndirect::sampling_random(s.seed, static_cast<std::uint32_t>(layer),
                                                    static_cast<std::uint64_t>(node), static_cast<std::uint32_t>(j));
      auto const candidate = static_cast<std::int64_t>(gnndirect::uniform_below(gnndirect::random_bits64(block), bound));
      bool const taken = std::find(ranks.begin(), ranks.end(), candidate) != ranks.end();
      ranks.push_back(taken ? n - fanout + j : candidate);
    }
    for (std::int64_t r : ranks) { picked.push_back(eligible[static_cast<std::size_t>(r)]); }
  }
  std::sort(picked.begin(), picked.end());
  return picked;
}

/// Temporal blocks on the host: layer l samples its rows with their query times; the next
/// layer's rows are the src nodes (dst nodes first, then new nodes by first appearance; a
/// repeated dst id maps to its first row), each with the minimum of its own time (dst rows) and
/// the times of the rows that sampled it. `csr` holds host addresses. Also returns the query
/// times of every layer's rows.
template <class Offset, class Index>
gnndirect::host::reference_blocks<Offset, Index> temporal_blocks_reference(
  const csr_view<Offset, Index>& csr, const temporal_setup& s, const std::vector<Index>& seeds,
  const std::vector<std::int64_t>& seed_times, const std::vector<int>& fanouts,
  std::vector<std::vector<std::int64_t>>* row_times = nullptr)
{
  gnndirect::host::reference_blocks<Offset, Index> result;
  std::vector<Index> dst;
  append(dst, seeds);
  std::vector<std::int64_t> time;
  append(time, seed_times);
  for (std::size_t l = 0; l < fanouts.size(); ++l) {
    if (row_times != nullptr) {
      row_times->emplace_back();
      append(row_times->back(), time);
    }
    gnndirect::host::reference_block<Offset, Index> b;
    append(b.dst_nodes, dst);
    b.offsets.push_back(0);
    std::vector<Index> sampled;
    std::vector<std::size_t> sampled_row;
    for (std::size_t d = 0; d < dst.size(); ++d) {
      auto const node = static_cast<std::int64_t>(dst[d]);
      for (std::int64_t p : temporal_positions(csr, s, node, time[d], fanouts[l], static_cast<int>(l))) {
        std::int64_t const e = csr.indptr[node] + p;
        sampled.push_back(csr.indices[e]);
        sampled_row.push_back(d);
        b.edge_ids.push_back(csr.edge_ids == nullptr ? static_cast<Offset>(e) : csr.edge_ids[e]);
      }
      b.offsets.push_back(static_cast<std::int64_t>(sampled.size()));
    }
    std::unordered_map<std::int64_t, Index> local;
    append(b.src_nodes, dst);
    for (std::size_t d = 0; d < dst.size(); ++d) { local.emplace(dst[d], static_cast<Index>(d)); }
    std::vector<std::int64_t> next;
    append(next, time);
    for (std::size_t k = 0; k < sampled.size(); ++k) {
      auto const inserted = local.emplace(sampled[k], static_cast<Index>(b.src_nodes.size()));
      if (inserted.second) {
        b.src_nodes.push_back(sampled[k]);
        next.push_back(std::numeric_limits<std::int64_t>::max());
      }
      auto const at = static_cast<std::size_t>(inserted.first->second);
      b.indices.push_back(inserted.first->second);
      next[at] = std::min(next[at], time[sampled_row[k]]);
    }
    dst.clear();
    append(dst, b.src_nodes);
    time = std::move(next);
    result.layers.push_back(std::move(b));
  }
  return result;
}

}  // namespace gnndirect::test
