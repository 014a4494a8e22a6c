#pragma once
// Definitions of pipeline/link_preparer.cuh (included at its end; not part of the API).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/workspace.hpp>

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index, class Feature, class Label, class Sampler, class Negatives, class NegativeSampler>
link_preparer<Offset, Index, Feature, Label, Sampler, Negatives, NegativeSampler>::link_preparer(
  const csr_view<Offset, Index>& graph, table_view<const Feature> features, link_seeds<Index, Label> seeds,
  const Negatives& negatives, link_options options, const Sampler& sampler, resource_ref mr,
  const NegativeSampler& negative_sampler)
  : graph_(graph),
    features_(features),
    seeds_(std::move(seeds)),
    negatives_(negatives),
    options_(std::move(options)),
    sampler_(sampler),
    negative_sampler_(negative_sampler),
    mr_(mr)
{
  check_link_setup(options_, seeds_, negatives_, graph_.num_nodes, is_temporal);
  for (int fanout : options_.fanouts) { validate(sampler_, options_.sampling, graph_, fanout); }
  validate(features_, "features");
  GNNDIRECT_EXPECTS(features_.rows >= graph_.num_nodes, "link_preparer: features has " +
                                                           std::to_string(features_.rows) + " rows for " +
                                                           std::to_string(graph_.num_nodes) + " nodes");
  detail::check_preparer_sampler_times(sampler_, graph_, "link_preparer");
  if constexpr (is_temporal) {
    GNNDIRECT_EXPECTS(sampler_.num_excluded == 0,
                      "link_preparer: the sampler's excluded_edges must be empty (each batch excludes its own "
                      "seed edges, from link_seeds::edge_ids)");
  }
  (void)sample_blocks_bounds(seed_node_bound(), options_.fanouts, graph_.num_nodes);
  (void)select_gather_policy(options_.gather, gather_device{}, gather_source{features_.kind, features_.row_bytes(), 0, 1});
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Negatives, class NegativeSampler>
std::int64_t link_preparer<Offset, Index, Feature, Label, Sampler, Negatives, NegativeSampler>::negative_bound() const
{
  return negative_count(negatives_, options_.batch_size);
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Negatives, class NegativeSampler>
std::int64_t link_preparer<Offset, Index, Feature, Label, Sampler, Negatives, NegativeSampler>::seed_node_bound() const
{
  return edge_seed_nodes_bound(options_.batch_size + negative_bound(), graph_.num_nodes);
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Negatives, class NegativeSampler>
std::int64_t link_preparer<Offset, Index, Feature, Label, Sampler, Negatives, NegativeSampler>::input_bound() const
{
  return sample_blocks_bounds(seed_node_bound(), options_.fanouts, graph_.num_nodes).back().num_src;
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Negatives, class NegativeSampler>
gather_policy
link_preparer<Offset, Index, Feature, Label, Sampler, Negatives, NegativeSampler>::feature_gather_policy() const noexcept
{
  gather_policy policy = options_.gather;
  // A bad id from a corrupt graph is then zero-filled (and raised by complete()), never read.
  policy.check_indices = policy.check_indices || options_.sampling.check_indices;
  return policy;
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Negatives, class NegativeSampler>
void link_preparer<Offset, Index, Feature, Label, Sampler, Negatives, NegativeSampler>::init_batch(batch_type& batch,
                                                                                                 cudaStream_t stream)
{
  auto& st = batch.storage;
  auto const z = [](std::int64_t x) { return static_cast<std::size_t>(std::max<std::int64_t>(x, 1)); };
  std::int64_t const p = options_.batch_size;
  std::int64_t const e = p + negative_bound();
  std::int64_t const s = seed_node_bound();
  std::size_t const layers = options_.fanouts.size();
  auto const pinned = memory_kind::pinned;
  st.staging = buffer<Index>(z(2 * p), pinned, {}, options_.host_memory);
  st.label_staging = buffer<Label>(z(e), pinned, {}, options_.host_memory);
  st.host_counts = buffer<std::int64_t>(2 + 2 * layers, pinned, {}, options_.host_memory);
  st.src = buffer<Index>(z(e), stream, mr_);
  st.dst = buffer<Index>(z(e), stream, mr_);
  st.labels = buffer<Label>(z(e), stream, mr_);
  st.unresolved = buffer<std::int64_t>(1, stream, mr_);
  st.negative_ws = buffer<unsigned char>(sample_negatives_workspace_bytes(), stream, mr_);
  st.seed_nodes = buffer<Index>(z(s), stream, mr_);
  st.num_seed_nodes = buffer<std::int64_t>(1, stream, mr_);
  st.local = buffer<Index>(z(2 * e), stream, mr_);
  st.seeds_ws = buffer<unsigned char>(edge_seeds_workspace_bytes<Index>(e), stream, mr_);
  st.blocks = sample_blocks_buffers<Offset, Index>(s, options_.fanouts, graph_.num_nodes, stream, mr_);
  if constexpr (is_temporal) {
    st.time_staging = buffer<std::int64_t>(z(e), pinned, {}, options_.host_memory);
    st.excluded_staging = buffer<std::int64_t>(z(p), pinned, {}, options_.host_memory);
    st.times = buffer<std::int64_t>(z(e), stream, mr_);
    st.excluded = buffer<std::int64_t>(z(p), stream, mr_);
    st.node_times = buffer<std::int64_t>(z(s), stream, mr_);
    st.temporal_ws = buffer<unsigned char>(
      sample_temporal_blocks_workspace_bytes<Offset, Index>(s, options_.fanouts, graph_.num_nodes), stream, mr_);
  }
  std::int64_t const inputs = input_bound();
  batch.feature_storage = buffer<Feature>(z(inputs * features_.cols), stream, mr_);
  st.feature_ws = buffer<unsigned char>(
    gather_workspace_bytes<Index>(inputs, features_.rows, features_.kind, features_.row_bytes(), feature_gather_policy()),
    stream, mr_);
  st.stream = stream;
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Negatives, class NegativeSampler>
std::int64_t link_preparer<Offset, Index, Feature, Label, Sampler, Negatives, NegativeSampler>::start_epoch(
  std::int64_t epoch)
{
  order_.resize(seeds_.src.size());
  std::iota(order_.begin(), order_.end(), std::int64_t{0});
  shuffle_epoch(order_, options_.seed, epoch);
  return num_batches();
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Negatives, class NegativeSampler>
std::int64_t link_preparer<Offset, Index, Feature, Label, Sampler, Negatives, NegativeSampler>::num_batches()
  const noexcept
{
  auto const n = static_cast<std::int64_t>(seeds_.src.size());
  return options_.drop_last ? n / options_.batch_size : (n + options_.batch_size - 1) / options_.batch_size;
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Negatives, class NegativeSampler>
void link_preparer<Offset, Index, Feature, Label, Sampler, Negatives, NegativeSampler>::stage_positives(
  batch_type& batch) const
{
  auto& st = batch.storage;
  std::int64_t const p = batch.num_positive;
  std::int64_t const e = batch.num_edges();
  Index* const endpoints = st.staging.host_data();
  Label* const labels = st.label_staging.host_data();
  for (std::int64_t i = 0; i < p; ++i) {
    auto const at = static_cast<std::size_t>(batch.host_positions[i]);
    endpoints[i] = seeds_.src[at];
    endpoints[p + i] = seeds_.dst[at];
    labels[i] = seeds_.labels.empty() ? Label(1) : seeds_.labels[at];
  }
  std::fill(labels + p, labels + e, Label(0));
  st.num_excluded = 0;
  if constexpr (is_temporal) {
    std::int64_t* const times = st.time_staging.host_data();
    for (std::int64_t i = 0; i < p; ++i) { times[i] = seeds_.times[static_cast<std::size_t>(batch.host_positions[i])]; }
    for (std::int64_t k = 0; k < batch.num_negative; ++k) {  // a negative takes its positive's time
      std::int64_t positive = 0;
      if constexpr (std::is_same_v<Negatives, triplet_negatives>) {
        positive = k / negatives_.amount;
      } else {
        positive = k % p;
      }
      times[p + k] = times[positive];
    }
    if (!seeds_.edge_ids.empty()) {
      std::int64_t* const excluded = st.excluded_staging.host_data();
      for (std::int64_t i = 0; i < p; ++i) {
        std::int64_t const id = seeds_.edge_ids[static_cast<std::size_t>(batch.host_positions[i])];
        if (id >= 0) { excluded[st.num_excluded++] = id; }
      }
      std::sort(excluded, excluded + st.num_excluded);
      st.num_excluded = std::unique(excluded, excluded + st.num_excluded) - excluded;
    }
  }
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Negatives, class NegativeSampler>
void link_preparer<Offset, Index, Feature, Label, Sampler, Negatives, NegativeSampler>::prepare(batch_type& batch,
                                                                                              cudaStream_t stream,
                                                                                              std::int64_t epoch,
                                                                                              std::int64_t b)
{
  auto& st = batch.storage;
  batch.epoch = epoch;
  batch.index = b;
  batch.first = b * options_.batch_size;
  batch.num_positive = std::min(options_.batch_size, static_cast<std::int64_t>(order_.size()) - batch.first);
  batch.num_negative = negative_count(negatives_, batch.num_positive);
  batch.host_positions = order_.data() + batch.first;
  std::int64_t const p = batch.num_positive;
  std::int64_t const e = batch.num_edges();
  stage_positives(batch);
  auto const copy = [stream](void* to, const void* from, std::size_t bytes) {
    if (bytes > 0) { GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDefault, stream)); }
  };
  auto const n = [](std::int64_t x) { return static_cast<std::size_t>(x); };
  copy(st.src.data(), st.staging.data(), n(p) * sizeof(Index));
  copy(st.dst.data(), st.staging.data() + p, n(p) * sizeof(Index));
  copy(st.labels.data(), st.label_staging.data(), n(e) * sizeof(Label));
  if constexpr (is_temporal) {
    copy(st.times.data(), st.time_staging.data(), n(e) * sizeof(std::int64_t));
    copy(st.excluded.data(), st.excluded_staging.data(), n(st.num_excluded) * sizeof(std::int64_t));
  }
  // Negatives after the positives, then the seed nodes and edge_label_index of all E.
  batch.negative_seed = batch_sampling_seed(link_negative_key(options_.seed), epoch, b);
  negative_options const negative{batch.negative_seed, b, options_.strict, options_.max_attempts};
  workspace_view const negative_ws{st.negative_ws.data(), st.negative_ws.bytes()};
  sample_negatives_async(stream, graph_, st.src.data(), st.dst.data(), p, negatives_, negative, st.src.data() + p,
                         st.dst.data() + p, st.unresolved.data(), negative_ws, negative_sampler_);
  workspace_view const seeds_ws{st.seeds_ws.data(), st.seeds_ws.bytes()};
  relabel_edge_seeds_async(stream, st.src.data(), st.dst.data(), e, is_temporal ? st.times.data() : nullptr,
                           graph_.num_nodes,
                           edge_seeds_view<Index>{st.seed_nodes.data(), st.num_seed_nodes.data(), st.local.data(),
                                                 is_temporal ? st.node_times.data() : nullptr},
                           seeds_ws);
  std::int64_t* const counts = st.host_counts.host_data();
  copy(counts, st.num_seed_nodes.data(), sizeof(std::int64_t));
  copy(counts + 1, st.unresolved.data(), sizeof(std::int64_t));
  // The one wait of the batch: the seed-node count sizes the sampling launches.
  sample_negatives_check(stream, negative_ws, graph_.num_nodes);
  edge_seeds_check(stream, seeds_ws, graph_.num_nodes);
  batch.num_seed_nodes = counts[0];
  batch.num_unresolved = counts[1];
  batch.sampling_seed = batch_sampling_seed(options_.seed, epoch, b);
  sample_blocks(batch, stream);
  copy(counts + 2, st.blocks.counts(), 2 * options_.fanouts.size() * sizeof(std::int64_t));
  auto const& last = st.blocks.view().layers.back();
  std::int64_t const bound = input_bound();
  table_view<Feature> const out(batch.feature_storage.data(), bound, features_.cols, features_.cols,
                                memory_kind::device);
  gather_async(stream, features_, last.src_nodes, bound, out, workspace_view{st.feature_ws.data(), st.feature_ws.bytes()},
               feature_gather_policy(), last.num_src);
  batch.src = st.src.data();
  batch.dst = st.dst.data();
  batch.edge_label_index = st.local.data();
  batch.edge_label = st.labels.data();
  batch.edge_label_time = is_temporal ? st.times.data() : nullptr;
  batch.seed_times = is_temporal ? st.node_times.data() : nullptr;
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Negatives, class NegativeSampler>
void link_preparer<Offset, Index, Feature, Label, Sampler, Negatives, NegativeSampler>::sample_blocks(
  batch_type& batch, cudaStream_t stream) const
{
  auto& st = batch.storage;
  if constexpr (is_temporal) {
    Sampler sampler = sampler_.with_seed(batch.sampling_seed);
    sampler.excluded_edges = st.num_excluded > 0 ? st.excluded.data() : nullptr;
    sampler.num_excluded = st.num_excluded;
    sample_temporal_blocks_async(stream, graph_, st.seed_nodes.data(), st.node_times.data(), batch.num_seed_nodes,
                                 options_.fanouts, sampler, options_.sampling, st.blocks.view(),
                                 workspace_view{st.temporal_ws.data(), st.temporal_ws.bytes()});
  } else {
    sample_blocks_async(stream, graph_, st.seed_nodes.data(), batch.num_seed_nodes, options_.fanouts,
                        reseeded(sampler_, batch.sampling_seed), options_.sampling, st.blocks.view(),
                        st.blocks.workspace());
  }
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Negatives, class NegativeSampler>
std::uint64_t link_preparer<Offset, Index, Feature, Label, Sampler, Negatives, NegativeSampler>::complete(
  batch_type& batch)
{
  auto& st = batch.storage;
  if (options_.sampling.check_indices) {
    workspace_view const ws = is_temporal ? workspace_view{st.temporal_ws.data(), st.temporal_ws.bytes()}
                                          : st.blocks.workspace();
    sample_blocks_check(st.stream, ws, options_.fanouts.size(), graph_.num_nodes);
  }
  if (feature_gather_policy().check_indices) {
    gather_check(st.stream, workspace_view{st.feature_ws.data(), st.feature_ws.bytes()}, features_.rows);
  }
  point_views(batch);
  return batch.feature_bytes;
}

template <class Offset, class Index, class Feature, class Label, class Sampler, class Negatives, class NegativeSampler>
void link_preparer<Offset, Index, Feature, Label, Sampler, Negatives, NegativeSampler>::point_views(
  batch_type& batch) const
{
  auto& st = batch.storage;
  std::int64_t const* const counts = st.host_counts.host_data() + 2;  // past seed nodes and unresolved
  batch.blocks = detail::point_block_views(st.blocks.view(), st.seed_nodes.data(), batch.num_seed_nodes, counts,
                                           st.block_views, batch.num_sampled_edges);
  batch.num_input_nodes = batch.blocks.input_nodes().count;
  batch.features = table_view<Feature>(batch.feature_storage.data(), batch.num_input_nodes, features_.cols,
                                       features_.cols, memory_kind::device);
  batch.feature_bytes = static_cast<std::size_t>(batch.num_input_nodes * features_.cols) * sizeof(Feature);
}

GNNDIRECT_NAMESPACE_END
