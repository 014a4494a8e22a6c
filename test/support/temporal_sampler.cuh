#pragma once
// A user-written temporal sampler for the GPU tests, written only against the public sampler
// concept (device/samplers.hpp), and a host implementation of multi-layer temporal sampling
// written from the definitions alone (no library sampling code), to check it bit for bit.
#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/device/sampled_output.hpp>
#include <gnndirect/reference/sample_reference.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gnndirect::test {

/// A user-written sampler for temporal graphs, written against any tile (cg or dynamic_tile): up
/// to `fanout` edges whose time is before the node's query time, the most recent first (ties:
/// the later position first), in that order. Deterministic: it has no with_seed, so the pipeline
/// uses it unchanged for every batch.
struct recent_before_sampler {
  static constexpr bool needs_weights = false;
  const std::int64_t* edge_time;   ///< one per edge, CSR position order
  const std::int64_t* query_time;  ///< one per node

  GNNDIRECT_HOST_DEVICE std::size_t scratch_bytes(int, int) const { return 0; }

  template <class Tile, class Offset, class Index>
  __device__ std::int64_t sample(const Tile& tile, const gnndirect::csr_view<Offset, Index>&,
                                 const gnndirect::node_edges<Offset>& edges, int fanout, int, void*,
                                 const gnndirect::sampled_output<Offset, Index>& out) const
  {
    const std::int64_t* const time = edge_time + edges.first;
    std::int64_t const limit = query_time[edges.node];
    auto const lane = static_cast<std::int64_t>(tile.thread_rank());
    auto const size = static_cast<std::int64_t>(tile.num_threads());
    unsigned const members = size == 32 ? 0xFFFFFFFFu : (1u << size) - 1u;
    std::int64_t eligible = 0;
    for (std::int64_t base = 0; base < edges.degree; base += size) {
      std::int64_t const p = base + lane;
      eligible += __popc(tile.ballot(p < edges.degree && time[p] < limit) & members);
    }
    for (std::int64_t p = lane; p < edges.degree; p += size) {
      if (time[p] >= limit) { continue; }
      std::int64_t rank = 0;  // eligible edges before p in (time desc, position desc)
      for (std::int64_t q = 0; q < edges.degree; ++q) {
        rank += time[q] < limit && (time[q] > time[p] || (time[q] == time[p] && q > p)) ? 1 : 0;
      }
      if (rank < fanout) { out.emit(p, rank); }
    }
    tile.sync();
    return eligible < fanout ? eligible : fanout;
  }
};

/// Host implementation of multi-layer temporal sampling: per dst node, the eligible edges (time
/// before the node's query time) sorted by time then position, both descending, the first
/// `fanout` kept; relabelling: dst nodes first, new nodes by first appearance, a repeated dst id
/// maps to its first row. `csr` holds host addresses.
template <class Offset, class Index>
gnndirect::host::reference_blocks<Offset, Index> temporal_blocks_on_host(
  const gnndirect::csr_view<Offset, Index>& csr, const std::vector<std::int64_t>& edge_time,
  const std::vector<std::int64_t>& query_time, const Index* seeds, std::int64_t num_seeds,
  const std::vector<int>& fanouts)
{
  gnndirect::host::reference_blocks<Offset, Index> result;
  std::vector<Index> dst(seeds, seeds + num_seeds);
  for (int fanout : fanouts) {
    gnndirect::host::reference_block<Offset, Index> b;
    b.dst_nodes = dst;
    b.offsets.push_back(0);
    std::vector<Index> sampled;
    for (Index d : dst) {
      std::vector<std::int64_t> kept;
      for (auto e = static_cast<std::int64_t>(csr.indptr[d]); e < static_cast<std::int64_t>(csr.indptr[d + 1]); ++e) {
        if (edge_time[static_cast<std::size_t>(e)] < query_time[static_cast<std::size_t>(d)]) { kept.push_back(e); }
      }
      std::sort(kept.begin(), kept.end(), [&](std::int64_t a, std::int64_t c) {
        auto const ta = edge_time[static_cast<std::size_t>(a)];
        auto const tc = edge_time[static_cast<std::size_t>(c)];
        return ta != tc ? ta > tc : a > c;
      });
      if (kept.size() > static_cast<std::size_t>(fanout)) { kept.resize(static_cast<std::size_t>(fanout)); }
      for (std::int64_t e : kept) {
        sampled.push_back(csr.indices[e]);
        b.edge_ids.push_back(csr.edge_ids == nullptr ? static_cast<Offset>(e) : csr.edge_ids[e]);
      }
      b.offsets.push_back(static_cast<std::int64_t>(sampled.size()));
    }
    std::unordered_map<std::int64_t, Index> local;
    b.src_nodes = dst;
    for (std::size_t d = 0; d < dst.size(); ++d) { local.emplace(dst[d], static_cast<Index>(d)); }
    for (Index id : sampled) {
      auto const inserted = local.emplace(id, static_cast<Index>(b.src_nodes.size()));
      if (inserted.second) { b.src_nodes.push_back(id); }
      b.indices.push_back(inserted.first->second);
    }
    dst = b.src_nodes;
    result.layers.push_back(std::move(b));
  }
  return result;
}

}  // namespace gnndirect::test
