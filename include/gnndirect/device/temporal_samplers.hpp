#pragma once
/// @file temporal_samplers.hpp
/// @brief Temporal samplers as types: temporal_sampler<Strategy, TimeForm>, a model of the
/// sampler concept (device/samplers.hpp) that samples only the neighbours at or before a query
/// time per row, uniformly ('uniform') or the most recent ones ('last'), with times per edge or
/// per node, and optionally never an edge of a given set (link prediction's seed edges).
/// Host-compilable like samplers.hpp (an emulated tile runs it on the host).
///
/// PyG's temporal sampling (NeighborLoader / LinkNeighborLoader with `time_attr` and
/// `temporal_strategy`): an edge (TimeForm edge_time: times[position] <= query) or a neighbour
/// (node_time: times[neighbour id] <= query) is *eligible* when its time is at or before the
/// query time of the row being sampled; excluded edge ids are never eligible.
/// - temporal_uniform: n eligible edges; n <= fanout: all of them in stored order; otherwise
///   Floyd's algorithm over the n eligible edges (ranked in stored order) with the uniform
///   sampler's draws (Philox keyed by the seed with counter (layer, node id, draw), draw j
///   uniform in [0, n - fanout + j]; on a collision n - fanout + j), emitted in stored order.
/// - temporal_last: the `fanout` most recent eligible edges (time descending, equal times: the
///   later stored position first; PyG's 'last' on time-sorted lists), emitted in stored order.
///   No random numbers.
/// The query time of a row is query_times[node_edges::row], the row's position in the call's seed
/// array (the bulk kernels set it). sample_temporal_blocks_async
/// (algorithms/sample_temporal_blocks_async.cuh) gives each layer its rows' times, inherited
/// from the seeds; for one hop (sample_neighbors_async) they are the caller's, one per seed. A
/// row without a time (row < 0 or >= num_query_times) samples nothing, so a missing time never
/// reads out of bounds. The host tests run it on an emulated tile against an independent host
/// implementation (test/support/temporal_reference.hpp).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/device/sampled_output.hpp>
#include <gnndirect/device/samplers.hpp>

#include <gnndirect/detail/device/temporal_samplers.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// Strategy tag: uniform without replacement among the eligible neighbours (PyG 'uniform').
struct temporal_uniform {};
/// Strategy tag: the most recent eligible neighbours (PyG 'last').
struct temporal_last {};
/// Time form tag: one time per edge, in CSR position order (like csr_view::weights).
struct edge_time {};
/// Time form tag: one time per node; a neighbour is eligible when its node time is at or before
/// the query (PyG's node-level `time_attr`).
struct node_time {};


/// Temporal neighbour sampling (file comment): a model of the sampler concept.
/// @tparam Strategy temporal_uniform or temporal_last
/// @tparam TimeForm edge_time or node_time
template <class Strategy = temporal_uniform, class TimeForm = edge_time>
struct temporal_sampler {
  static_assert(std::is_same_v<Strategy, temporal_uniform> || std::is_same_v<Strategy, temporal_last>,
                "gnndirect::temporal_sampler: Strategy must be temporal_uniform or temporal_last");
  static_assert(std::is_same_v<TimeForm, edge_time> || std::is_same_v<TimeForm, node_time>,
                "gnndirect::temporal_sampler: TimeForm must be edge_time or node_time");
  using strategy = Strategy;   ///< the strategy tag
  using time_form = TimeForm;  ///< the time form tag
  static constexpr bool needs_weights = false;  ///< reads no edge weights

  std::uint64_t seed{0};                         ///< Philox key (temporal_uniform)
  const std::int64_t* times{nullptr};            ///< device-visible: per edge (CSR positions) or per node
  std::int64_t num_times{0};                     ///< their number (csr.num_edges or csr.num_nodes)
  const std::int64_t* query_times{nullptr};      ///< device-visible: one per row of the call
  std::int64_t num_query_times{0};               ///< their number (rows beyond sample nothing)
  const std::int64_t* excluded_edges{nullptr};   ///< device-visible sorted edge ids never sampled, or null
  std::int64_t num_excluded{0};                  ///< their number

  /// The same sampler keyed by `new_seed` (the pipeline's per-batch stream).
  /// @param new_seed the key  @return the sampler
  constexpr temporal_sampler with_seed(std::uint64_t new_seed) const noexcept
  {
    temporal_sampler s = *this;
    s.seed = new_seed;
    return s;
  }
  /// The same sampler with other query times (what sample_temporal_blocks_async does per layer).
  /// @param times_of_rows one per row  @param count their number  @return the sampler
  constexpr temporal_sampler with_query_times(const std::int64_t* times_of_rows,
                                              std::int64_t count) const noexcept
  {
    temporal_sampler s = *this;
    s.query_times = times_of_rows;
    s.num_query_times = count;
    return s;
  }
  /// temporal_uniform: 2 * fanout int64 (draws, sorted); temporal_last: two candidate buffers of
  /// weighted_buffer_capacity entries.  @param fanout draws per node
  /// @param tile_size threads per tile  @return the bytes
  GNNDIRECT_HOST_DEVICE std::size_t scratch_bytes(int fanout, int tile_size) const noexcept;
  /// See the sampler concept (device/samplers.hpp). @tparam Tile cg tile or dynamic_tile
  /// @tparam Offset, Index the graph's offset (and edge id) and node id types
  /// @param tile the calling tile  @param csr the graph  @param edges the node's edges (and row)
  /// @param fanout draws  @param layer hop index  @param scratch scratch_bytes() bytes
  /// @param out where the sample goes  @return the number of neighbours written
  template <class Tile, class Offset, class Index>
  GNNDIRECT_DEVICE std::int64_t sample(const Tile& tile, const csr_view<Offset, Index>& csr,
                                       const node_edges<Offset>& edges, int fanout, int layer,
                                       void* scratch, const sampled_output<Offset, Index>& out) const;
};

/// True for the temporal_sampler instantiations (what the temporal bulk calls accept).
/// @tparam S the type to test
template <class S>
struct is_temporal_sampler : std::false_type {};

/// The temporal_sampler case.  @tparam Strategy, TimeForm its tags
template <class Strategy, class TimeForm>
struct is_temporal_sampler<temporal_sampler<Strategy, TimeForm>> : std::true_type {};

// Both strategies and time forms model the sampler concept and can be reseeded per batch.
static_assert(is_sampler_v<temporal_sampler<temporal_uniform, edge_time>> &&
              is_sampler_v<temporal_sampler<temporal_last, node_time>>);
static_assert(has_with_seed<temporal_sampler<>>::value);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/device/temporal_samplers.inl>
