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

#include <gnndirect/algorithms/sample_typed_blocks_async.cuh>
#include <gnndirect/algorithms/sample_typed_blocks_buffers.cuh>
#include <gnndirect/algorithms/typed_samplers.hpp>
#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/sampled_typed_views.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/typed_schema.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/pipeline/typed_preparer.cuh>
#include <gnndirect/owners/buffer.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
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
typed_feature_table<std::remove_const_t<T>, table_view<const T>> typed_features(int node_type, table_view<T> rows);

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
  typed_blocks_view<Offset, Index> blocks;          ///< typed blocks (device views)
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
                 typed_pipeline_options options, const Samplers& samplers, resource_ref mr);

  /// Allocates a slot's arrays for batch_size seeds (pinned staging from options.host_memory,
  /// the rest stream-ordered from the device resource).
  /// @param batch the slot's batch  @param stream the slot's stream
  void init_batch(batch_type& batch, cudaStream_t stream);

  /// Shuffles the training ids for `epoch`.  @param epoch the epoch  @return its batch count
  /// @throws index_out_of_range naming "training_ids" and the first id outside the seed type.
  std::int64_t start_epoch(std::int64_t epoch);

  /// Enqueues batch b of `epoch` on `stream`: seeds, typed blocks, the counts' copy, each
  /// table's gather and the labels. Never waits for the GPU.
  /// @param batch the slot's batch  @param stream the slot's stream  @param epoch, b which batch
  /// @throws cuda_error.
  void prepare(batch_type& batch, cudaStream_t stream, std::int64_t epoch, std::int64_t b);

  /// Once the batch's GPU work is done: raises recorded errors (with checks on), points the
  /// batch's views at the valid prefixes.  @param batch the batch  @return its feature bytes
  /// @throws index_out_of_range, invalid_argument (corrupt graph), cuda_error.
  std::uint64_t complete(batch_type& batch);

  /// @return batches per epoch: ceil(training ids / batch_size), or floor with drop_last
  std::int64_t num_batches() const noexcept;
  /// The current epoch's shuffled training ids.  @return the ids
  const std::vector<Index>& epoch_order() const noexcept { return order_; }
  /// @return the bounds every slot is sized for
  const typed_blocks_bounds& bounds() const noexcept { return bounds_; }

 private:
  /// Checks one feature table: a node type of the graph, no earlier table for it, a valid
  /// view; records its row count in rows[node type] (checked against the graph afterwards).
  /// @throws invalid_argument
  template <class Table>
  void check_table(const Table& t, std::vector<std::int64_t>& rows) const;

  /// Allocates every table's bound-sized batch table and gather workspace (init_table each).
  template <std::size_t... I>
  void init_tables(batch_type& batch, cudaStream_t stream, std::index_sequence<I...>);
  /// Allocates table I's batch table (its type's node bound x cols) and gather workspace.
  template <std::size_t I>
  void init_table(batch_type& batch, cudaStream_t stream);

  /// Enqueues every table's gather (gather_table each).
  template <std::size_t... I>
  void gather_tables(batch_type& batch, cudaStream_t stream, std::index_sequence<I...>);
  /// Enqueues table I's gather of its type's node list, the count read on the device.
  template <std::size_t I>
  void gather_table(batch_type& batch, cudaStream_t stream);

  /// Raises the index errors recorded by the tables' gathers (gather_check each).
  template <std::size_t... I>
  void check_tables(batch_type& batch, std::index_sequence<I...>);

  /// Points every batch table at its valid rows and adds up feature_bytes (point_table each).
  template <std::size_t... I>
  void point_tables(batch_type& batch, std::index_sequence<I...>);
  /// Points table I's batch table at the rows of its type's list, adds its bytes.
  template <std::size_t I>
  void point_table(batch_type& batch);

  /// The inputs (views borrowed; the schema, tables' views and ids copied).
  typed_graph_view<Offset, Index> graph_;
  typed_schema schema_;
  int seed_type_;
  std::tuple<Tables...> tables_;
  const Label* labels_;
  std::vector<Index> training_ids_;
  /// The options and the samplers every batch reseeds.
  typed_pipeline_options options_;
  Samplers samplers_;
  /// The resource of every device array.
  resource_ref mr_;
  /// The bounds every slot is sized for.
  typed_blocks_bounds bounds_;
  /// Where the labels live.
  memory_kind labels_kind_{memory_kind::device};
  /// First training id outside the seed type, -1 if none (raised by start_epoch).
  std::int64_t bad_id_position_{-1};
  /// The epoch's shuffled ids; read by the workers.
  std::vector<Index> order_;
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/pipeline/typed_preparer.inl>
