#pragma once
/// @file minibatch_pipeline.cuh
/// @brief Mini-batch pipeline: shuffled seeds -> sampled blocks -> gathered features and labels,
/// prepared on a side stream by a worker thread while the consumer trains on earlier batches.
///
/// Per batch, on the non-blocking stream of the slot it occupies: the seeds go from a pinned
/// staging buffer to the device, sample_blocks relabels them into message-flow blocks, gather_async
/// copies the input nodes' feature rows and the seeds' labels into device buffers, and a `ready`
/// event is recorded. Every buffer is allocated stream-ordered from the pipeline's own memory pool,
/// whose release threshold keeps the memory reserved, so after the first batches no cudaMalloc
/// happens. Up to `depth` batches exist at once (in preparation, ready, or held by the consumer).
///
/// `workers` host threads prepare batches concurrently, each on its own slot's stream, so one
/// batch's gathers (link-bound) overlap the next batch's sampling (latency-bound: it reads sizes
/// back to the host between kernels). Batches are assigned to workers and slots in batch order and
/// handed out in batch order, so the output does not depend on the number of workers. Workers wait
/// for the GPU in wait_mode::sleep (host_wait.hpp) by default: they cost almost no CPU time.
///
/// Consumer protocol (one consumer thread):
/// @code
///   pipeline.start_epoch(epoch);
///   while (auto* batch = pipeline.next(train_stream)) {  // train_stream waits for the batch
///     train_step(train_stream, batch->blocks, batch->features, batch->labels);
///     pipeline.release(batch, train_stream);            // freed once train_stream is past here
///   }
/// @endcode
///
/// Synchronisation: next() blocks the calling thread only until the batch has been prepared, then
/// orders `consumer` after it with cudaStreamWaitEvent; release() records an event on `consumer`
/// and the batch's slot stream waits on it before the batch's memory is freed or reused, so release()
/// never waits for the GPU. Graph capture: gather_async and sample_neighbors_async can be
/// captured in a CUDA graph, sample_blocks cannot (it reads sizes back to the host to allocate
/// each layer), so batch preparation is not capturable; next() and release() enqueue an event wait
/// and an event record on `consumer` and must not be called while `consumer` is being captured.

#include <gnndirect/detail/pipeline/cuda_handles.hpp>
#include <gnndirect/device.hpp>
#include <gnndirect/error.hpp>
#include <gnndirect/cache/hot_set.cuh>
#include <gnndirect/cache/tiered_table.cuh>
#include <gnndirect/gather/gather.cuh>
#include <gnndirect/gather/gather_policy.hpp>
#include <gnndirect/graph/sample_blocks.cuh>
#include <gnndirect/graph/sampling_policy.hpp>
#include <gnndirect/host_wait.hpp>
#include <gnndirect/memory/buffer.hpp>
#include <gnndirect/memory/memory_kind.hpp>
#include <gnndirect/memory/workspace.hpp>
#include <gnndirect/pipeline/epoch_order.hpp>
#include <gnndirect/views/csr_view.hpp>
#include <gnndirect/views/table_view.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gnndirect {

/// What a minibatch_pipeline prepares and how.
struct pipeline_options {
  std::vector<int> fanouts{15, 10, 5};  ///< one fanout per layer, seeds side first (at least one)
  std::int64_t batch_size{1024};        ///< seeds per batch (> 0)
  bool drop_last{false};                ///< drop the last batch when it is smaller than batch_size
  /// Sampling kind, tile and checks. Its seed is the base of every batch's sampling seed
  /// (batch_sampling_seed(seed, epoch, batch)), so each batch draws fresh neighbours.
  sampling_policy sampling{};
  gather_policy gather{};               ///< how feature and label rows are gathered
  std::uint64_t shuffle_seed{0};        ///< key of the per-epoch shuffle (shuffle_epoch)
  /// Batches in flight (in preparation, ready or held). 2 is double buffering; with `workers`
  /// > 1, depth >= workers + 1 lets the workers overlap while the consumer holds a batch.
  int depth{3};
  /// Host threads preparing batches concurrently (>= 1), each on its own stream: 2 overlaps one
  /// batch's sampling with the previous batch's gathers.
  int workers{2};
  /// How the workers wait for the GPU (sleep: no CPU time while waiting; spin: lowest latency).
  wait_mode worker_wait{wait_mode::sleep};
  /// When > 0, caps the thread blocks of sampling (sampling.block_budget) and of gathering
  /// (gather.max_blocks), so that preparation leaves most SMs to training kernels.
  int block_budget{0};
  /// Bytes to reserve in the pipeline's pool at construction (allocated and freed once). Batch
  /// sizes vary, so without a reserve the pool may still grow when a later batch is the largest
  /// yet; about depth x a large batch's footprint makes every batch come from reserved memory.
  std::size_t reserve_bytes{0};
  /// When > 0, device bytes for a tier of hot feature rows (cache/tiered_table.cuh), filled at
  /// construction with the highest-degree nodes; features of cached nodes are then gathered from
  /// HBM, the others from the host table, in one launch. Rebuild it between epochs through
  /// feature_cache() (e.g. with hot_rows_by_count from pre-sampling).
  std::size_t cache_bytes{0};
};

/// One prepared mini-batch; every device array lives in the pipeline's pool and stays valid until
/// the batch is released (and the consumer stream is past the release).
template <class Offset, class Index, class Feature, class Label>
struct minibatch {
  std::int64_t epoch{0};              ///< epoch it belongs to
  std::int64_t index{0};              ///< position of the batch in its epoch
  std::int64_t first{0};              ///< position of its first seed in the epoch order
  std::int64_t num_seeds{0};          ///< seeds (training nodes) in this batch
  std::int64_t num_input_nodes{0};    ///< rows of `features` (the last layer's src nodes)
  std::int64_t num_sampled_edges{0};  ///< sampled edges over all layers
  std::size_t feature_bytes{0};       ///< bytes of feature rows gathered for this batch
  std::uint64_t sampling_seed{0};     ///< sampling_policy::seed used for this batch's blocks
  const Index* host_seeds{nullptr};   ///< the seeds in host memory (valid until the next epoch)
  const Index* seeds{nullptr};        ///< the seeds in device memory (blocks.layers[0].dst_nodes)
  sampled_blocks<Offset, Index> blocks;  ///< message-flow blocks, seeds side first
  table_view<Feature> features;       ///< num_input_nodes x feature cols, device memory
  const Label* labels{nullptr};       ///< num_seeds labels of the seeds, device memory
  buffer<Feature> feature_storage;    ///< owner of `features`
  buffer<Label> label_storage;        ///< owner of `labels`
};

/// Host timestamps of one batch's preparation (std::chrono::steady_clock).
struct batch_timing {
  std::int64_t index{0};                          ///< batch index in the epoch
  std::chrono::steady_clock::time_point started;  ///< the worker began preparing it
  std::chrono::steady_clock::time_point ready;    ///< its GPU work had completed (when is_ready)
  bool is_ready{false};                           ///< ready is valid
};

/// Counters of a pipeline (a snapshot).
struct pipeline_stats {
  std::int64_t batches_prepared{0};   ///< since construction, all epochs
  std::uint64_t feature_bytes{0};     ///< feature bytes gathered since construction
  std::int64_t epoch{-1};             ///< the current epoch (-1 before the first start_epoch)
  std::vector<batch_timing> batches;  ///< current epoch, in batch order
};

namespace detail {

/// Placement of a device-visible pointer as the gather policy needs it (pinned and registered
/// memory behave alike). @throws invalid_argument for memory the GPU cannot read; cuda_error.
inline memory_kind device_visible_kind(const void* pointer, const char* what)
{
  cudaPointerAttributes attributes{};
  GNNDIRECT_CUDA_TRY(cudaPointerGetAttributes(&attributes, pointer));
  switch (attributes.type) {
    case cudaMemoryTypeDevice: return memory_kind::device;
    case cudaMemoryTypeManaged: return memory_kind::managed_host;
    case cudaMemoryTypeHost: return memory_kind::pinned;
    default: break;
  }
  throw invalid_argument(__FILE__, __LINE__,
                         std::string(what) + " is not device-visible (pageable host memory?): " +
                           "use device, pinned, registered or managed memory");
}

/// First position of an id outside [0, num_nodes), or -1.
template <class Index>
std::int64_t first_bad_id(const std::vector<Index>& ids, std::int64_t num_nodes) noexcept
{
  auto const bad = std::find_if(ids.begin(), ids.end(), [num_nodes](Index id) {
    return id < 0 || static_cast<std::int64_t>(id) >= num_nodes;
  });
  return bad == ids.end() ? -1 : static_cast<std::int64_t>(bad - ids.begin());
}

}  // namespace detail

/// Prepares shuffled mini-batches (blocks, features, labels) ahead of a training loop.
///
/// @tparam Offset, Index the graph's offset and node id types (int32_t or int64_t)
/// @tparam Feature feature element type  @tparam Label label type (trivially copyable)
/// The graph, features and labels are borrowed (views): they must outlive the pipeline. Not
/// copyable or movable (worker threads refer to it). next() and release() are for one consumer
/// thread; stats() may be called from any thread.
template <class Offset, class Index, class Feature, class Label>
class minibatch_pipeline {
 public:
  /// The hot-row tier of the features, or null when options.cache_bytes is 0. Rebuild it only
  /// between epochs (no batch in preparation or held).
  tiered_table<Feature>* feature_cache() noexcept { return cache_.get(); }

  /// The batch type next() hands out.
  using batch_type = minibatch<Offset, Index, Feature, Label>;

  /// Sets up the pool (reserving options.reserve_bytes) and `depth` slots (a non-blocking stream,
  /// pinned seed staging, events) on the current device; starts no batch (call start_epoch).
  /// Synchronous.
  /// @param graph device-visible CSR graph in any placement
  /// @param features device-visible table with a row per node (rows >= graph.num_nodes)
  /// @param labels device-visible array of graph.num_nodes labels
  /// @param training_ids the training node ids (host); ids out of range make next() throw
  /// @param options see pipeline_options
  /// @throws invalid_argument (options, shapes, sampling policy, pageable labels), cuda_error,
  /// allocation_error, no_device_error.
  minibatch_pipeline(const csr_view<Offset, Index>& graph, table_view<const Feature> features,
                     const Label* labels, std::vector<Index> training_ids, pipeline_options options)
    : graph_(graph),
      features_(features),
      labels_(labels),
      training_ids_(std::move(training_ids)),
      options_(checked_options(std::move(options), graph, features, labels)),
      device_(require_device()),
      labels_kind_(graph.num_nodes > 0 ? detail::device_visible_kind(labels, "labels")
                                       : memory_kind::device),
      bad_id_position_(detail::first_bad_id(training_ids_, graph.num_nodes)),
      pool_(detail::make_retaining_pool(device_)),
      stream_(detail::make_non_blocking_stream())
  {
    slots_.reserve(static_cast<std::size_t>(options_.depth));
    for (int s = 0; s < options_.depth; ++s) {
      slots_.push_back(std::make_unique<slot>(options_.batch_size));
    }
    reserve_pool();
    build_feature_cache();
  }

  minibatch_pipeline(const minibatch_pipeline&) = delete;
  minibatch_pipeline& operator=(const minibatch_pipeline&) = delete;

  /// Stops the workers (after the batches they are preparing, if any), treats batches still held
  /// as released on the stream they were handed to (that stream must still exist), frees every
  /// buffer on its slot's stream after the consumers, synchronises and destroys the streams and
  /// the pool. Never throws; CUDA failures are reported on stderr.
  ~minibatch_pipeline()
  {
    stop_workers();
    reclaim_slots();
    for (auto& s : slots_) {
      if (s->consumed_pending) {
        GNNDIRECT_CUDA_TRY_NOTHROW(cudaStreamWaitEvent(s->stream.get(), s->consumed.get(), 0));
      }
      s->batch = batch_type{};  // frees on the slot's stream, after the consumer's last use
      GNNDIRECT_CUDA_TRY_NOTHROW(cudaStreamSynchronize(s->stream.get()));
    }
    GNNDIRECT_CUDA_TRY_NOTHROW(cudaStreamSynchronize(stream_.get()));
  }

  /// Starts epoch `epoch`: stops the previous epoch's workers (batches still held are treated as
  /// released on the stream they were handed to), shuffles the training ids with
  /// shuffle_epoch(ids, options.shuffle_seed, epoch) and starts the workers. Returns once they
  /// are started (the shuffle runs on the calling thread, O(training ids)).
  /// @throws std::system_error when a thread cannot be started (the ones started keep working).
  void start_epoch(std::int64_t epoch)
  {
    stop_workers();
    reclaim_slots();
    order_ = training_ids_;
    shuffle_epoch(order_, options_.shuffle_seed, epoch);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = false;
      error_ = nullptr;
      error_batch_ = no_batch;
      epoch_ = epoch;
      next_to_prepare_ = 0;
      next_to_hand_out_ = 0;
      timings_.clear();
      if (bad_id_position_ >= 0) {  // no batch can be right: fail the first one, start nobody
        auto const position = static_cast<std::size_t>(bad_id_position_);
        error_ = std::make_exception_ptr(
          index_out_of_range(__FILE__, __LINE__, "training_ids", bad_id_position_,
                             static_cast<std::int64_t>(training_ids_[position]), graph_.num_nodes));
        error_batch_ = 0;
        return;
      }
    }
    for (int w = 0; w < options_.workers; ++w) { start_worker(epoch); }
  }

  /// Waits (host) until the next batch of the epoch is prepared, makes `consumer` wait for it on
  /// the GPU (cudaStreamWaitEvent: no host synchronisation with GPU work), and returns it; nullptr
  /// once the epoch's batches have all been handed out. Batches come in epoch order.
  /// @param consumer the stream that will use the batch (also where release() is expected)
  /// @throws what preparing the batch threw (e.g. index_out_of_range naming "training_ids" and
  /// the first bad position in the caller's vector), again on every call until the next
  /// start_epoch, after every earlier batch was handed out; invalid_argument before start_epoch,
  /// or when all `depth` batches are held (release one first: waiting would deadlock); cuda_error.
  batch_type* next(cudaStream_t consumer)
  {
    slot* chosen = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      GNNDIRECT_EXPECTS(epoch_ >= 0, "minibatch_pipeline::next: call start_epoch first");
      if (next_to_hand_out_ >= num_batches()) { return nullptr; }  // the epoch is over
      cv_.wait(lock, [this] {
        return ready_slot(next_to_hand_out_) != nullptr || next_failed() || running_ == 0 ||
               all_slots_held();
      });
      chosen = ready_slot(next_to_hand_out_);
      if (chosen == nullptr) {
        if (next_failed() || (error_ && running_ == 0)) { std::rethrow_exception(error_); }
        if (running_ == 0) { return nullptr; }  // stopped
        throw invalid_argument(__FILE__, __LINE__,
                               "minibatch_pipeline::next: all " + std::to_string(options_.depth) +
                                 " batches are held; release one before asking for the next");
      }
      chosen->state = slot_state::handed_out;
      chosen->consumer = consumer;
      ++next_to_hand_out_;
    }
    GNNDIRECT_CUDA_TRY(cudaStreamWaitEvent(consumer, chosen->ready.get(), 0));
    return &chosen->batch;
  }

  /// Gives a batch back: records an event on `consumer` after the work enqueued so far; the
  /// slot's stream waits on it before freeing or reusing the batch's memory, so the consumer may
  /// still be using the batch on the GPU when this returns. The batch must not be touched
  /// afterwards.
  /// @throws invalid_argument for a pointer next() did not hand out (or released twice);
  /// cuda_error.
  void release(const batch_type* batch, cudaStream_t consumer)
  {
    slot* const owner = slot_of(batch);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      GNNDIRECT_EXPECTS(owner != nullptr && owner->state == slot_state::handed_out,
                        "minibatch_pipeline::release: not a batch handed out by next()");
    }
    GNNDIRECT_CUDA_TRY(cudaEventRecord(owner->consumed.get(), consumer));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      owner->state = slot_state::free;
      owner->consumed_pending = true;
      owner->consumer = nullptr;
    }
    cv_.notify_all();
  }

  /// Batches per epoch: ceil(training ids / batch_size), or floor with drop_last.
  std::int64_t num_batches() const noexcept
  {
    auto const n = static_cast<std::int64_t>(training_ids_.size());
    return options_.drop_last ? n / options_.batch_size
                              : (n + options_.batch_size - 1) / options_.batch_size;
  }

  /// The current epoch's shuffled training ids (batch b holds positions [b * batch_size, ...)).
  /// Stable until the next start_epoch.
  const std::vector<Index>& epoch_order() const noexcept { return order_; }

  /// A snapshot of the counters and of the current epoch's per-batch timestamps. Thread-safe.
  pipeline_stats stats() const
  {
    std::lock_guard<std::mutex> lock(mutex_);
    return pipeline_stats{prepared_, feature_bytes_, epoch_, timings_};
  }

  /// The pipeline's memory pool (e.g. to read cudaMemPoolAttrReservedMemCurrent).
  cudaMemPool_t memory_pool() const noexcept { return pool_.get(); }
  /// The stream of the pipeline's own set-up work (pool reserve, cache fill). Batches are
  /// prepared on the streams of their slots.
  cudaStream_t side_stream() const noexcept { return stream_.get(); }
  /// The options in effect (block_budget applied).
  const pipeline_options& options() const noexcept { return options_; }

 private:
  enum class slot_state { free, preparing, ready, handed_out };
  static constexpr std::int64_t no_batch = std::numeric_limits<std::int64_t>::max();

  /// Room for one batch. A slot is owned by a worker while free or preparing, by the consumer
  /// while handed out; `state` and `batch_index` change under the mutex. All of a batch's GPU
  /// work and memory are ordered on the slot's stream, declared first so it is destroyed last.
  struct slot {
    detail::stream_handle stream{detail::make_non_blocking_stream()};
    batch_type batch;
    slot_state state{slot_state::free};
    std::int64_t batch_index{-1};  // batch of the current epoch held in the slot (-1: none)
    bool consumed_pending{false};  // `consumed` was recorded since the stream last waited on it
    cudaStream_t consumer{nullptr};
    detail::event_handle ready{detail::make_sync_event()};
    detail::event_handle consumed{detail::make_sync_event()};
    buffer<Index> staging;  // pinned: the seeds' path to the device

    explicit slot(std::int64_t batch_size)
      : staging(static_cast<std::size_t>(batch_size), memory_kind::pinned)
    {
    }
  };

  static pipeline_options checked_options(pipeline_options options,
                                          const csr_view<Offset, Index>& graph,
                                          const table_view<const Feature>& features,
                                          const Label* labels)
  {
    GNNDIRECT_EXPECTS(!options.fanouts.empty(), "minibatch_pipeline: at least one fanout is needed");
    GNNDIRECT_EXPECTS(options.batch_size > 0, "minibatch_pipeline: batch_size must be > 0");
    GNNDIRECT_EXPECTS(options.depth >= 1, "minibatch_pipeline: depth must be >= 1");
    GNNDIRECT_EXPECTS(options.workers >= 1, "minibatch_pipeline: workers must be >= 1");
    GNNDIRECT_EXPECTS(options.block_budget >= 0, "minibatch_pipeline: block_budget must be >= 0");
    if (options.block_budget > 0) {
      options.sampling.block_budget = options.block_budget;
      options.gather.max_blocks = options.block_budget;
    }
    for (int fanout : options.fanouts) { validate(options.sampling, graph, fanout); }
    (void)select_gather_policy(options.gather, features.kind, features.row_bytes(), 0);
    validate(features, "features");
    GNNDIRECT_EXPECTS(features.rows >= graph.num_nodes,
                      "minibatch_pipeline: features has " + std::to_string(features.rows) +
                        " rows for " + std::to_string(graph.num_nodes) + " nodes");
    GNNDIRECT_EXPECTS(graph.num_nodes == 0 || labels != nullptr, "minibatch_pipeline: null labels");
    return options;
  }

  /// Grows the pool to options_.reserve_bytes once: freed memory stays reserved (release
  /// threshold UINT64_MAX) and later allocations are carved from it. Synchronises stream_.
  void reserve_pool()
  {
    if (options_.reserve_bytes == 0) { return; }
    { buffer<std::byte> const reserve(options_.reserve_bytes, stream_.get(), pool_.get()); }
    GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream_.get()));
  }

  bool all_slots_held() const noexcept
  {
    return std::all_of(slots_.begin(), slots_.end(),
                       [](const auto& s) { return s->state == slot_state::handed_out; });
  }

  /// The slot holding batch b ready to be handed out, or nullptr. Call under the mutex.
  slot* ready_slot(std::int64_t b) const noexcept
  {
    for (auto const& s : slots_) {
      if (s->state == slot_state::ready && s->batch_index == b) { return s.get(); }
    }
    return nullptr;
  }

  /// The next batch to hand out failed (every earlier batch has been handed out). Under the mutex.
  bool next_failed() const noexcept { return error_ && error_batch_ <= next_to_hand_out_; }

  slot* slot_of(const batch_type* batch) const noexcept
  {
    for (auto const& s : slots_) {
      if (&s->batch == batch) { return s.get(); }
    }
    return nullptr;
  }

  /// Starts one worker thread, counted in running_ before it can finish.
  void start_worker(std::int64_t epoch)
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++running_;
    }
    try {
      workers_.emplace_back(&minibatch_pipeline::run, this, epoch);
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        --running_;
      }
      cv_.notify_all();
      throw;
    }
  }

  void stop_workers() noexcept
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& worker : workers_) {
      if (worker.joinable()) { worker.join(); }
    }
    workers_.clear();
  }

  /// With the workers stopped: every slot becomes free; held batches count as released on their
  /// consumer stream (recorded now), ready ones were never seen by a consumer.
  void reclaim_slots() noexcept
  {
    for (auto& s : slots_) {
      if (s->state == slot_state::handed_out) {
        GNNDIRECT_CUDA_TRY_NOTHROW(cudaEventRecord(s->consumed.get(), s->consumer));
        s->consumed_pending = true;
      }
      s->state = slot_state::free;
      s->batch_index = -1;
      s->consumer = nullptr;
    }
  }

  /// Worker thread body: takes the epoch's batches in order while slots are free, prepares and
  /// publishes each; the first failure stops every worker from taking more batches.
  void run(std::int64_t epoch) noexcept
  {
    try {
      GNNDIRECT_CUDA_TRY(cudaSetDevice(device_));  // the current device is per host thread
      scoped_wait_mode const waits(options_.worker_wait);
      while (true) {
        auto const [target, b] = take_batch();
        if (target == nullptr) { break; }
        try {
          prepare(*target, epoch, b);
        } catch (...) {
          abandon(*target);
          record_failure(b, std::current_exception());
          break;
        }
        publish(*target);
      }
    } catch (...) {  // setting up the thread failed: the next batch nobody took fails
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) {
        error_ = std::current_exception();
        error_batch_ = next_to_prepare_;
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --running_;
    }
    cv_.notify_all();
  }

  /// Waits for a free slot and assigns it the next batch of the epoch, in batch order, so the
  /// earliest unfinished batch always has a slot (no deadlock whatever the consumer holds). Then
  /// orders the slot's stream after the consumer's release and frees the slot's previous batch.
  /// Returns {nullptr, -1} when stopping, after a failure, or when every batch was taken.
  std::pair<slot*, std::int64_t> take_batch()
  {
    slot* chosen = nullptr;
    std::int64_t b = -1;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] {
        return stop_ || error_ || next_to_prepare_ >= num_batches() || free_slot() != nullptr;
      });
      if (stop_ || error_ || next_to_prepare_ >= num_batches()) { return {nullptr, -1}; }
      b = next_to_prepare_++;
      chosen = free_slot();
      chosen->state = slot_state::preparing;
      chosen->batch_index = b;
      timings_.push_back(batch_timing{b, std::chrono::steady_clock::now(), {}, false});
    }
    // The slot is this worker's now; nobody else reads consumed_pending until it is handed out.
    if (chosen->consumed_pending) {
      GNNDIRECT_CUDA_TRY(cudaStreamWaitEvent(chosen->stream.get(), chosen->consumed.get(), 0));
      chosen->consumed_pending = false;
    }
    chosen->batch = batch_type{};
    return {chosen, b};
  }

  slot* free_slot() const noexcept
  {
    for (auto const& s : slots_) {
      if (s->state == slot_state::free) { return s.get(); }
    }
    return nullptr;
  }

  /// Enqueues and completes batch b of `epoch` in `target` on its stream (the worker waits for
  /// the ready event, so the timestamps mean GPU completion; sampling waits for the stream anyway).
  void prepare(slot& target, std::int64_t epoch, std::int64_t b)
  {
    cudaStream_t const stream = target.stream.get();
    batch_type& batch = target.batch;
    batch.epoch = epoch;
    batch.index = b;
    batch.first = b * options_.batch_size;
    batch.num_seeds =
      std::min(options_.batch_size, static_cast<std::int64_t>(order_.size()) - batch.first);
    batch.host_seeds = order_.data() + batch.first;
    std::copy_n(batch.host_seeds, batch.num_seeds, target.staging.host_data());

    sampling_policy policy = options_.sampling;
    policy.seed = batch_sampling_seed(options_.sampling.seed, epoch, b);
    batch.sampling_seed = policy.seed;
    batch.blocks = sample_blocks(stream, graph_, static_cast<const Index*>(target.staging.data()),
                                 batch.num_seeds, options_.fanouts, policy, pool_.get());
    batch.seeds = batch.blocks.layers.front().dst_nodes.data();
    batch.num_sampled_edges = 0;
    for (auto const& layer : batch.blocks.layers) { batch.num_sampled_edges += layer.num_edges(); }

    buffer<Index> const& inputs = batch.blocks.input_nodes();
    batch.num_input_nodes = static_cast<std::int64_t>(inputs.size());
    batch.features =
      cache_ ? gather_rows(stream, cache_->view(), inputs.data(), batch.num_input_nodes, batch.feature_storage)
             : gather_rows(stream, features_, inputs.data(), batch.num_input_nodes, batch.feature_storage);
    batch.feature_bytes = static_cast<std::size_t>(batch.num_input_nodes) * features_.row_bytes();
    table_view<const Label> const label_table(labels_, graph_.num_nodes, 1, 1, labels_kind_);
    batch.labels =
      gather_rows(stream, label_table, batch.seeds, batch.num_seeds, batch.label_storage).data;

    GNNDIRECT_CUDA_TRY(cudaEventRecord(target.ready.get(), stream));
    GNNDIRECT_CUDA_TRY(cudaEventSynchronize(target.ready.get()));  // a blocking-sync event: sleeps
  }

  void build_feature_cache()
  {
    if (options_.cache_bytes == 0) { return; }
    cache_ = std::make_unique<tiered_table<Feature>>(features_, options_.cache_bytes);
    buffer<std::int64_t> const hot = hot_rows_by_degree(stream_.get(), graph_, cache_->capacity());
    cache_->rebuild(stream_.get(), hot.data(), cache_->capacity());
  }

  static const table_view<const Feature>& rows_of(const tiered_view<Feature>& source) noexcept
  {
    return source.host;
  }
  template <class T>
  static const table_view<const T>& rows_of(const table_view<const T>& source) noexcept
  {
    return source;
  }

  /// Gathers `count` rows of `source` into new device storage (stream-ordered on `stream` from
  /// the pool, like the workspace, so no call reaches cudaMalloc in steady state); raises index
  /// errors when the gather policy checks them.
  template <class Source, class T>
  table_view<T> gather_rows(cudaStream_t stream, const Source& source, const Index* rows,
                            std::int64_t count, buffer<T>& storage)
  {
    auto const& table = rows_of(source);
    storage = buffer<T>(static_cast<std::size_t>(count * table.cols), stream, pool_.get());
    table_view<T> const out(storage.data(), count, table.cols, table.cols, memory_kind::device);
    buffer<std::byte> const ws(gather_workspace_bytes<Index>(count, table.rows, table.kind,
                                                             table.row_bytes(), options_.gather),
                               stream, pool_.get());
    workspace_view const scratch{ws.data(), ws.bytes()};
    gather_async(stream, source, rows, count, out, scratch, options_.gather);
    if (options_.gather.check_indices) { gather_check(stream, scratch, table.rows); }
    return out;
  }

  void publish(slot& target)
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      target.state = slot_state::ready;
      batch_timing& timing = timings_[static_cast<std::size_t>(target.batch_index)];
      timing.ready = std::chrono::steady_clock::now();
      timing.is_ready = true;
      ++prepared_;
      feature_bytes_ += target.batch.feature_bytes;
    }
    cv_.notify_all();
  }

  /// Keeps the failure of the earliest batch; no worker takes a batch after it.
  void record_failure(std::int64_t b, std::exception_ptr failure) noexcept
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_ || b < error_batch_) {
        error_ = std::move(failure);
        error_batch_ = b;
      }
    }
    cv_.notify_all();
  }

  /// After a failed preparation: frees what was built (on the slot's stream) and frees the slot.
  void abandon(slot& target) noexcept
  {
    target.batch = batch_type{};
    std::lock_guard<std::mutex> lock(mutex_);
    target.state = slot_state::free;
    target.batch_index = -1;
  }

  csr_view<Offset, Index> graph_;
  table_view<const Feature> features_;
  std::unique_ptr<tiered_table<Feature>> cache_;  // hot feature rows in HBM (options.cache_bytes)
  const Label* labels_;
  std::vector<Index> training_ids_;
  pipeline_options options_;
  int device_;
  memory_kind labels_kind_;
  std::int64_t bad_id_position_;  // first training id out of range, -1 if none
  // Destroyed last (declaration order): every buffer is freed into the pool, on its stream.
  detail::pool_handle pool_;
  detail::stream_handle stream_;  // set-up work
  std::vector<std::unique_ptr<slot>> slots_;
  std::vector<Index> order_;  // the epoch's shuffled ids; read by the workers

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_{false};
  int running_{0};                      // workers that have not finished the epoch
  std::int64_t next_to_prepare_{0};     // next batch a worker takes
  std::int64_t next_to_hand_out_{0};    // next batch next() returns
  std::exception_ptr error_;            // failure of batch error_batch_ (the earliest)
  std::int64_t error_batch_{no_batch};
  std::int64_t epoch_{-1};
  std::int64_t prepared_{0};
  std::uint64_t feature_bytes_{0};
  std::vector<batch_timing> timings_;   // current epoch, indexed by batch
  std::vector<std::thread> workers_;
};

}  // namespace gnndirect
