#pragma once
/// @file gnn_preparer.cuh
/// @brief The GNN recipe as a batch_scheduler preparer (pipeline/scheduler.cuh): shuffled seeds
/// -> message-flow blocks (sample_blocks_async) -> gathered features (optionally through a tier
/// of hot rows in HBM) and labels.
///
/// Per batch, on the stream of the slot it occupies: the seeds go from pinned staging to the
/// device, sample_blocks_async samples and relabels every layer into the slot's bound-sized
/// arrays with all sizes on the device, and gather_async copies the input nodes' feature rows
/// (their count read on the device) and the seeds' labels. A batch is one stream of work with no
/// host round trip: the counts come back with an asynchronous copy that complete() reads once the
/// batch's GPU work is done, and the error checks run there too. Every slot's arrays, the feature
/// and label storage included, are allocated once at their upper bounds (from the caller's memory
/// resource) and reused.

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/core/gather_tuning.hpp>
#include <gnndirect/algorithms/sample_blocks.cuh>
#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/cache/tiered_table.cuh>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/encoded_view.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/pipeline/gnn_preparer.cuh>
#include <gnndirect/device/row_codec.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/device/temporal_samplers.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/pipeline/pipeline_options.hpp>
#include <gnndirect/pipeline/timeline.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// One prepared mini-batch. Every device array lives in its slot and stays valid until the batch
/// is released (and the consumer stream is past the release).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Feature feature element type  @tparam Label label type
template <class Offset, class Index, class Feature, class Label>
struct minibatch {
  std::int64_t epoch{0};              ///< epoch it belongs to
  std::int64_t index{0};              ///< position of the batch in its epoch
  std::int64_t first{0};              ///< position of its first seed in the epoch order
  std::int64_t num_seeds{0};          ///< seeds (training nodes) in this batch
  std::int64_t num_input_nodes{0};    ///< rows of `features` (the last layer's src nodes)
  std::int64_t num_sampled_edges{0};  ///< sampled edges over all layers
  std::size_t feature_bytes{0};       ///< bytes of feature rows gathered for this batch
  std::uint64_t sampling_seed{0};     ///< seed given to the sampler's with_seed for this batch's blocks
  const Index* host_seeds{nullptr};   ///< the seeds in host memory (valid until the next epoch)
  const Index* seeds{nullptr};        ///< the seeds in device memory (blocks.layers[0].dst_nodes)
  /// With a temporal_sampler: the seeds' query times in device memory (num_seeds), else null.
  const std::int64_t* seed_times{nullptr};
  blocks_view<Offset, Index> blocks;   ///< message-flow blocks, seeds side first (device views)
  table_view<Feature> features;       ///< num_input_nodes x feature cols, device memory
  const Label* labels{nullptr};       ///< num_seeds labels of the seeds, device memory
  buffer<Feature> feature_storage;    ///< owner of `features` (bound-sized, reused across batches)
  buffer<Label> label_storage;        ///< owner of `labels` (batch_size, reused across batches)
  detail::gnn_slot_storage<Offset, Index> storage;  ///< the slot's other arrays (internal)
};

/// The GNN recipe as a preparer for batch_scheduler (see scheduler.cuh for the concept).
///
/// The graph, features and labels are borrowed (views) and must outlive it, as must `mr`, from
/// which every device array is allocated. prepare() may run concurrently on different batches.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Feature feature element type of the batches  @tparam Label label type
/// @tparam Sampler any model of the sampler concept (device/samplers.hpp); with a with_seed
/// member, each batch samples with its own random stream (pipeline_options::seed); a
/// temporal_sampler (device/temporal_samplers.hpp) samples each seed at or before its training
/// time (the constructor with training_times)
/// @tparam Codec void: features are a table_view<const Feature>; else a row codec
/// (device/row_codec.hpp) producing Feature: features are an encoded_view<Codec>
/// (owners/encoded_table.hpp), decoded inside the feature gather, and the cache tier
/// (options.cache_bytes) holds encoded rows
/// @tparam GatherSelector the gather selector (core/gather_tuning.hpp) that fills the automatic
/// fields of the feature gathers' policy, once at construction
template <class Offset, class Index, class Feature, class Label, class Sampler = uniform_sampler,
          class Codec = void, class GatherSelector = default_gather_selector>
class gnn_preparer {
  static_assert(is_gather_selector_v<GatherSelector>,
                "gnndirect::gnn_preparer / minibatch_pipeline: the GatherSelector must be callable as "
                "gather_policy(gather_policy, const gather_device&, const gather_source&) const "
                "(core/gather_tuning.hpp)");
  static_assert(is_sampler_v<Sampler>,
                "gnndirect::gnn_preparer / minibatch_pipeline: the Sampler must model the sampler "
                "concept (device/samplers.hpp)");
  static_assert(detail::feature_codec_fits<Feature, Codec>(),
                "gnndirect::gnn_preparer / minibatch_pipeline: the Codec cannot produce the Feature type");

 public:
  /// What a slot holds.
  using batch_type = minibatch<Offset, Index, Feature, Label>;
  /// The feature rows read: table_view<const Feature>, or encoded_view<Codec>.
  using feature_rows_type = typename detail::feature_rows_of<Feature, Codec>::type;
  /// The cache tier's type: tiered_table<Feature>, or tiered_table<std::uint8_t> of encoded rows.
  using feature_cache_type = std::conditional_t<std::is_void_v<Codec>, tiered_table<Feature>, tiered_table<std::uint8_t>>;

  /// Checks the options and inputs, reserves options.reserve_bytes in `mr` and builds the
  /// feature cache (options.cache_bytes) on `stream`. Synchronous.
  /// @param graph device-visible CSR graph in any placement
  /// @param features device-visible table with a row per node (rows >= graph.num_nodes)
  /// @param labels device-visible array of graph.num_nodes labels
  /// @param training_ids the training node ids (host); ids out of range fail start_epoch
  /// @param options see pipeline_options
  /// @param sampler what every batch draws (reseeded per batch when it has with_seed)
  /// @param mr memory resource for every device array  @param stream stream of the set-up work
  /// @throws invalid_argument (options, shapes, sampling policy, weights missing for a sampler
  /// with needs_weights, pageable labels), cuda_error, allocation_error, no_device_error.
  gnn_preparer(const csr_view<Offset, Index>& graph, feature_rows_type features,
               const Label* labels, std::vector<Index> training_ids, pipeline_options options,
               const Sampler& sampler, resource_ref mr, cudaStream_t stream);

  /// As above, with the training ids' query times for a temporal_sampler
  /// (device/temporal_samplers.hpp): batch b's seeds are sampled by sample_temporal_blocks_async
  /// with their times (shuffled with the ids), so no block holds an edge later than its seed's
  /// time. PyG's NeighborLoader takes them as `input_time`; with node times and no input_time,
  /// pass the training ids' own node times. Synchronous.
  /// @param graph, features, labels, training_ids as above
  /// @param training_times one query time per training id (temporal samplers), or empty (others)
  /// @param options, sampler, mr, stream as above
  /// @throws as above; invalid_argument for seeds without times (a temporal sampler and
  /// training_times not one per training id), times given to a non-temporal sampler, or the
  /// temporal sampler's times of the wrong length.
  gnn_preparer(const csr_view<Offset, Index>& graph, feature_rows_type features,
               const Label* labels, std::vector<Index> training_ids, std::vector<std::int64_t> training_times,
               pipeline_options options, const Sampler& sampler, resource_ref mr, cudaStream_t stream);

  /// Allocates a slot's arrays, sized for batch_size seeds: pinned staging and counts (from
  /// options.host_memory), the bound-sized block arrays and sampling workspace (stream-ordered
  /// from the device resource).  @param batch the slot's batch  @param stream the slot's stream
  void init_batch(batch_type& batch, cudaStream_t stream);

  /// Shuffles the training ids for `epoch`.  @param epoch the epoch  @return the number of batches
  /// @throws index_out_of_range naming "training_ids" and the first bad position.
  std::int64_t start_epoch(std::int64_t epoch);

  /// Enqueues batch b of `epoch` on `stream`: seeds, blocks, an asynchronous copy of the counts,
  /// features (count read on the device) and labels. Never waits for the GPU.
  /// @param batch the slot's batch  @param stream the slot's stream  @param epoch, b which batch
  /// @throws cuda_error.
  void prepare(batch_type& batch, cudaStream_t stream, std::int64_t epoch, std::int64_t b);

  /// Once the batch's GPU work is done: raises a recorded bad id (with checks on), points the
  /// batch's views at the valid prefixes of the slot's arrays.
  /// @param batch the batch  @return its feature bytes
  /// @throws index_out_of_range (corrupt graph or bad ids, with checks on), cuda_error.
  std::uint64_t complete(batch_type& batch);

  /// @return batches per epoch: ceil(training ids / batch_size), or floor with drop_last
  std::int64_t num_batches() const noexcept;
  /// The current epoch's shuffled training ids, stable until the next start_epoch.  @return the ids
  const std::vector<Index>& epoch_order() const noexcept { return order_; }
  /// @return the hot-row tier of the features, or null when options.cache_bytes is 0
  feature_cache_type* feature_cache() noexcept { return cache_.get(); }
  /// @return the options in effect
  const pipeline_options& options() const noexcept { return options_; }
  /// The policy of the feature gathers as given to gather_async, every knob explicit:
  /// options.gather with the index checks of sampling and the host-gather cap through a cache
  /// tier applied, its automatic fields filled at construction by GatherSelector for this device
  /// (and its measured ceilings with calibrate_gather) and the features' placement, row size,
  /// batch bound and codec. Print it with `<<`.
  /// @return the policy
  gather_policy feature_gather_policy() const noexcept { return feature_policy_; }

 private:
  /// The training times, checked against the sampler (one per id for a temporal one, none else).
  static std::vector<std::int64_t> checked_times(std::vector<std::int64_t> times, std::size_t num_ids,
                                                 const Sampler& sampler, const csr_view<Offset, Index>& graph);

  /// The options, checked against the sampler and the inputs: fanouts, batch_size, depth,
  /// workers and gather_priority in range, the sampling policy valid for every fanout, the
  /// block bounds and the gather policy computable, the features' shape, labels present.
  /// @return the options  @throws invalid_argument (and what validate() of the sampler throws).
  static pipeline_options checked_options(pipeline_options options, const Sampler& sampler,
                                          const csr_view<Offset, Index>& graph,
                                          const feature_rows_type& features, const Label* labels);

  /// Points the batch's block views and feature table at the valid prefixes, from the counts
  /// copied back during prepare (the batch's GPU work is done when this runs).
  void point_views(batch_type& batch);

  /// The rows the cache tier copies: the table, or the encoded rows as bytes.
  table_view<const std::conditional_t<std::is_void_v<Codec>, Feature, std::uint8_t>> cached_rows() const noexcept;

  /// Upper bound of a batch's input nodes (the last layer's src nodes).
  std::int64_t input_bound() const;

  /// The feature gather's policy (feature_gather_policy()), resolved for `device`: index checks
  /// also when only sampling checks are on, so that a bad id from a corrupt graph is zero-filled
  /// (and raised by complete()), never read.
  gather_policy resolved_feature_policy(const gather_device& device) const;

  /// The resolved policy of the feature gathers.
  gather_policy feature_policy() const noexcept { return feature_policy_; }

  /// Enqueues the feature gather of the input nodes (their count read on the device) and the
  /// label gather of the seeds into the slot's bound-sized storage, after the sampling enqueued
  /// on `sampling`: on the slot's stream or, with gather_priority 1, on its high-priority stream,
  /// ordered with events; the slot's stream ends after both. Checks are raised by complete().
  void gather_inputs(batch_type& batch, cudaStream_t slot_stream, cudaStream_t sampling);

  /// What every batch draws (reseeded per batch).
  Sampler sampler_;
  /// The graph (borrowed view).
  csr_view<Offset, Index> graph_;
  /// The feature rows (borrowed view: a table, or encoded rows with a Codec).
  feature_rows_type features_;
  /// The labels, one per node (borrowed, device-visible).
  const Label* labels_;
  /// The training node ids (host copy).
  std::vector<Index> training_ids_;
  /// Temporal samplers: one query time per training id; empty otherwise.
  std::vector<std::int64_t> training_times_;
  /// The options in effect (checked at construction).
  pipeline_options options_;
  /// Where the labels live (device-visible kind, read from their pointer).
  memory_kind labels_kind_;
  /// First training id out of range, -1 if none (raised by start_epoch).
  std::int64_t bad_id_position_;
  /// The resource of every device array.
  resource_ref mr_;
  /// Hot feature rows in HBM (options.cache_bytes), or null.
  std::unique_ptr<feature_cache_type> cache_;
  /// The epoch's shuffled ids; read by the workers.
  std::vector<Index> order_;
  /// Their times, shuffled alike (temporal samplers).
  std::vector<std::int64_t> time_order_;
  /// Slots initialised (init_batch runs on the constructing thread).
  int slots_{0};
  /// The feature gathers' policy, resolved at construction.
  gather_policy feature_policy_{};
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/pipeline/gnn_preparer.inl>
