#pragma once
// Host implementation of typed temporal sampling, written from the definitions in
// algorithms/sample_typed_temporal_blocks_async.cuh alone: per relation the one-node temporal
// selection of temporal_reference.hpp (itself written from device/temporal_samplers.hpp), per
// type a node list with one time per entry, and the typed loop order (layers, relations in schema
// order, rows, draws). No library sampling code; the bounds come from the public
// sample_typed_blocks_bounds (fanout -1 resolved to the largest degree). An oracle for the GPU.
#include "support/temporal_reference.hpp"

#include <gnndirect/algorithms/typed_blocks_bounds.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/reference/sample_typed_reference.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <unordered_map>
#include <vector>

namespace gnndirect::test {

/// Random times for a typed graph: per relation one per edge, per node type one per node, in a
/// small range (so ties occur and about half the neighbours are eligible at a mid query time),
/// and per relation sorted excluded edge ids (about 1 in 8 edges of the odd relations).
struct typed_times {
  std::vector<std::vector<std::int64_t>> edge_times;  ///< [relation][CSC position]
  std::vector<std::vector<std::int64_t>> node_times;  ///< [node type][node]
  std::vector<std::vector<std::int64_t>> excluded;    ///< [relation] sorted edge ids

  template <class Offset, class Index>
  typed_times(std::mt19937_64& rng, const gnndirect::typed_graph_view<Offset, Index>& graph, std::int64_t range = 40)
  {
    auto const draw = [&] { return static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(range)); };
    for (int t = 0; t < graph.num_node_types; ++t) {
      node_times.emplace_back(static_cast<std::size_t>(graph.num_nodes[t]));
      for (auto& x : node_times.back()) { x = draw(); }
    }
    for (int r = 0; r < graph.num_relations; ++r) {
      edge_times.emplace_back(static_cast<std::size_t>(graph.relations[r].csc.num_edges));
      for (auto& x : edge_times.back()) { x = draw(); }
      excluded.emplace_back();
      for (std::int64_t e = 0; r % 2 == 1 && e < graph.relations[r].csc.num_edges; ++e) {
        if (rng() % 8 == 0) { excluded.back().push_back(e); }
      }
    }
  }

  /// Per relation the oracle's setup: `last` or uniform, node or edge times, seeds[r], with or
  /// without the excluded edges.
  template <class Offset, class Index>
  std::vector<temporal_setup> setups(const gnndirect::typed_graph_view<Offset, Index>& graph, bool last,
                                     bool per_node, const std::vector<std::uint64_t>& seeds, bool exclude) const
  {
    std::vector<temporal_setup> out;
    for (int r = 0; r < graph.num_relations; ++r) {
      auto const u = static_cast<std::size_t>(r);
      temporal_setup s;
      s.last = last;
      s.node_times = per_node;
      s.seed = seeds[u];
      s.times = per_node ? node_times[static_cast<std::size_t>(graph.relations[r].src_type)] : edge_times[u];
      if (exclude) { s.excluded = excluded[u]; }
      out.push_back(std::move(s));
    }
    return out;
  }
};

/// Typed blocks and, per node type, the query time of every list entry (what its expansion used).
template <class Offset, class Index>
struct typed_temporal_result {
  gnndirect::host::typed_reference_blocks<Offset, Index> blocks;
  std::vector<std::vector<std::int64_t>> times;  ///< [type][local id]
};

/// Typed temporal blocks on the host. `setups[r]`: relation r's strategy, form, seed, times
/// (its edges in CSC position order, or its src type's nodes) and sorted excluded edge ids.
/// `seeds[t]`, `seed_times[t]`: type t's seeds and their times. `graph` holds host addresses.
template <class Offset, class Index>
typed_temporal_result<Offset, Index> typed_temporal_blocks_reference(
  const gnndirect::typed_graph_view<Offset, Index>& graph, const std::vector<temporal_setup>& setups,
  const std::vector<std::vector<Index>>& seeds, const std::vector<std::vector<std::int64_t>>& seed_times,
  const gnndirect::typed_fanouts& fanouts)
{
  auto const types = static_cast<std::size_t>(graph.num_node_types);
  std::vector<std::int64_t> counts;
  for (auto const& s : seeds) { counts.push_back(static_cast<std::int64_t>(s.size())); }
  gnndirect::typed_blocks_bounds const bounds = gnndirect::sample_typed_blocks_bounds(graph, counts, fanouts);
  typed_temporal_result<Offset, Index> result;
  auto& out = result.blocks;
  out.node_types.resize(types);
  result.times.resize(types);
  std::vector<std::unordered_map<Index, Index>> local(types);
  for (std::size_t t = 0; t < types; ++t) {
    for (std::size_t i = 0; i < seeds[t].size(); ++i) {
      out.node_types[t].nodes.push_back(seeds[t][i]);
      result.times[t].push_back(seed_times[t][i]);
      local[t].emplace(seeds[t][i], static_cast<Index>(i));  // a repeat maps to its first row
    }
    out.node_types[t].counts.push_back(static_cast<std::int64_t>(seeds[t].size()));
  }
  std::vector<std::int64_t> begin(types, 0);
  for (std::size_t l = 0; l < bounds.num_layers(); ++l) {
    // The layer's rows and their times, as they are before this layer samples anything.
    std::vector<std::vector<Index>> rows(types);
    std::vector<std::vector<std::int64_t>> row_time(types);
    for (std::size_t t = 0; t < types; ++t) {
      auto const b = static_cast<std::ptrdiff_t>(begin[t]);
      rows[t].assign(out.node_types[t].nodes.begin() + b, out.node_types[t].nodes.end());
      row_time[t].assign(result.times[t].begin() + b, result.times[t].end());
    }
    out.layers.emplace_back();
    for (int r = 0; r < graph.num_relations; ++r) {
      auto const& rel = graph.relations[r];
      auto const dst = static_cast<std::size_t>(rel.dst_type);
      auto const src = static_cast<std::size_t>(rel.src_type);
      int const fanout = bounds.fanouts[l][static_cast<std::size_t>(r)];
      gnndirect::host::reference_relation_block<Offset, Index> block;
      block.relation = r;
      block.src_type = rel.src_type;
      block.dst_type = rel.dst_type;
      block.dst_begin = begin[dst];
      block.offsets.push_back(0);
      for (std::size_t i = 0; i < rows[dst].size(); ++i) {
        auto const node = static_cast<std::int64_t>(rows[dst][i]);
        std::int64_t const first = rel.csc.indptr[node];
        for (std::int64_t p : temporal_positions(rel.csc, setups[static_cast<std::size_t>(r)], node, row_time[dst][i],
                                                 fanout, gnndirect::typed_random_layer(static_cast<int>(l), r))) {
          Index const id = rel.csc.indices[first + p];
          auto const inserted = local[src].emplace(id, static_cast<Index>(out.node_types[src].nodes.size()));
          if (inserted.second) {
            out.node_types[src].nodes.push_back(id);
            result.times[src].push_back(std::numeric_limits<std::int64_t>::max());
          }
          auto const at = static_cast<std::size_t>(inserted.first->second);
          result.times[src][at] = std::min(result.times[src][at], row_time[dst][i]);
          block.indices.push_back(inserted.first->second);
          block.edge_ids.push_back(rel.csc.edge_ids != nullptr ? rel.csc.edge_ids[first + p]
                                                               : static_cast<Offset>(first + p));
        }
        block.offsets.push_back(static_cast<std::int64_t>(block.indices.size()));
      }
      out.layers.back().push_back(std::move(block));
    }
    for (std::size_t t = 0; t < types; ++t) {
      begin[t] = out.node_types[t].counts.back();
      out.node_types[t].counts.push_back(static_cast<std::int64_t>(out.node_types[t].nodes.size()));
    }
  }
  return result;
}

/// The property temporal sampling exists for, checked on finished typed blocks (host vectors)
/// without the oracle's code: walking the layers with the seeds' times and, for every other node,
/// the minimum time of the rows that sampled it before it was expanded, no sampled edge is later
/// than its row's time nor excluded. Returns the number of violations (0 expected) and counts
/// the edges it checked in `*edges`.
template <class Offset, class Index>
std::int64_t count_later_edges(const std::vector<temporal_setup>& setups,
                               const std::vector<std::vector<std::int64_t>>& seed_times,
                               const gnndirect::host::typed_reference_blocks<Offset, Index>& blocks, std::int64_t* edges)
{
  std::vector<std::vector<std::int64_t>> time(blocks.node_types.size());
  for (std::size_t t = 0; t < time.size(); ++t) {
    time[t].assign(blocks.node_types[t].nodes.size(), std::numeric_limits<std::int64_t>::max());
    for (std::size_t i = 0; i < seed_times[t].size(); ++i) { time[t][i] = seed_times[t][i]; }
  }
  std::int64_t bad = 0;
  *edges = 0;
  for (std::size_t l = 0; l < blocks.layers.size(); ++l) {
    auto const snapshot = time;
    for (auto const& b : blocks.layers[l]) {
      temporal_setup const& s = setups[static_cast<std::size_t>(b.relation)];
      auto const& src_nodes = blocks.node_types[static_cast<std::size_t>(b.src_type)].nodes;
      for (std::size_t i = 0; i + 1 < b.offsets.size(); ++i) {
        std::int64_t const row = snapshot[static_cast<std::size_t>(b.dst_type)][static_cast<std::size_t>(b.dst_begin) + i];
        for (auto e = b.offsets[i]; e < b.offsets[i + 1]; ++e) {
          auto const u = static_cast<std::size_t>(b.indices[static_cast<std::size_t>(e)]);
          auto const id = static_cast<std::int64_t>(b.edge_ids[static_cast<std::size_t>(e)]);
          std::int64_t const when = s.node_times ? s.times[static_cast<std::size_t>(src_nodes[u])]
                                                 : s.times[static_cast<std::size_t>(id)];
          bad += when > row || std::binary_search(s.excluded.begin(), s.excluded.end(), id) ? 1 : 0;
          auto& t = time[static_cast<std::size_t>(b.src_type)][u];
          t = std::min(t, row);
          ++*edges;
        }
      }
    }
  }
  return bad;
}

}  // namespace gnndirect::test
