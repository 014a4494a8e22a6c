#pragma once
/// @file link_options.hpp
/// @brief Internals of pipeline/link_options.hpp: the checks of a link_preparer's host inputs
/// (host-compilable; not part of the API).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// See gnndirect::check_link_setup (Options: link_options, Seeds: link_seeds<Index, Label>).
template <class Options, class Seeds>
void check_link_setup(const Options& options, const Seeds& seeds, std::int64_t num_nodes, bool temporal)
{
  GNNDIRECT_EXPECTS(!options.fanouts.empty(), "link_preparer: at least one fanout is needed");
  for (int fanout : options.fanouts) {
    GNNDIRECT_EXPECTS(fanout >= 0, "link_preparer: fanouts must be >= 0, got " + std::to_string(fanout));
  }
  GNNDIRECT_EXPECTS(options.batch_size > 0,
                    "link_preparer: batch_size must be > 0, got " + std::to_string(options.batch_size));
  GNNDIRECT_EXPECTS(!options.strict || options.max_attempts >= 1,
                    "link_preparer: max_attempts must be >= 1 when strict, got " + std::to_string(options.max_attempts));
  GNNDIRECT_EXPECTS(num_nodes > 0, "link_preparer: the graph has no nodes");
  std::size_t const n = seeds.src.size();
  auto const count = [](std::size_t x) { return std::to_string(x); };
  GNNDIRECT_EXPECTS(seeds.dst.size() == n, "link_preparer: link_seeds has " + count(n) + " sources and " +
                                             count(seeds.dst.size()) + " destinations");
  GNNDIRECT_EXPECTS(seeds.labels.empty() || seeds.labels.size() == n,
                    "link_preparer: link_seeds::labels has " + count(seeds.labels.size()) + " labels for " +
                      count(n) + " seed edges (give one per seed edge, or none)");
  for (int side = 0; side < 2; ++side) {
    auto const& ids = side == 0 ? seeds.src : seeds.dst;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      auto const v = static_cast<std::int64_t>(ids[i]);
      if (v < 0 || v >= num_nodes) {
        throw index_out_of_range(__FILE__, __LINE__, side == 0 ? "link_seeds::src" : "link_seeds::dst",
                                 static_cast<std::int64_t>(i), v, num_nodes);
      }
    }
  }
  if (temporal) {
    GNNDIRECT_EXPECTS(seeds.times.size() == n,
                      "link_preparer: seed edges without times: a temporal sampler needs one time per seed edge "
                      "(link_seeds::times has " + count(seeds.times.size()) + " for " + count(n) + ")");
    GNNDIRECT_EXPECTS(seeds.edge_ids.empty() || seeds.edge_ids.size() == n,
                      "link_preparer: link_seeds::edge_ids has " + count(seeds.edge_ids.size()) + " ids for " +
                        count(n) + " seed edges (give one per seed edge, -1 where not in the graph, or none)");
    for (std::size_t i = 0; i < seeds.edge_ids.size(); ++i) {
      GNNDIRECT_EXPECTS(seeds.edge_ids[i] >= -1, "link_preparer: link_seeds::edge_ids[" + count(i) + "] = " +
                                                   std::to_string(seeds.edge_ids[i]) + " is below -1");
    }
  } else {
    GNNDIRECT_EXPECTS(seeds.times.empty(), "link_preparer: link_seeds::times given, but the sampler is not a "
                                           "temporal_sampler (they would be ignored)");
    GNNDIRECT_EXPECTS(seeds.edge_ids.empty(),
                      "link_preparer: excluding seed edges (link_seeds::edge_ids) needs a temporal_sampler (its "
                      "excluded_edges); on a static graph use one with all edge and seed times 0");
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
