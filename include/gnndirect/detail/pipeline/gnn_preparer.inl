#pragma once
// Definitions of pipeline/gnn_preparer.cuh (included at its end; not part of the API).

#include <gnndirect/algorithms/machine_ceilings.cuh>
#include <gnndirect/cache/hot_set.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/pipeline/epoch_order.hpp>

#include <algorithm>
#include <string>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index, class Feature, class Label, class Sampler, class Codec, class GatherSelector>
gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>::gnn_preparer(
  const csr_view<Offset, Index>& graph, feature_rows_type features, const Label* labels,
  std::vector<Index> training_ids, pipeline_options options, const Sampler& sampler, resource_ref mr,
  cudaStream_t stream)
  : gnn_preparer(graph, features, labels, std::move(training_ids), {}, std::move(options), sampler, mr, stream)
{
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Codec, class GatherSelector>
gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>::gnn_preparer(
  const csr_view<Offset, Index>& graph, feature_rows_type features, const Label* labels,
  std::vector<Index> training_ids, std::vector<std::int64_t> training_times, pipeline_options options,
  const Sampler& sampler, resource_ref mr, cudaStream_t stream)
  : sampler_(sampler),
    graph_(graph),
    features_(features),
    labels_(labels),
    training_ids_(std::move(training_ids)),
    training_times_(checked_times(std::move(training_times), training_ids_.size(), sampler, graph)),
    options_(checked_options(std::move(options), sampler, graph, features, labels)),
    labels_kind_(graph.num_nodes > 0 ? detail::device_visible_kind(labels, "labels") : memory_kind::device),
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

template <class Offset, class Index, class Feature, class Label, class Sampler, class Codec, class GatherSelector>
auto gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>::init_batch(
  batch_type& batch, cudaStream_t stream) -> void
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

template <class Offset, class Index, class Feature, class Label, class Sampler, class Codec, class GatherSelector>
auto gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>::start_epoch(
  std::int64_t epoch) -> std::int64_t
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

template <class Offset, class Index, class Feature, class Label, class Sampler, class Codec, class GatherSelector>
auto gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>::prepare(
  batch_type& batch, cudaStream_t stream, std::int64_t epoch, std::int64_t b) -> void
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

template <class Offset, class Index, class Feature, class Label, class Sampler, class Codec, class GatherSelector>
auto gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>::complete(
  batch_type& batch) -> std::uint64_t
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

template <class Offset, class Index, class Feature, class Label, class Sampler, class Codec, class GatherSelector>
auto gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>::num_batches() const noexcept
  -> std::int64_t
{
  auto const n = static_cast<std::int64_t>(training_ids_.size());
  return options_.drop_last ? n / options_.batch_size
                            : (n + options_.batch_size - 1) / options_.batch_size;
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Codec, class GatherSelector>
auto gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>::checked_times(
  std::vector<std::int64_t> times, std::size_t num_ids, const Sampler& sampler,
  const csr_view<Offset, Index>& graph) -> std::vector<std::int64_t>
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

template <class Offset, class Index, class Feature, class Label, class Sampler, class Codec, class GatherSelector>
auto gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>::checked_options(
  pipeline_options options, const Sampler& sampler, const csr_view<Offset, Index>& graph,
  const feature_rows_type& features, const Label* labels) -> pipeline_options
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

template <class Offset, class Index, class Feature, class Label, class Sampler, class Codec, class GatherSelector>
auto gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>::point_views(batch_type& batch) -> void
{
  auto& st = batch.storage;
  batch.blocks = detail::point_block_views(st.blocks.view(), batch.seeds, batch.num_seeds, st.host_counts.host_data(), st.block_views,
                                           batch.num_sampled_edges);
  batch.num_input_nodes = batch.blocks.input_nodes().count;
  batch.features = table_view<Feature>(batch.feature_storage.data(), batch.num_input_nodes, features_.cols,
                                       features_.cols, memory_kind::device);
  batch.feature_bytes = static_cast<std::size_t>(batch.num_input_nodes * features_.cols) * sizeof(Feature);
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Codec, class GatherSelector>
auto gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>::cached_rows() const noexcept
  -> table_view<const std::conditional_t<std::is_void_v<Codec>, Feature, std::uint8_t>>
{
  if constexpr (std::is_void_v<Codec>) {
    return features_;
  } else {
    return {features_.data, features_.rows, features_.stride_bytes, features_.stride_bytes, features_.kind};
  }
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Codec, class GatherSelector>
auto gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>::input_bound() const -> std::int64_t
{
  return sample_blocks_bounds(options_.batch_size, options_.fanouts, graph_.num_nodes).back().num_src;
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Codec, class GatherSelector>
auto gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>::resolved_feature_policy(
  const gather_device& device) const -> gather_policy
{
  gather_policy policy = options_.gather;
  policy.check_indices = policy.check_indices || options_.sampling.check_indices;
  // Through the cache tier too, the host-gather cap leaves SMs to training.
  if (cache_ && policy.max_blocks == 0) { policy.max_blocks = host_gather_max_blocks(policy.block_threads); }
  gather_source const source{features_.kind, detail::feature_load_bytes(features_), input_bound(),
                             detail::feature_decode_expansion<Feature, Codec>()};
  return select_gather_policy(GatherSelector{}, policy, device, source);
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Codec, class GatherSelector>
auto gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>::gather_inputs(
  batch_type& batch, cudaStream_t slot_stream, cudaStream_t sampling) -> void
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
  auto const& last = st.blocks.view().layers.back();
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

GNNDIRECT_NAMESPACE_END
