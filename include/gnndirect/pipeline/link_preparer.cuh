#pragma once
/// @file link_preparer.cuh
/// @brief The link-prediction recipe as a batch_scheduler preparer (pipeline/scheduler.cuh):
/// shuffled seed edges -> negatives (sample_negatives_async) -> the seed nodes and
/// edge_label_index (relabel_edge_seeds_async) -> both endpoints' neighbourhoods in one set of
/// blocks -> gathered features and edge labels (PyG's LinkNeighborLoader; needs nvcc).
///
/// Batch b of epoch e, on the stream of the slot it occupies:
/// 1. its P positives are seed edges [b * batch_size, ...) of the epoch's order (the positions
///    0..S-1 of the seed edges shuffled with shuffle_epoch(positions, seed, e));
/// 2. N = negative_count(negatives, P) negatives follow them: sample_negatives_async with
///    negative_options{batch_sampling_seed(link_negative_key(seed), e, b), b, strict,
///    max_attempts} and
///    the NegativeSampler type, so the E = P + N seed edges are the positives then the negatives;
/// 3. relabel_edge_seeds_async gives the seed nodes (distinct endpoints, first appearance) and
///    edge_label_index = (local[0, E), local[E, 2E)); with a temporal sampler each seed edge's
///    time is its positive's (binary negative k: positive k mod P; triplet: k / amount, the one
///    whose source it keeps) and a seed node's query time is the earliest of its seed edges';
/// 4. the blocks are sampled from the seed nodes with the Sampler reseeded by
///    batch_sampling_seed(seed, e, b): sample_blocks_async, or for a temporal_sampler
///    sample_temporal_blocks_async with the seed nodes' times (no block holds an edge later than
///    the seed edges whose nodes reach it), the batch's seed edges excluded from message passing
///    when link_seeds::edge_ids is given (the temporal sampler's excluded_edges; other samplers
///    cannot exclude edges, so edge_ids is refused with them: a static graph excludes them
///    through a temporal_sampler whose edge times and seed times are all 0);
/// 5. the feature rows of the last layer's src nodes are gathered (count read on the device);
///    edge_label is the positives' labels (or 1 without labels) followed by N zeros.
/// The worker reads the seed-node count back once per batch (one synchronisation of the slot's
/// stream, which also raises bad endpoints and misbehaving negative samplers before sampling);
/// sampling and gathering then run without host round trip. Every slot array is allocated once
/// at its bound (from the caller's resource) and reused.
///
/// PyG differences: the seed nodes keep first appearance (PyG sorts them by id: rows reordered,
/// nothing else); PyG shifts given labels by 1 in binary mode when their minimum is 0 (do that
/// before); temporal blocks share a node among seeds under its earliest time (pyg-lib samples
/// each seed's tree apart, see sample_temporal_blocks_async). Triplet mode: src_index =
/// edge_label_index[0, P), dst_pos_index = [E, E + P), dst_neg_index = [E + P, 2E) (row-major
/// P x amount).

#include <gnndirect/algorithms/edge_seeds.cuh>
#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/algorithms/negative_sampling.cuh>
#include <gnndirect/algorithms/sample_blocks.cuh>
#include <gnndirect/algorithms/sample_temporal_blocks_async.cuh>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/core/gather_tuning.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/pipeline/link_preparer.cuh>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/device/temporal_samplers.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/pipeline/epoch_order.hpp>
#include <gnndirect/pipeline/link_options.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// One prepared link-prediction batch. Every device array lives in its slot and stays valid until
/// the batch is released. E = num_positive + num_negative seed edges.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Feature feature element type  @tparam Label edge label type
template <class Offset, class Index, class Feature, class Label>
struct link_batch {
  std::int64_t epoch{0};              ///< epoch it belongs to
  std::int64_t index{0};              ///< position of the batch in its epoch
  std::int64_t first{0};              ///< position of its first positive in the epoch order
  std::int64_t num_positive{0};       ///< P: positive seed edges
  std::int64_t num_negative{0};       ///< N: negatives drawn for them
  std::int64_t num_unresolved{0};     ///< strict negatives kept after max_attempts (still edges)
  std::int64_t num_seed_nodes{0};     ///< distinct endpoints: block 0's dst rows
  std::int64_t num_input_nodes{0};    ///< rows of `features` (the last layer's src nodes)
  std::int64_t num_sampled_edges{0};  ///< sampled edges over all layers
  std::size_t feature_bytes{0};       ///< bytes of feature rows gathered
  std::uint64_t sampling_seed{0};     ///< seed the Sampler was reseeded with
  std::uint64_t negative_seed{0};     ///< negative_options::seed of this batch
  const std::int64_t* host_positions{nullptr};  ///< P positions into link_seeds (host; until the next epoch)
  const Index* src{nullptr};          ///< E sources, positives then negatives (device, global ids)
  const Index* dst{nullptr};          ///< E destinations, likewise
  const Index* edge_label_index{nullptr};  ///< 2E local ids: sources' rows, then destinations'
  const Label* edge_label{nullptr};   ///< E labels: the positives', then N zeros (device)
  const std::int64_t* edge_label_time{nullptr};  ///< E seed-edge times (temporal), else null
  const std::int64_t* seed_times{nullptr};       ///< the seed nodes' query times (temporal), else null
  blocks_view<Offset, Index> blocks;   ///< blocks, seeds side first: layer 0's dst nodes are the seed nodes
  table_view<Feature> features;       ///< num_input_nodes x feature cols (device)
  buffer<Feature> feature_storage;    ///< owner of `features` (bound-sized, reused)
  detail::link_slot_storage<Offset, Index, Label> storage;  ///< the slot's other arrays (internal)

  /// @return E, the seed edges of the batch (edge_label's length)
  std::int64_t num_edges() const noexcept { return num_positive + num_negative; }
};

/// The link-prediction recipe (file comment) as a preparer for batch_scheduler.
///
/// The graph and features are borrowed (views) and must outlive it, as must `mr`, from which
/// every device array is allocated. prepare() may run concurrently on different slots.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Feature feature element type  @tparam Label edge label type
/// @tparam Sampler a model of the sampler concept (device/samplers.hpp) or a temporal_sampler
/// (device/temporal_samplers.hpp: its times and strategy; seed times come from the seed edges)
/// @tparam Negatives binary_negatives or triplet_negatives (algorithms/negative_sampling.hpp)
/// @tparam NegativeSampler a negative sampler (default: uniform over all nodes)
template <class Offset, class Index, class Feature, class Label = float, class Sampler = uniform_sampler,
          class Negatives = binary_negatives, class NegativeSampler = uniform_negative_sampler>
class link_preparer {
  static_assert(is_sampler_v<Sampler>, "gnndirect::link_preparer: the Sampler must model the sampler concept");
  static_assert(std::is_trivially_copyable_v<NegativeSampler>,
                "gnndirect::link_preparer: the negative sampler must be trivially copyable");

 public:
  /// What a slot holds.
  using batch_type = link_batch<Offset, Index, Feature, Label>;
  /// True for a temporal_sampler: seed edges carry times.
  static constexpr bool is_temporal = is_temporal_sampler<Sampler>::value;

  /// Checks the options and the seed edges. Synchronous (host work only).
  /// @param graph device-visible CSR graph (sorted neighbour lists when options.strict)
  /// @param features device-visible table, a row per node (rows >= graph.num_nodes)
  /// @param seeds the seed edges (moved in)  @param negatives the mode and its amount
  /// @param options see link_options  @param sampler what every batch's blocks draw (its
  /// excluded_edges must be empty: the batch's seed edges go there)
  /// @param mr memory resource of every device array
  /// @param negative_sampler the negatives' distribution
  /// @throws invalid_argument (options, shapes, an amount <= 0, times missing or of the wrong
  /// length for a temporal sampler or given to another, edge_ids with a non-temporal sampler,
  /// the temporal sampler's times of the wrong length), index_out_of_range (a seed endpoint
  /// outside the graph, naming "link_seeds::src" or "::dst" and its position).
  link_preparer(const csr_view<Offset, Index>& graph, table_view<const Feature> features,
                link_seeds<Index, Label> seeds, const Negatives& negatives, link_options options,
                const Sampler& sampler, resource_ref mr, const NegativeSampler& negative_sampler = {});

  /// Allocates a slot's arrays at their bounds (pinned staging from options.host_memory, device
  /// arrays stream-ordered from `mr`).  @param batch the slot's batch  @param stream its stream
  /// @throws allocation_error, cuda_error.
  void init_batch(batch_type& batch, cudaStream_t stream);

  /// Shuffles the seed edges' positions for `epoch`.  @param epoch the epoch
  /// @return the number of batches
  std::int64_t start_epoch(std::int64_t epoch);

  /// Enqueues batch b of `epoch` on `stream` (file comment); waits once for the seed-node count.
  /// @param batch the slot's batch  @param stream the slot's stream  @param epoch, b which batch
  /// @throws index_out_of_range (bad endpoints), invalid_argument (a negative sampler drawing
  /// outside the graph), cuda_error.
  void prepare(batch_type& batch, cudaStream_t stream, std::int64_t epoch, std::int64_t b);

  /// Once the batch's GPU work is done: raises recorded errors (with checks on) and points the
  /// batch's views at the valid prefixes.  @param batch the batch  @return its feature bytes
  /// @throws index_out_of_range (corrupt graph, with checks on), cuda_error.
  std::uint64_t complete(batch_type& batch);

  /// @return batches per epoch: ceil(seed edges / batch_size), or floor with drop_last
  std::int64_t num_batches() const noexcept;
  /// The current epoch's order: positions into the seed edges.  @return the positions
  const std::vector<std::int64_t>& epoch_order() const noexcept { return order_; }
  /// @return the options in effect
  const link_options& options() const noexcept { return options_; }
  /// @return the seed edges
  const link_seeds<Index, Label>& seeds() const noexcept { return seeds_; }
  /// The feature gathers' policy (options.gather, with the sampling's index checks).
  /// @return the policy
  gather_policy feature_gather_policy() const noexcept;

 private:
  std::int64_t negative_bound() const;  // N for a full batch
  std::int64_t seed_node_bound() const;  // seed nodes of a full batch
  std::int64_t input_bound() const;      // input nodes of a full batch
  void stage_positives(batch_type& batch) const;  // host: endpoints, times, labels, excluded ids
  void sample_blocks(batch_type& batch, cudaStream_t stream) const;
  void point_views(batch_type& batch) const;

  csr_view<Offset, Index> graph_;
  table_view<const Feature> features_;
  link_seeds<Index, Label> seeds_;
  Negatives negatives_;
  link_options options_;
  Sampler sampler_;
  NegativeSampler negative_sampler_;
  resource_ref mr_;
  std::vector<std::int64_t> order_;  // the epoch's shuffled positions; read by the workers
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/pipeline/link_preparer.inl>
