#pragma once
// Definitions of core/typed_seeds_view.hpp (included at its end; not part of the API).

#include <string>

GNNDIRECT_NAMESPACE_BEGIN

template <class Index>
typed_seeds_view<Index> typed_seeds_of(int num_node_types, int seed_type, const Index* seeds,
                                       std::int64_t num_seeds)
{
  GNNDIRECT_EXPECTS(num_node_types >= 1 && num_node_types <= max_node_types,
                    "typed_seeds_of: " + std::to_string(num_node_types) + " node types (1 to " +
                      std::to_string(max_node_types) + ")");
  GNNDIRECT_EXPECTS(seed_type >= 0 && seed_type < num_node_types,
                    "typed_seeds_of: seed type " + std::to_string(seed_type) +
                      " is no node type (the graph has " + std::to_string(num_node_types) + ")");
  GNNDIRECT_EXPECTS(num_seeds >= 0, "typed_seeds_of: num_seeds must be >= 0");
  typed_seeds_view<Index> v;
  v.num_node_types = num_node_types;
  v.seeds[seed_type] = seeds;
  v.counts[seed_type] = num_seeds;
  return v;
}

template <class Index>
typed_seeds_view<Index> typed_seeds_of(const std::vector<const Index*>& seeds,
                                       const std::vector<std::int64_t>& counts)
{
  GNNDIRECT_EXPECTS(seeds.size() == counts.size(),
                    "typed_seeds_of: " + std::to_string(seeds.size()) + " seed arrays but " +
                      std::to_string(counts.size()) + " counts");
  GNNDIRECT_EXPECTS(seeds.size() <= static_cast<std::size_t>(max_node_types),
                    "typed_seeds_of: seeds for " + std::to_string(seeds.size()) +
                      " node types (at most " + std::to_string(max_node_types) + ")");
  typed_seeds_view<Index> v;
  v.num_node_types = static_cast<int>(seeds.size());
  for (std::size_t t = 0; t < seeds.size(); ++t) {
    GNNDIRECT_EXPECTS(counts[t] >= 0, "typed_seeds_of: node type " + std::to_string(t) + " has " +
                                        std::to_string(counts[t]) + " seeds (must be >= 0)");
    v.seeds[t] = seeds[t];
    v.counts[t] = counts[t];
  }
  return v;
}

template <class Index>
std::vector<std::int64_t> typed_seed_counts(const typed_seeds_view<Index>& seeds, int num_node_types,
                                            const char* call)
{
  std::string const who = call;
  GNNDIRECT_EXPECTS(seeds.num_node_types == num_node_types,
                    who + ": seeds for " + std::to_string(seeds.num_node_types) +
                      " node types, the graph has " + std::to_string(num_node_types) +
                      " (one entry per node type; 0 seeds where a type has none)");
  GNNDIRECT_EXPECTS(num_node_types >= 0 && num_node_types <= max_node_types,
                    who + ": " + std::to_string(num_node_types) + " node types (0 to " +
                      std::to_string(max_node_types) + ")");
  std::vector<std::int64_t> counts(static_cast<std::size_t>(num_node_types));
  for (int t = 0; t < num_node_types; ++t) {
    std::int64_t const n = seeds.counts[t];
    GNNDIRECT_EXPECTS(n >= 0, who + ": node type " + std::to_string(t) + " has " + std::to_string(n) +
                                " seeds (must be >= 0)");
    GNNDIRECT_EXPECTS(n == 0 || seeds.seeds[t] != nullptr,
                      who + ": null seeds of node type " + std::to_string(t) + " (" + std::to_string(n) +
                        " seeds)");
    counts[static_cast<std::size_t>(t)] = n;
  }
  return counts;
}

GNNDIRECT_NAMESPACE_END
