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
#include <gnndirect/algorithms/machine_ceilings.cuh>
#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/core/gather_tuning.hpp>
#include <gnndirect/cache/hot_set.cuh>
#include <gnndirect/algorithms/sample_blocks.cuh>
#include <gnndirect/core/sampled_refs.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/cache/tiered_table.cuh>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/encoded_view.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/pipeline/gnn_preparer.cuh>
#include <gnndirect/device/row_codec.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/device/temporal_samplers.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/pipeline/epoch_order.hpp>
#include <gnndirect/pipeline/timeline.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Default of pipeline_options::gather_priority (one line to change once measured: scripts/gpu
/// overlap compares -1, 0 and 1 on the same data).
inline constexpr int default_gather_priority = 0;
/// Default of pipeline_options::calibrate_gather (likewise one line, set from scripts/gpu overlap
/// and bench_gather's gather_link rows on each lent machine).
inline constexpr bool default_calibrate_gather = false;

/// What a minibatch_pipeline (or a gnn_preparer) prepares and how.
struct pipeline_options {
  std::vector<int> fanouts{15, 10, 5};  ///< one fanout per layer, seeds side first (at least one)
  std::int64_t batch_size{1024};        ///< seeds per batch (> 0)
  bool drop_last{false};                ///< drop the last batch when it is smaller than batch_size
  /// Sampling tile, block cap (sampling.max_blocks, 0: none; the one cap of sampling) and checks
  /// (what is drawn is the pipeline's Sampler type).
  sampling_policy sampling{};
  /// The key of every random choice of the pipeline: epoch e's shuffle is shuffle_epoch(ids,
  /// seed, e), and its batch b samples with sampler.with_seed(batch_sampling_seed(seed, e, b))
  /// when the sampler has with_seed (device/samplers.hpp), so each batch draws fresh neighbours;
  /// the two are independent streams of the one key (pipeline/epoch_order.hpp). The sampler's own
  /// seed is then not used (it keys the one-shot sampling calls).
  std::uint64_t seed{0};
  /// How feature and label rows are gathered (gather.max_blocks: the one cap of the gathers).
  /// Automatic fields are filled by the pipeline's GatherSelector (core/gather_tuning.hpp): for
  /// host memory 32 blocks, which leave SMs to training kernels, or with calibrate_gather what
  /// the machine's link needs; with a cache tier (cache_bytes) its gathers get the same 32, not
  /// the tier's standalone full grid. A pipeline whose GPU does nothing else gains from more:
  /// H200, papers100M demo, preparation alone: 2.47 s per epoch with 32, 2.21 s with 256 (the
  /// other workers' sampling holds the SMs a 32-block gather waits for). Beside GraphSAGE
  /// training, 256 slowed the products epoch from 1.12 to 1.69 s.
  gather_policy gather{};
  /// Batches in flight (in preparation, ready or held). 2 is double buffering; with `workers`
  /// > 1, depth >= workers + 1 lets the workers overlap while the consumer holds a batch.
  int depth{3};
  /// Host threads preparing batches concurrently (>= 1), each on its own stream: 2 overlaps one
  /// batch's sampling with the previous batch's gathers.
  int workers{2};
  /// How the workers wait for the GPU (sleep: no CPU time while waiting; spin: lowest latency).
  wait_mode worker_wait{wait_mode::sleep};
  /// Bytes to allocate from the memory resource once at construction and free again, so that a
  /// retaining pool (the pipeline's own, by default) is grown to the working set up front.
  std::size_t reserve_bytes{0};
  /// When > 0, device bytes for a tier of hot feature rows (cache/tiered_table.cuh), filled at
  /// construction with the highest-degree nodes; features of cached nodes are then gathered from
  /// HBM, the others from the host table, in one launch. Rebuild it between epochs through
  /// feature_cache() (e.g. with hot_rows_by_count from pre-sampling). Ignored for
  /// device-resident features (features.kind device): every row is in HBM already.
  std::size_t cache_bytes{0};
  /// Where each slot's pinned staging (the seeds' path to the device, the counts read back)
  /// comes from: mapped page-locked memory (see core/host_resource.hpp); default
  /// pinned_host_resource (cudaHostAlloc). The resource must outlive the pipeline.
  host_resource_ref host_memory{};
  /// Which of a batch's stages the GPU's block scheduler favours, through a second stream per
  /// slot of the device's greatest priority, forked from the slot's stream and joined back with
  /// events. 1: the feature and label gathers run there, so their blocks are dispatched before
  /// those of other batches' sampling kernels already queued (a link-bound gather starts as soon
  /// as its batch is sampled; the MLPerf GNN recipe's high-priority feature stream). -1: the
  /// seeds' copy, sampling and the counts run there instead, so that sampling is not queued
  /// behind the link-bound gathers of other batches holding the SMs. 0: every stage on the
  /// slot's stream (no priorities).
  int gather_priority{default_gather_priority};
  /// Measure this machine's host-link ceilings at construction (measured_machine_ceilings,
  /// algorithms/machine_ceilings.cuh: a few hundred milliseconds, once per process and device)
  /// and give them to the GatherSelector, which then sizes the feature gathers' block cap to the
  /// loads in flight the link needs (the selector's fixed defaults were measured on an H200,
  /// whose link needs 8x fewer than the H100 machine's). Only for host-resident features without
  /// a cache tier and with gather.max_blocks 0: an explicit cap always wins. Off: the selector
  /// is told the device (compute capability, SMs) but no ceilings. See feature_gather_policy().
  bool calibrate_gather{default_calibrate_gather};
  /// When not null, every batch records its stages into this timeline (borrowed; it must outlive
  /// the pipeline): "seeds" (the seeds' copy), "sample" (every layer's sampling and relabelling),
  /// "counts" (the sizes' copy back), "features", "labels", on lanes "slot S" (and "slot S
  /// priority", the second stream of gather_priority), plus the scheduler's spans
  /// (scheduler_options::timeline).
  /// Null (the default): nothing is recorded.
  pipeline_timeline* timeline{nullptr};
};

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
  blocks_ref<Offset, Index> blocks;   ///< message-flow blocks, seeds side first (device views)
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
               const Sampler& sampler, resource_ref mr, cudaStream_t stream)
    : gnn_preparer(graph, features, labels, std::move(training_ids), {}, std::move(options), sampler, mr, stream)
  {
  }

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
               pipeline_options options, const Sampler& sampler, resource_ref mr, cudaStream_t stream)
    : sampler_(sampler),
      graph_(graph),
      features_(features),
      labels_(labels),
      training_ids_(std::move(training_ids)),
      training_times_(checked_times(std::move(training_times), training_ids_.size(), sampler, graph)),
      options_(checked_options(std::move(options), sampler, graph, features, labels)),
      labels_kind_(graph.num_nodes > 0 ? detail::device_visible_kind(labels, "labels")
                                       : memory_kind::device),
      bad_id_position_(detail::first_bad_id(training_ids_, graph.num_nodes)),
      mr_(mr)
  {
    if (options_.reserve_bytes > 0) {
      { buffer<std::byte> const reserve(options_.reserve_bytes, stream, mr_); }
      GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
    }
    if (options_.cache_bytes > 0 && features_.kind != memory_kind::device) {
      cache_ = std::make_unique<feature_cache_type>(cached_rows(), options_.cache_bytes, stream, mr_);
      buffer<std::int64_t> const hot = hot_rows_by_degree(stream, graph_, cache_->capacity(), mr_);
      cache_->rebuild(stream, hot.data(), cache_->capacity());
    }
    machine_ceilings ceilings{};
    if (options_.calibrate_gather && !cache_ && is_host_resident(features_.kind) && features_.rows > 0 &&
        options_.gather.max_blocks == 0) {
      ceilings = measured_machine_ceilings(stream, mr_, options_.host_memory);
    }
    feature_policy_ = resolved_feature_policy(query_gather_device(ceilings));
  }

  /// Allocates a slot's arrays, sized for batch_size seeds: pinned staging and counts (from
  /// options.host_memory), the bound-sized block arrays and sampling workspace (stream-ordered
  /// from the device resource).  @param batch the slot's batch  @param stream the slot's stream
  void init_batch(batch_type& batch, cudaStream_t stream)
  {
    auto const layers = options_.fanouts.size();
    auto& st = batch.storage;
    st.staging = buffer<Index>(static_cast<std::size_t>(options_.batch_size), memory_kind::pinned, {},
                               options_.host_memory);
    st.host_counts = buffer<std::int64_t>(2 * layers, memory_kind::pinned, {}, options_.host_memory);
    st.seeds = buffer<Index>(static_cast<std::size_t>(options_.batch_size), stream, mr_);
    st.blocks = sample_blocks_buffers<Offset, Index>(options_.batch_size, options_.fanouts,
                                                     graph_.num_nodes, stream, mr_);
    std::int64_t const inputs = input_bound();
    batch.feature_storage = buffer<Feature>(static_cast<std::size_t>(std::max<std::int64_t>(1, inputs * features_.cols)),
                                            stream, mr_);
    batch.label_storage = buffer<Label>(static_cast<std::size_t>(options_.batch_size), stream, mr_);
    st.feature_ws = buffer<unsigned char>(
      gather_workspace_bytes<Index>(inputs, features_.rows, features_.kind, detail::feature_load_bytes(features_),
                                    feature_policy()),
      stream, mr_);
    st.label_ws = buffer<unsigned char>(
      gather_workspace_bytes<Index>(options_.batch_size, graph_.num_nodes, labels_kind_, sizeof(Label),
                                    options_.gather),
      stream, mr_);
    st.seed_times.template allocate<Sampler, Offset, Index>(options_.batch_size, options_.fanouts, graph_.num_nodes,
                                                   options_.host_memory, stream, mr_);
    st.stream = stream;
    st.slot = slots_++;
    if (options_.gather_priority != 0) {
      st.priority_stream = detail::make_greatest_priority_stream();
      st.forked = make_sync_event();
      st.sampled = make_sync_event();
      st.gathered = make_sync_event();
    }
    if (options_.timeline != nullptr && st.priority_stream.get()) {
      options_.timeline->name_stream(st.priority_stream.get(), "slot " + std::to_string(st.slot) + " priority");
    }
  }

  /// Shuffles the training ids for `epoch`.  @param epoch the epoch  @return the number of batches
  /// @throws index_out_of_range naming "training_ids" and the first bad position.
  std::int64_t start_epoch(std::int64_t epoch)
  {
    order_ = training_ids_;
    shuffle_epoch(order_, options_.seed, epoch);
    time_order_ = training_times_;  // the same swaps as the ids': the times stay with their ids
    shuffle_epoch(time_order_, options_.seed, epoch);
    if (bad_id_position_ >= 0) {
      auto const position = static_cast<std::size_t>(bad_id_position_);
      throw index_out_of_range(__FILE__, __LINE__, "training_ids", bad_id_position_,
                               static_cast<std::int64_t>(training_ids_[position]), graph_.num_nodes);
    }
    return num_batches();
  }

  /// Enqueues batch b of `epoch` on `stream`: seeds, blocks, an asynchronous copy of the counts,
  /// features (count read on the device) and labels. Never waits for the GPU.
  /// @param batch the slot's batch  @param stream the slot's stream  @param epoch, b which batch
  /// @throws cuda_error.
  void prepare(batch_type& batch, cudaStream_t stream, std::int64_t epoch, std::int64_t b)
  {
    auto& st = batch.storage;
    batch.epoch = epoch;
    batch.index = b;
    batch.first = b * options_.batch_size;
    batch.num_seeds =
      std::min(options_.batch_size, static_cast<std::int64_t>(order_.size()) - batch.first);
    batch.host_seeds = order_.data() + batch.first;
    std::copy_n(batch.host_seeds, batch.num_seeds, st.staging.host_data());
    pipeline_timeline* const timeline = options_.timeline;
    // gather_priority -1: sampling on the slot's high-priority stream, after the slot's stream.
    cudaStream_t sampling = stream;
    if (options_.gather_priority < 0) {
      GNNDIRECT_CUDA_TRY(cudaEventRecord(st.forked.get(), stream));
      GNNDIRECT_CUDA_TRY(cudaStreamWaitEvent(st.priority_stream.get(), st.forked.get(), 0));
      sampling = st.priority_stream.get();
    }
    auto span = timeline_begin(timeline, sampling, b, "seeds");
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(st.seeds.data(), st.staging.data(),
                                       sizeof(Index) * static_cast<std::size_t>(batch.num_seeds),
                                       cudaMemcpyDefault, sampling));
    timeline_end(timeline, span, sampling);
    batch.seeds = st.seeds.data();
    batch.sampling_seed = batch_sampling_seed(options_.seed, epoch, b);
    span = timeline_begin(timeline, sampling, b, "sample");
    const std::int64_t* const times = time_order_.empty() ? nullptr : time_order_.data() + batch.first;
    st.sampling_ws = detail::sample_batch_blocks(sampling, graph_, batch.seeds, times,
                                                 batch.num_seeds, options_.fanouts,
                                                 reseeded(sampler_, batch.sampling_seed), options_.sampling, st.blocks,
                                                 st.seed_times);
    batch.seed_times = is_temporal_sampler<Sampler>::value ? st.seed_times.times.data() : nullptr;
    timeline_end(timeline, span, sampling);
    span = timeline_begin(timeline, sampling, b, "counts");
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(st.host_counts.host_data(), st.blocks.counts(),
                                       st.host_counts.bytes(), cudaMemcpyDefault, sampling));
    timeline_end(timeline, span, sampling);
    gather_inputs(batch, stream, sampling);
  }

  /// Once the batch's GPU work is done: raises a recorded bad id (with checks on), points the
  /// batch's views at the valid prefixes of the slot's arrays.
  /// @param batch the batch  @return its feature bytes
  /// @throws index_out_of_range (corrupt graph or bad ids, with checks on), cuda_error.
  std::uint64_t complete(batch_type& batch)
  {
    auto& st = batch.storage;
    if (options_.sampling.check_indices) {
      sample_blocks_check(st.stream, st.sampling_ws, options_.fanouts.size(), graph_.num_nodes);
    }
    if (feature_policy().check_indices) {
      gather_check(st.stream, workspace_view{st.feature_ws.data(), st.feature_ws.bytes()}, features_.rows);
    }
    if (options_.gather.check_indices) {
      gather_check(st.stream, workspace_view{st.label_ws.data(), st.label_ws.bytes()}, graph_.num_nodes);
    }
    point_views(batch);
    return batch.feature_bytes;
  }

  /// @return batches per epoch: ceil(training ids / batch_size), or floor with drop_last
  std::int64_t num_batches() const noexcept
  {
    auto const n = static_cast<std::int64_t>(training_ids_.size());
    return options_.drop_last ? n / options_.batch_size
                              : (n + options_.batch_size - 1) / options_.batch_size;
  }
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
                                                 const Sampler& sampler, const csr_view<Offset, Index>& graph)
  {
    if constexpr (is_temporal_sampler<Sampler>::value) {
      GNNDIRECT_EXPECTS(times.size() == num_ids,
                        "minibatch_pipeline: seeds without times: a temporal sampler needs one time per training "
                        "id (training_times has " + std::to_string(times.size()) + " for " +
                          std::to_string(num_ids) + " ids)");
    } else {
      GNNDIRECT_EXPECTS(times.empty(), "minibatch_pipeline: training_times given, but the sampler is not a "
                                       "temporal_sampler (they would be ignored)");
    }
    detail::check_preparer_sampler_times(sampler, graph, "minibatch_pipeline");
    return times;
  }

  static pipeline_options checked_options(pipeline_options options, const Sampler& sampler,
                                          const csr_view<Offset, Index>& graph,
                                          const feature_rows_type& features, const Label* labels)
  {
    GNNDIRECT_EXPECTS(!options.fanouts.empty(), "minibatch_pipeline: at least one fanout is needed");
    GNNDIRECT_EXPECTS(options.batch_size > 0, "minibatch_pipeline: batch_size must be > 0");
    GNNDIRECT_EXPECTS(options.depth >= 1, "minibatch_pipeline: depth must be >= 1");
    GNNDIRECT_EXPECTS(options.workers >= 1, "minibatch_pipeline: workers must be >= 1");
    GNNDIRECT_EXPECTS(options.gather_priority >= -1 && options.gather_priority <= 1,
                      "minibatch_pipeline: gather_priority must be -1, 0 or 1, got " +
                        std::to_string(options.gather_priority));
    for (int fanout : options.fanouts) { validate(sampler, options.sampling, graph, fanout); }
    (void)sample_blocks_bounds(options.batch_size, options.fanouts, graph.num_nodes);
    (void)select_gather_policy(GatherSelector{}, options.gather, gather_device{},
                               gather_source{features.kind, detail::feature_load_bytes(features), 0,
                                             detail::feature_decode_expansion<Feature, Codec>()});
    if constexpr (std::is_void_v<Codec>) {
      validate(features, "features");
    } else {
      validate(features, "features");
    }
    GNNDIRECT_EXPECTS(features.rows >= graph.num_nodes,
                      "minibatch_pipeline: features has " + std::to_string(features.rows) +
                        " rows for " + std::to_string(graph.num_nodes) + " nodes");
    GNNDIRECT_EXPECTS(graph.num_nodes == 0 || labels != nullptr, "minibatch_pipeline: null labels");
    return options;
  }

  /// Points the batch's block views and feature table at the valid prefixes, from the counts
  /// copied back during prepare (the batch's GPU work is done when this runs).
  void point_views(batch_type& batch)
  {
    auto& st = batch.storage;
    std::size_t const layers = options_.fanouts.size();
    const std::int64_t* const counts = st.host_counts.host_data();
    auto const& ref = st.blocks.ref();
    batch.blocks.layers.resize(layers);
    batch.num_sampled_edges = 0;
    for (std::size_t l = 0; l < layers; ++l) {
      auto const& out = ref.layers[l];
      block_ref<Offset, Index>& view = batch.blocks.layers[l];
      std::int64_t const num_dst = l == 0 ? batch.num_seeds : counts[2 * (l - 1)];
      std::int64_t const edges = counts[2 * l + 1];
      view.dst_nodes = {l == 0 ? batch.seeds : ref.layers[l - 1].src_nodes, num_dst};
      view.src_nodes = {out.src_nodes, counts[2 * l]};
      view.offsets = {out.offsets, num_dst + 1};
      view.indices = {out.indices, edges};
      view.edge_ids = {out.edge_ids, edges};
      batch.num_sampled_edges += edges;
    }
    batch.num_input_nodes = batch.blocks.input_nodes().count;
    batch.features = table_view<Feature>(batch.feature_storage.data(), batch.num_input_nodes, features_.cols,
                                         features_.cols, memory_kind::device);
    batch.feature_bytes = static_cast<std::size_t>(batch.num_input_nodes * features_.cols) * sizeof(Feature);
  }

  /// The rows the cache tier copies: the table, or the encoded rows as bytes.
  table_view<const std::conditional_t<std::is_void_v<Codec>, Feature, std::uint8_t>> cached_rows() const noexcept
  {
    if constexpr (std::is_void_v<Codec>) {
      return features_;
    } else {
      return {features_.data, features_.rows, features_.stride_bytes, features_.stride_bytes, features_.kind};
    }
  }

  /// Upper bound of a batch's input nodes (the last layer's src nodes).
  std::int64_t input_bound() const
  {
    return sample_blocks_bounds(options_.batch_size, options_.fanouts, graph_.num_nodes).back().num_src;
  }

  /// The feature gather's policy (feature_gather_policy()), resolved for `device`: index checks
  /// also when only sampling checks are on, so that a bad id from a corrupt graph is zero-filled
  /// (and raised by complete()), never read.
  gather_policy resolved_feature_policy(const gather_device& device) const
  {
    gather_policy policy = options_.gather;
    policy.check_indices = policy.check_indices || options_.sampling.check_indices;
    // Through the cache tier too, the host-gather cap leaves SMs to training.
    if (cache_ && policy.max_blocks == 0) { policy.max_blocks = host_gather_max_blocks(policy.block_threads); }
    gather_source const source{features_.kind, detail::feature_load_bytes(features_), input_bound(),
                               detail::feature_decode_expansion<Feature, Codec>()};
    return select_gather_policy(GatherSelector{}, policy, device, source);
  }

  /// The resolved policy of the feature gathers.
  gather_policy feature_policy() const noexcept { return feature_policy_; }

  /// Enqueues the feature gather of the input nodes (their count read on the device) and the
  /// label gather of the seeds into the slot's bound-sized storage, after the sampling enqueued
  /// on `sampling`: on the slot's stream or, with gather_priority 1, on its high-priority stream,
  /// ordered with events; the slot's stream ends after both. Checks are raised by complete().
  void gather_inputs(batch_type& batch, cudaStream_t slot_stream, cudaStream_t sampling)
  {
    auto& st = batch.storage;
    cudaStream_t stream = slot_stream;
    if (options_.gather_priority > 0) {  // fork the gathers off the slot's stream
      GNNDIRECT_CUDA_TRY(cudaEventRecord(st.sampled.get(), slot_stream));
      GNNDIRECT_CUDA_TRY(cudaStreamWaitEvent(st.priority_stream.get(), st.sampled.get(), 0));
      stream = st.priority_stream.get();
    } else if (sampling != slot_stream) {  // gather_priority -1: the slot's stream follows sampling
      GNNDIRECT_CUDA_TRY(cudaEventRecord(st.sampled.get(), sampling));
      GNNDIRECT_CUDA_TRY(cudaStreamWaitEvent(slot_stream, st.sampled.get(), 0));
    }
    pipeline_timeline* const timeline = options_.timeline;
    auto span = timeline_begin(timeline, stream, batch.index, "features");
    auto const& last = st.blocks.ref().layers.back();
    std::int64_t const bound = input_bound();
    table_view<Feature> const out(batch.feature_storage.data(), bound, features_.cols, features_.cols,
                                  memory_kind::device);
    workspace_view const feature_ws{st.feature_ws.data(), st.feature_ws.bytes()};
    if (cache_) {
      if constexpr (std::is_void_v<Codec>) {
        gather_async(stream, cache_->view(), last.src_nodes, bound, out, feature_ws, feature_policy(), last.num_src);
      } else {
        gather_async(stream, features_, cache_->view(), last.src_nodes, bound, out, feature_ws, feature_policy(),
                     last.num_src);
      }
    } else {
      gather_async(stream, features_, last.src_nodes, bound, out, feature_ws, feature_policy(), last.num_src);
    }
    timeline_end(timeline, span, stream);
    span = timeline_begin(timeline, stream, batch.index, "labels");
    table_view<const Label> const label_table(labels_, graph_.num_nodes, 1, 1, labels_kind_);
    table_view<Label> const labels(batch.label_storage.data(), batch.num_seeds, 1, 1, memory_kind::device);
    gather_async(stream, label_table, batch.seeds, batch.num_seeds, labels,
                 workspace_view{st.label_ws.data(), st.label_ws.bytes()}, options_.gather);
    timeline_end(timeline, span, stream);
    batch.labels = batch.label_storage.data();
    if (stream != slot_stream) {  // the slot's stream (its ready event, its release) follows the gathers
      GNNDIRECT_CUDA_TRY(cudaEventRecord(st.gathered.get(), stream));
      GNNDIRECT_CUDA_TRY(cudaStreamWaitEvent(slot_stream, st.gathered.get(), 0));
    }
  }

  Sampler sampler_;  // what every batch draws (reseeded per batch)
  csr_view<Offset, Index> graph_;
  feature_rows_type features_;
  const Label* labels_;
  std::vector<Index> training_ids_;
  std::vector<std::int64_t> training_times_;  // temporal samplers: one query time per training id
  pipeline_options options_;
  memory_kind labels_kind_;
  std::int64_t bad_id_position_;  // first training id out of range, -1 if none
  resource_ref mr_;
  std::unique_ptr<feature_cache_type> cache_;  // hot feature rows in HBM (options.cache_bytes)
  std::vector<Index> order_;  // the epoch's shuffled ids; read by the workers
  std::vector<std::int64_t> time_order_;  // their times, shuffled alike (temporal samplers)
  int slots_{0};              // slots initialised (init_batch runs on the constructing thread)
  gather_policy feature_policy_{};  // the feature gathers' policy, resolved at construction
};

GNNDIRECT_NAMESPACE_END
