#pragma once
/// @file link_options.hpp
/// @brief The host-side inputs of a link_preparer (pipeline/link_preparer.cuh): the seed edges,
/// the options and their checks (host-compilable).

#include <gnndirect/algorithms/negative_sampling.hpp>
#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/pipeline/link_options.hpp>

#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// The key of the negatives' random stream derived from link_options::seed: distinct from the
/// sampler's (which is the seed itself), so that negatives and neighbours never draw alike.
/// @param seed link_options::seed  @return the base key of batch_sampling_seed for the negatives
constexpr std::uint64_t link_negative_key(std::uint64_t seed) noexcept { return seed ^ 0x9E3779B97F4A7C15ull; }

/// The seed edges of a link_preparer (host memory, copied at construction).
/// @tparam Index node id type  @tparam Label edge label type
template <class Index, class Label>
struct link_seeds {
  std::vector<Index> src;               ///< sources, one per seed edge, in [0, num_nodes)
  std::vector<Index> dst;               ///< destinations, as many
  std::vector<Label> labels;            ///< empty (positives labelled 1) or one per seed edge
  std::vector<std::int64_t> times;      ///< one per seed edge with a temporal sampler, else empty
  /// Empty (seed edges stay in the message-passing graph), or one per seed edge: its edge id in
  /// the graph (csr.edge_ids, or its CSR position without), -1 for a seed edge not in the graph.
  /// Needs a temporal_sampler (its excluded_edges).
  std::vector<std::int64_t> edge_ids;
};

/// What a link_preparer prepares and how (scheduler_options give its depth and workers).
struct link_options {
  std::vector<int> fanouts{15, 10, 5};  ///< one fanout per layer, seeds side first (at least one)
  std::int64_t batch_size{1024};        ///< positive seed edges per batch (> 0)
  bool drop_last{false};                ///< drop a last batch smaller than batch_size
  sampling_policy sampling{};           ///< tile, block budget and checks of the sampling
  /// The one random key (as pipeline_options::seed): the epoch's shuffle of the seed edges, each
  /// batch's sampler seed and its negatives' key are separate streams of it (file comment).
  std::uint64_t seed{0};
  gather_policy gather{};               ///< the feature gathers (defaults per placement)
  bool strict{false};                   ///< redraw negatives that are edges (sorted lists needed)
  int max_attempts{8};                  ///< draws per negative when strict (>= 1), the last kept
  host_resource_ref host_memory{};      ///< pinned staging's resource (default cudaHostAlloc)
};

/// The checks link_preparer's constructor makes of its host inputs (before anything is
/// allocated), for a sampler that is temporal or not. Host; blocking.
/// @tparam Index node id type  @tparam Label edge label type
/// @tparam Negatives binary_negatives or triplet_negatives
/// @param options the options  @param seeds the seed edges  @param negatives the mode and amount
/// @param num_nodes the graph's node count  @param temporal whether the sampler is a temporal_sampler
/// @throws invalid_argument (no fanout, a negative fanout, batch_size <= 0, max_attempts < 1 when
/// strict, an amount <= 0, an empty graph, endpoint, label, time or edge-id arrays of the wrong
/// length, times or edge ids given to a non-temporal sampler, an edge id below -1),
/// index_out_of_range (an endpoint outside [0, num_nodes), naming "link_seeds::src" or
/// "link_seeds::dst", the position and the value).
template <class Index, class Label, class Negatives>
void check_link_setup(const link_options& options, const link_seeds<Index, Label>& seeds, const Negatives& negatives,
                      std::int64_t num_nodes, bool temporal);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/pipeline/link_options.inl>
