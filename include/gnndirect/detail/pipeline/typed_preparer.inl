#pragma once
// Definitions of pipeline/typed_preparer.cuh (included at its end; not part of the API).

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/algorithms/validate_typed.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/pipeline/gnn_preparer.cuh>
#include <gnndirect/pipeline/epoch_order.hpp>

#include <algorithm>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN

template <class T>
typed_feature_table<std::remove_const_t<T>, table_view<const T>> typed_features(int node_type, table_view<T> rows)
{
  return {node_type, table_view<const T>(rows)};
}

template <class Offset, class Index, class Label, class Samplers, class... Tables>
typed_preparer<Offset, Index, Label, Samplers, Tables...>::typed_preparer(
  const typed_graph_view<Offset, Index>& graph, const typed_schema& schema, int seed_type, std::tuple<Tables...> tables,
  const Label* labels, std::vector<Index> training_ids, typed_pipeline_options options, const Samplers& samplers,
  resource_ref mr)
  : graph_(graph),
    schema_(schema),
    seed_type_(seed_type),
    tables_(std::move(tables)),
    labels_(labels),
    training_ids_(std::move(training_ids)),
    options_(std::move(options)),
    samplers_(samplers),
    mr_(mr)
{
  check_typed_graph_shape(graph_, &schema_);
  GNNDIRECT_EXPECTS(seed_type_ >= 0 && seed_type_ < graph_.num_node_types,
                    "typed_preparer: seed type " + std::to_string(seed_type_) + " is no node type");
  GNNDIRECT_EXPECTS(options_.batch_size > 0, "typed_preparer: batch_size must be > 0");
  bounds_ = sample_typed_blocks_bounds(graph_, seed_type_, options_.batch_size, options_.fanouts);
  std::vector<std::int64_t> rows(static_cast<std::size_t>(graph_.num_node_types), -1);
  std::apply([&](auto const&... t) { (check_table(t, rows), ...); }, tables_);
  check_typed_table_rows(graph_, rows, &schema_);
  for (int r = 0; r < graph_.num_relations; ++r) {
    with_relation_sampler(samplers_, r, [&](auto const& sampler) {
      for (std::size_t l = 0; l < bounds_.num_layers(); ++l) {
        validate(sampler, options_.sampling, graph_.relations[r].csc, bounds_.fanouts[l][static_cast<std::size_t>(r)]);
      }
    });
  }
  std::int64_t const seeds_count = graph_.num_nodes[seed_type_];
  GNNDIRECT_EXPECTS(seeds_count == 0 || labels_ != nullptr, "typed_preparer: null labels");
  labels_kind_ = seeds_count > 0 ? detail::device_visible_kind(labels_, "labels") : memory_kind::device;
  bad_id_position_ = detail::first_bad_id(training_ids_, seeds_count);
}

template <class Offset, class Index, class Label, class Samplers, class... Tables>
auto typed_preparer<Offset, Index, Label, Samplers, Tables...>::init_batch(
  batch_type& batch, cudaStream_t stream) -> void
{
  auto& st = batch.storage;
  auto const n = static_cast<std::size_t>(options_.batch_size);
  st.staging = buffer<Index>(n, memory_kind::pinned, {}, options_.host_memory);
  st.seeds = buffer<Index>(n, stream, mr_);
  st.blocks = sample_typed_blocks_buffers<Offset, Index>(graph_, seed_type_, options_.batch_size, options_.fanouts,
                                                         stream, mr_, options_.edge_ids);
  st.host_counts = buffer<std::int64_t>(st.blocks.num_counts(), memory_kind::pinned, {}, options_.host_memory);
  st.feature_ws.clear();
  init_tables(batch, stream, std::index_sequence_for<Tables...>{});
  batch.label_storage = buffer<Label>(n, stream, mr_);
  st.label_ws = buffer<unsigned char>(
    gather_workspace_bytes<Index>(options_.batch_size, graph_.num_nodes[seed_type_], labels_kind_, sizeof(Label),
                                  options_.gather),
    stream, mr_);
  st.stream = stream;
}

template <class Offset, class Index, class Label, class Samplers, class... Tables>
auto typed_preparer<Offset, Index, Label, Samplers, Tables...>::start_epoch(std::int64_t epoch) -> std::int64_t
{
  order_ = training_ids_;
  shuffle_epoch(order_, options_.seed, epoch);
  if (bad_id_position_ >= 0) {
    throw index_out_of_range(__FILE__, __LINE__, "training_ids", bad_id_position_,
                             static_cast<std::int64_t>(training_ids_[static_cast<std::size_t>(bad_id_position_)]),
                             graph_.num_nodes[seed_type_]);
  }
  return num_batches();
}

template <class Offset, class Index, class Label, class Samplers, class... Tables>
auto typed_preparer<Offset, Index, Label, Samplers, Tables...>::prepare(
  batch_type& batch, cudaStream_t stream, std::int64_t epoch, std::int64_t b) -> void
{
  auto& st = batch.storage;
  batch.epoch = epoch;
  batch.index = b;
  batch.first = b * options_.batch_size;
  batch.num_seeds = std::min(options_.batch_size, static_cast<std::int64_t>(order_.size()) - batch.first);
  batch.host_seeds = order_.data() + batch.first;
  std::copy_n(batch.host_seeds, batch.num_seeds, st.staging.host_data());
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(st.seeds.data(), st.staging.data(),
                                     sizeof(Index) * static_cast<std::size_t>(batch.num_seeds),
                                     cudaMemcpyDefault, stream));
  batch.seeds = st.seeds.data();
  batch.sampling_seed = batch_sampling_seed(options_.seed, epoch, b);
  sample_typed_blocks_async(stream, graph_, seed_type_, batch.seeds, batch.num_seeds, options_.fanouts,
                            detail::reseeded_all(samplers_, batch.sampling_seed), options_.sampling,
                            st.blocks.view(), st.blocks.workspace());
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(st.host_counts.host_data(), st.blocks.counts(), st.host_counts.bytes(),
                                     cudaMemcpyDefault, stream));
  gather_tables(batch, stream, std::index_sequence_for<Tables...>{});
  table_view<const Label> const label_table(labels_, graph_.num_nodes[seed_type_], 1, 1, labels_kind_);
  table_view<Label> const out(batch.label_storage.data(), batch.num_seeds, 1, 1, memory_kind::device);
  gather_async(stream, label_table, batch.seeds, batch.num_seeds, out,
               workspace_view{st.label_ws.data(), st.label_ws.bytes()}, options_.gather);
  batch.labels = batch.label_storage.data();
}

template <class Offset, class Index, class Label, class Samplers, class... Tables>
auto typed_preparer<Offset, Index, Label, Samplers, Tables...>::complete(batch_type& batch) -> std::uint64_t
{
  auto& st = batch.storage;
  if (options_.sampling.check_indices) {
    sample_typed_blocks_check(st.stream, st.blocks.workspace(), graph_, seed_type_, bounds_.num_layers());
  }
  if (options_.gather.check_indices) {
    check_tables(batch, std::index_sequence_for<Tables...>{});
    gather_check(st.stream, workspace_view{st.label_ws.data(), st.label_ws.bytes()}, graph_.num_nodes[seed_type_]);
  }
  batch.blocks = st.blocks.view_of(st.host_counts.host_data());
  batch.num_sampled_edges = 0;
  for (auto const& layer : batch.blocks.layers) {
    for (auto const& r : layer) { batch.num_sampled_edges += r.num_edges(); }
  }
  batch.feature_bytes = 0;
  point_tables(batch, std::index_sequence_for<Tables...>{});
  return batch.feature_bytes;
}

template <class Offset, class Index, class Label, class Samplers, class... Tables>
auto typed_preparer<Offset, Index, Label, Samplers, Tables...>::num_batches() const noexcept -> std::int64_t
{
  auto const n = static_cast<std::int64_t>(training_ids_.size());
  return options_.drop_last ? n / options_.batch_size : (n + options_.batch_size - 1) / options_.batch_size;
}

template <class Offset, class Index, class Label, class Samplers, class... Tables>
template <class Table>
auto typed_preparer<Offset, Index, Label, Samplers, Tables...>::check_table(
  const Table& t, std::vector<std::int64_t>& rows) const -> void
{
  GNNDIRECT_EXPECTS(t.node_type >= 0 && t.node_type < graph_.num_node_types,
                    "typed_preparer: a feature table names node type " + std::to_string(t.node_type) +
                      ", the graph has " + std::to_string(graph_.num_node_types));
  auto& entry = rows[static_cast<std::size_t>(t.node_type)];
  GNNDIRECT_EXPECTS(entry == -1, "typed_preparer: two feature tables for node type '" +
                                   schema_.node_type_name(t.node_type) + "'");
  validate(t.rows, "features");
  entry = t.rows.rows;
}

template <class Offset, class Index, class Label, class Samplers, class... Tables>
template <std::size_t... I>
auto typed_preparer<Offset, Index, Label, Samplers, Tables...>::init_tables(
  batch_type& batch, cudaStream_t stream, std::index_sequence<I...>) -> void
{
  (init_table<I>(batch, stream), ...);
}

template <class Offset, class Index, class Label, class Samplers, class... Tables>
template <std::size_t I>
auto typed_preparer<Offset, Index, Label, Samplers, Tables...>::init_table(
  batch_type& batch, cudaStream_t stream) -> void
{
  auto const& t = std::get<I>(tables_);
  using F = typename std::tuple_element_t<I, std::tuple<Tables...>>::feature_type;
  std::int64_t const bound = bounds_.nodes[static_cast<std::size_t>(t.node_type)];
  std::get<I>(batch.feature_storage) =
    buffer<F>(static_cast<std::size_t>(std::max<std::int64_t>(1, bound * t.rows.cols)), stream, mr_);
  batch.storage.feature_ws.push_back(buffer<unsigned char>(
    gather_workspace_bytes<Index>(bound, t.rows.rows, t.rows.kind, detail::feature_load_bytes(t.rows), options_.gather),
    stream, mr_));
}

template <class Offset, class Index, class Label, class Samplers, class... Tables>
template <std::size_t... I>
auto typed_preparer<Offset, Index, Label, Samplers, Tables...>::gather_tables(
  batch_type& batch, cudaStream_t stream, std::index_sequence<I...>) -> void
{
  (gather_table<I>(batch, stream), ...);
}

template <class Offset, class Index, class Label, class Samplers, class... Tables>
template <std::size_t I>
auto typed_preparer<Offset, Index, Label, Samplers, Tables...>::gather_table(
  batch_type& batch, cudaStream_t stream) -> void
{
  auto const& t = std::get<I>(tables_);
  using F = typename std::tuple_element_t<I, std::tuple<Tables...>>::feature_type;
  auto const type = static_cast<std::size_t>(t.node_type);
  std::int64_t const bound = bounds_.nodes[type];
  auto const& list = batch.storage.blocks.view().node_types[type];
  table_view<F> const out(std::get<I>(batch.feature_storage).data(), bound, t.rows.cols, t.rows.cols,
                          memory_kind::device);
  auto const& ws = batch.storage.feature_ws[I];
  // The type's list length after the last layer, read on the device.
  gather_async(stream, t.rows, list.nodes, bound, out, workspace_view{ws.data(), ws.bytes()}, options_.gather,
               list.counts + bounds_.num_layers());
}

template <class Offset, class Index, class Label, class Samplers, class... Tables>
template <std::size_t... I>
auto typed_preparer<Offset, Index, Label, Samplers, Tables...>::check_tables(
  batch_type& batch, std::index_sequence<I...>) -> void
{
  (gather_check(batch.storage.stream,
                workspace_view{batch.storage.feature_ws[I].data(), batch.storage.feature_ws[I].bytes()},
                std::get<I>(tables_).rows.rows),
   ...);
}

template <class Offset, class Index, class Label, class Samplers, class... Tables>
template <std::size_t... I>
auto typed_preparer<Offset, Index, Label, Samplers, Tables...>::point_tables(
  batch_type& batch, std::index_sequence<I...>) -> void
{
  (point_table<I>(batch), ...);
}

template <class Offset, class Index, class Label, class Samplers, class... Tables>
template <std::size_t I>
auto typed_preparer<Offset, Index, Label, Samplers, Tables...>::point_table(batch_type& batch) -> void
{
  auto const& t = std::get<I>(tables_);
  using F = typename std::tuple_element_t<I, std::tuple<Tables...>>::feature_type;
  std::int64_t const rows = batch.blocks.node_types[static_cast<std::size_t>(t.node_type)].nodes.count;
  std::get<I>(batch.features) =
    table_view<F>(std::get<I>(batch.feature_storage).data(), rows, t.rows.cols, t.rows.cols, memory_kind::device);
  batch.feature_bytes += static_cast<std::size_t>(rows * t.rows.cols) * sizeof(F);
}

GNNDIRECT_NAMESPACE_END
