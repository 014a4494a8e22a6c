#pragma once
/// @file typed_preparer.cuh
/// @brief The typed (heterogeneous) GNN recipe as a batch_scheduler preparer
/// (pipeline/scheduler.cuh): shuffled seeds of one node type -> typed blocks
/// (sample_typed_blocks_async) -> features of every node type that has a table, each gathered
/// from its own table, and the seeds' labels (nvcc).
///
/// Feature tables are a heterogeneous list, one typed_feature_table per node type that has
/// features (types without a table are allowed): each has its own element type, width,
/// placement and, through an encoded_view, codec; the preparer is a template on the list, so
/// each table is gathered by its own instantiation of gather_async into a batch table of its own
/// type (minibatch's features become a std::tuple). Per batch, on its slot's stream and with no
/// host round trip: seeds to the device, typed sampling into the slot's bound-sized arrays, an
/// asynchronous copy of the counts, then one gather per table whose count (the type's list
/// length) is read on the device, and the labels. complete() raises recorded errors and points
/// the batch's views at the valid prefixes.

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/algorithms/sample_typed_blocks_async.cuh>
#include <gnndirect/algorithms/sample_typed_blocks_buffers.cuh>
#include <gnndirect/algorithms/typed_samplers.hpp>
#include <gnndirect/algorithms/validate_typed.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/sampled_typed_refs.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/typed_schema.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/pipeline/gnn_preparer.cuh>
#include <gnndirect/detail/pipeline/typed_preparer.cuh>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/pipeline/epoch_order.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// The feature table of one node type: its rows (local ids of the type) gathered into batch
/// tables of element type Feature.
/// @tparam Feature element type of the batch's table for this node type
/// @tparam Rows table_view<const T> (any placement; T converts to Feature) or encoded_view<Codec>
/// (decoded to Feature inside the gather)
template <class Feature, class Rows>
struct typed_feature_table {
  using feature_type = Feature;  ///< the batch table's element type
  using rows_type = Rows;        ///< the source rows' view type
  int node_type{-1};             ///< the node type whose rows these are
  Rows rows;                     ///< one row per node of the type
};

/// A plain table as one node type's features (Feature = the table's element type).
/// @param node_type the node type  @param rows its table  @return the entry
/// @tparam T element type
template <class T>
typed_feature_table<std::remove_const_t<T>, table_view<const T>> typed_features(int node_type, table_view<T> rows)
{
  return {node_type, table_view<const T>(rows)};
}

/// What a typed_preparer prepares and how.
struct typed_pipeline_options {
  typed_fanouts fanouts;              ///< per relation per layer (typed_fanouts_of)
  std::int64_t batch_size{1024};      ///< seeds per batch (> 0)
  bool drop_last{false};              ///< drop a last batch smaller than batch_size
  sampling_policy sampling{};         ///< tile, budget and checks of every relation's sampling
  /// The key of every random choice, as pipeline_options::seed: epoch e's shuffle is
  /// shuffle_epoch(ids, seed, e), and its batch b samples with every sampler reseeded by
  /// batch_sampling_seed(seed, e, b) (those with with_seed).
  std::uint64_t seed{0};
  gather_policy gather{};             ///< feature and label gathers (defaults per placement)
  bool edge_ids{true};                ///< keep the sampled edges' ids
  /// Pinned staging's resource (the seeds, the counts read back); default cudaHostAlloc.
  host_resource_ref host_memory{};
};

/// One prepared typed mini-batch; every device array lives in its slot and stays valid until
/// the batch is released.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Label label type  @tparam Features the element types of the feature tables, in order
template <class Offset, class Index, class Label, class... Features>
struct typed_minibatch {
  std::int64_t epoch{0};               ///< epoch it belongs to
  std::int64_t index{0};               ///< position of the batch in its epoch
  std::int64_t first{0};               ///< position of its first seed in the epoch order
  std::int64_t num_seeds{0};           ///< seeds in this batch (rows 0.. of the seed type's list)
  std::int64_t num_sampled_edges{0};   ///< over all layers and relations
  std::size_t feature_bytes{0};        ///< feature bytes gathered, all tables
  std::uint64_t sampling_seed{0};      ///< seed every sampler was reseeded with
  const Index* host_seeds{nullptr};    ///< the seeds in host memory (valid until the next epoch)
  const Index* seeds{nullptr};         ///< the seeds in device memory
  typed_blocks_ref<Offset, Index> blocks;          ///< typed blocks (device views)
  /// Table i: one row per node of table i's node type in the batch (the type's whole list,
  /// blocks.input_nodes(type) order), device memory.
  std::tuple<table_view<Features>...> features;
  const Label* labels{nullptr};        ///< num_seeds labels of the seeds, device memory
  std::tuple<buffer<Features>...> feature_storage;  ///< owners of `features` (bound-sized, reused)
  buffer<Label> label_storage;         ///< owner of `labels`
  detail::typed_slot_storage<Offset, Index> storage;  ///< the slot's other arrays (internal)
};

/// The typed GNN recipe as a preparer for batch_scheduler (scheduler.cuh has the concept).
///
/// The graph, tables and labels are borrowed (views) and must outlive it, as must `mr`.
/// prepare() may run concurrently on different slots.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Label label type
/// @tparam Samplers a sampler type (all relations) or per_relation_samplers
/// @tparam Tables typed_feature_table types, one per node type with features
template <class Offset, class Index, class Label, class Samplers, class... Tables>
class typed_preparer {
 public:
  /// What a slot holds.
  using batch_type = typed_minibatch<Offset, Index, Label, typename Tables::feature_type...>;

  /// Checks the inputs (the graph's shape, the seed type, the tables' node types and row
  /// counts, the labels, the fanouts and sampling policy). Synchronous; no GPU work.
  /// @param graph device-visible typed graph (any placement per relation)
  /// @param schema its names (for messages; must match the view)
  /// @param seed_type node type of the training ids
  /// @param tables one per node type with features (others have none)
  /// @param labels device-visible array of one label per node of the seed type
  /// @param training_ids ids of the seed type (host); one out of range fails start_epoch
  /// @param options see typed_pipeline_options
  /// @param samplers what every batch draws (reseeded per batch)
  /// @param mr memory resource for every device array
  /// @throws invalid_argument naming an unknown node type, a table whose row count does not
  /// match its node type, two tables for one type, fanouts that do not fit the graph, a bad
  /// batch size or sampling policy, null or pageable labels; cuda_error.
  typed_preparer(const typed_graph_view<Offset, Index>& graph, const typed_schema& schema, int seed_type,
                 std::tuple<Tables...> tables, const Label* labels, std::vector<Index> training_ids,
                 typed_pipeline_options options, const Samplers& samplers, resource_ref mr)
    : graph_(graph), schema_(schema), seed_type_(seed_type), tables_(std::move(tables)), labels_(labels),
      training_ids_(std::move(training_ids)), options_(std::move(options)), samplers_(samplers), mr_(mr)
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

  /// Allocates a slot's arrays for batch_size seeds (pinned staging from options.host_memory,
  /// the rest stream-ordered from the device resource).
  /// @param batch the slot's batch  @param stream the slot's stream
  void init_batch(batch_type& batch, cudaStream_t stream)
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

  /// Shuffles the training ids for `epoch`.  @param epoch the epoch  @return its batch count
  /// @throws index_out_of_range naming "training_ids" and the first id outside the seed type.
  std::int64_t start_epoch(std::int64_t epoch)
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

  /// Enqueues batch b of `epoch` on `stream`: seeds, typed blocks, the counts' copy, each
  /// table's gather and the labels. Never waits for the GPU.
  /// @param batch the slot's batch  @param stream the slot's stream  @param epoch, b which batch
  /// @throws cuda_error.
  void prepare(batch_type& batch, cudaStream_t stream, std::int64_t epoch, std::int64_t b)
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
                              st.blocks.ref(), st.blocks.workspace());
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(st.host_counts.host_data(), st.blocks.counts(), st.host_counts.bytes(),
                                       cudaMemcpyDefault, stream));
    gather_tables(batch, stream, std::index_sequence_for<Tables...>{});
    table_view<const Label> const label_table(labels_, graph_.num_nodes[seed_type_], 1, 1, labels_kind_);
    table_view<Label> const out(batch.label_storage.data(), batch.num_seeds, 1, 1, memory_kind::device);
    gather_async(stream, label_table, batch.seeds, batch.num_seeds, out,
                 workspace_view{st.label_ws.data(), st.label_ws.bytes()}, options_.gather);
    batch.labels = batch.label_storage.data();
  }

  /// Once the batch's GPU work is done: raises recorded errors (with checks on), points the
  /// batch's views at the valid prefixes.  @param batch the batch  @return its feature bytes
  /// @throws index_out_of_range, invalid_argument (corrupt graph), cuda_error.
  std::uint64_t complete(batch_type& batch)
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

  /// @return batches per epoch: ceil(training ids / batch_size), or floor with drop_last
  std::int64_t num_batches() const noexcept
  {
    auto const n = static_cast<std::int64_t>(training_ids_.size());
    return options_.drop_last ? n / options_.batch_size : (n + options_.batch_size - 1) / options_.batch_size;
  }
  /// The current epoch's shuffled training ids.  @return the ids
  const std::vector<Index>& epoch_order() const noexcept { return order_; }
  /// @return the bounds every slot is sized for
  const typed_blocks_bounds& bounds() const noexcept { return bounds_; }

 private:
  template <class Table>
  void check_table(const Table& t, std::vector<std::int64_t>& rows) const
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

  template <std::size_t... I>
  void init_tables(batch_type& batch, cudaStream_t stream, std::index_sequence<I...>)
  {
    (init_table<I>(batch, stream), ...);
  }
  template <std::size_t I>
  void init_table(batch_type& batch, cudaStream_t stream)
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

  template <std::size_t... I>
  void gather_tables(batch_type& batch, cudaStream_t stream, std::index_sequence<I...>)
  {
    (gather_table<I>(batch, stream), ...);
  }
  template <std::size_t I>
  void gather_table(batch_type& batch, cudaStream_t stream)
  {
    auto const& t = std::get<I>(tables_);
    using F = typename std::tuple_element_t<I, std::tuple<Tables...>>::feature_type;
    auto const type = static_cast<std::size_t>(t.node_type);
    std::int64_t const bound = bounds_.nodes[type];
    auto const& list = batch.storage.blocks.ref().node_types[type];
    table_view<F> const out(std::get<I>(batch.feature_storage).data(), bound, t.rows.cols, t.rows.cols,
                            memory_kind::device);
    auto const& ws = batch.storage.feature_ws[I];
    // The type's list length after the last layer, read on the device.
    gather_async(stream, t.rows, list.nodes, bound, out, workspace_view{ws.data(), ws.bytes()}, options_.gather,
                 list.counts + bounds_.num_layers());
  }

  template <std::size_t... I>
  void check_tables(batch_type& batch, std::index_sequence<I...>)
  {
    (gather_check(batch.storage.stream,
                  workspace_view{batch.storage.feature_ws[I].data(), batch.storage.feature_ws[I].bytes()},
                  std::get<I>(tables_).rows.rows),
     ...);
  }

  template <std::size_t... I>
  void point_tables(batch_type& batch, std::index_sequence<I...>)
  {
    (point_table<I>(batch), ...);
  }
  template <std::size_t I>
  void point_table(batch_type& batch)
  {
    auto const& t = std::get<I>(tables_);
    using F = typename std::tuple_element_t<I, std::tuple<Tables...>>::feature_type;
    std::int64_t const rows = batch.blocks.node_types[static_cast<std::size_t>(t.node_type)].nodes.count;
    std::get<I>(batch.features) =
      table_view<F>(std::get<I>(batch.feature_storage).data(), rows, t.rows.cols, t.rows.cols, memory_kind::device);
    batch.feature_bytes += static_cast<std::size_t>(rows * t.rows.cols) * sizeof(F);
  }

  typed_graph_view<Offset, Index> graph_;
  typed_schema schema_;
  int seed_type_;
  std::tuple<Tables...> tables_;
  const Label* labels_;
  std::vector<Index> training_ids_;
  typed_pipeline_options options_;
  Samplers samplers_;
  resource_ref mr_;
  typed_blocks_bounds bounds_;
  memory_kind labels_kind_{memory_kind::device};
  std::int64_t bad_id_position_{-1};
  std::vector<Index> order_;
};

GNNDIRECT_NAMESPACE_END
