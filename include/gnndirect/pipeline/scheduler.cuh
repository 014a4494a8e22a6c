#pragma once
/// @file scheduler.cuh
/// @brief Batch scheduler: worker threads prepare an epoch's batches ahead of one consumer, each
/// in a slot with its own stream, handed out in batch order with event-ordered hand-off. What a
/// batch is and how it is prepared is the *preparer* policy (pipeline/gnn_preparer.cuh is the GNN
/// recipe; any type modelling the concept below works, e.g. link prediction).
///
/// Preparer concept. A type P used as batch_scheduler<P> provides:
/// @code
///   using batch_type = ...;  // what a slot holds; default-constructible. A slot's batch object
///                            // lives as long as the scheduler and is reused for every batch the
///                            // slot takes, so it keeps its storage between batches.
///   void init_batch(batch_type& batch, cudaStream_t stream);
///       // once per slot, at construction, on the constructing thread: allocate the batch's
///       // reusable storage (stream-ordered on the slot's `stream`, which frees it last).
///   std::int64_t start_epoch(std::int64_t epoch);
///       // on start_epoch's thread, no batch in preparation: set up the epoch (e.g. shuffle) and
///       // return its number of batches. An exception fails the epoch's first batch.
///   void prepare(batch_type& batch, cudaStream_t stream, std::int64_t epoch, std::int64_t b);
///       // on a worker thread: enqueue batch b of `epoch` into `batch` on `stream`, which is
///       // already ordered after the consumer's release of the slot's previous batch. Workers call
///       // it concurrently for different slots. It may block the thread (host work, waiting for
///       // sizes). An exception fails batch b (and stops the epoch's later batches).
///   std::uint64_t complete(batch_type& batch);
///       // on the worker, once the batch's GPU work has completed: host-side bookkeeping;
///       // returns the payload bytes to count in scheduler_stats::payload_bytes.
/// @endcode
/// Workspace needs are the preparer's: it sizes them in init_batch (or grows them in prepare).
///
/// Consumer protocol (one consumer thread):
/// @code
///   scheduler.start_epoch(epoch);
///   while (auto* batch = scheduler.next(train_stream)) {  // train_stream waits for the batch
///     train_step(train_stream, *batch);
///     scheduler.release(batch, train_stream);            // reused once train_stream is past here
///   }
/// @endcode
///
/// Synchronisation: the worker records a `ready` event after prepare() and waits for it (a
/// blocking-sync event: it sleeps), so timestamps mean GPU completion; next() blocks the consumer
/// thread only until its batch is ready, then orders `consumer` after it with cudaStreamWaitEvent;
/// release() records an event on `consumer` which the slot's stream waits for before the slot's
/// next batch is prepared, so release() never waits for the GPU. next() and release() enqueue an
/// event wait and an event record on `consumer` and must not be called while `consumer` is being
/// captured into a CUDA graph. Batches are assigned to slots in batch order and handed out in
/// batch order, so the output does not depend on the number of workers.

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/cuda_handles.hpp>
#include <gnndirect/pipeline/timeline.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// How a batch_scheduler runs.
struct scheduler_options {
  /// Batches in flight (in preparation, ready or held). 2 is double buffering; with `workers`
  /// > 1, depth >= workers + 1 lets the workers overlap while the consumer holds a batch.
  int depth{3};
  /// Host threads preparing batches concurrently (>= 1), each on its own slot's stream.
  int workers{2};
  /// How the workers wait for the GPU (sleep: no CPU time while waiting; spin: lowest latency).
  wait_mode worker_wait{wait_mode::sleep};
  /// When not null, records the slots' streams as lanes "slot S", each batch's time held by the
  /// consumer ("held", from next() to release(), on the consumer's stream) and each worker's host
  /// spans ("enqueue": prepare() returning, "wait": until the batch's GPU work completed) into
  /// this timeline (borrowed; it must outlive the scheduler and be start()ed before each epoch
  /// it should record). Null: nothing is recorded.
  pipeline_timeline* timeline{nullptr};
};

/// Host timestamps of one batch's preparation (std::chrono::steady_clock).
struct batch_timing {
  std::int64_t index{0};                          ///< batch index in the epoch
  std::chrono::steady_clock::time_point started;  ///< the worker began preparing it
  std::chrono::steady_clock::time_point ready;    ///< its GPU work had completed (when is_ready)
  bool is_ready{false};                           ///< ready is valid
};

/// Counters of a scheduler (a snapshot).
struct scheduler_stats {
  std::int64_t batches_prepared{0};   ///< since construction, all epochs
  std::uint64_t payload_bytes{0};     ///< sum of the preparer's complete() results
  std::int64_t epoch{-1};             ///< the current epoch (-1 before the first start_epoch)
  std::vector<batch_timing> batches;  ///< current epoch, in batch order
};

/// Runs a Preparer (see the file comment) over `depth` slots with `workers` threads.
///
/// The preparer is borrowed and must outlive the scheduler (the slots' batches are destroyed
/// first, on their streams, after every consumer's release). Not copyable or movable (worker
/// threads refer to it). next() and release() are for one consumer thread; stats() may be called
/// from any thread.
/// @tparam Preparer a model of the preparer concept (see the file comment)
template <class Preparer>
class batch_scheduler {
 public:
  /// The batch type next() hands out.
  using batch_type = typename Preparer::batch_type;

  /// Creates the slots (a non-blocking stream, events, the preparer's init_batch) on the current
  /// device; starts no worker (call start_epoch). Synchronous.
  /// @param preparer the preparer (borrowed)  @param options depth and worker count
  /// @throws invalid_argument (depth or workers < 1), what init_batch throws, cuda_error.
  batch_scheduler(Preparer& preparer, scheduler_options options)
    : preparer_(preparer), options_(checked(options)), device_(require_device())
  {
    slots_.reserve(static_cast<std::size_t>(options_.depth));
    for (int s = 0; s < options_.depth; ++s) {
      slots_.push_back(std::make_unique<slot>());
      if (options_.timeline != nullptr) {
        options_.timeline->name_stream(slots_.back()->stream.get(), "slot " + std::to_string(s));
      }
      preparer_.init_batch(*slots_.back()->batch, slots_.back()->stream.get());
    }
  }

  batch_scheduler(const batch_scheduler&) = delete;
  batch_scheduler& operator=(const batch_scheduler&) = delete;

  /// Stops the workers (after the batches they are preparing), treats batches still held as
  /// released on the stream they were handed to (that stream must still exist), destroys every
  /// slot's batch on its stream after its consumer and synchronises the streams, so memory the
  /// batches return to a stream-ordered resource is free when this returns. Never throws.
  ~batch_scheduler()
  {
    stop_workers();
    reclaim_slots();
    for (auto& s : slots_) {
      if (s->consumed_pending) {
        GNNDIRECT_CUDA_TRY_NOTHROW(cudaStreamWaitEvent(s->stream.get(), s->consumed.get(), 0));
      }
      s->batch.reset();  // frees stream-ordered on the slot's stream, after the consumer
      GNNDIRECT_CUDA_TRY_NOTHROW(cudaStreamSynchronize(s->stream.get()));
    }
  }

  /// Starts epoch `epoch`: stops the previous epoch's workers (batches still held count as
  /// released on the stream they were handed to), calls the preparer's start_epoch and starts the
  /// workers. When the preparer's start_epoch throws, no worker starts and next() rethrows.
  /// @param epoch the epoch number handed to the preparer
  /// @throws std::system_error when a thread cannot be started (the ones started keep working).
  void start_epoch(std::int64_t epoch)
  {
    stop_workers();
    reclaim_slots();
    std::exception_ptr failure;
    std::int64_t batches = 0;
    try {
      batches = preparer_.start_epoch(epoch);
    } catch (...) {
      failure = std::current_exception();
      batches = 1;  // so that next() reports the failure instead of an empty epoch
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = false;
      error_ = failure;
      error_batch_ = failure ? 0 : no_batch;
      epoch_ = epoch;
      num_batches_ = batches;
      next_to_prepare_ = 0;
      next_to_hand_out_ = 0;
      timings_.clear();
    }
    if (failure) { return; }
    for (int w = 0; w < options_.workers; ++w) { start_worker(epoch, w); }
  }

  /// Waits (host) until the next batch of the epoch is prepared, makes `consumer` wait for it on
  /// the GPU, and returns it; nullptr once the epoch's batches have all been handed out.
  /// @throws what preparing the batch threw, again on every call until the next start_epoch,
  /// after every earlier batch was handed out; invalid_argument before start_epoch, or when all
  /// `depth` batches are held (release one first: waiting would deadlock); cuda_error.
  /// @param consumer the stream that will use the batch
  /// @return the batch, or nullptr at the epoch's end
  batch_type* next(cudaStream_t consumer)
  {
    slot* chosen = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      GNNDIRECT_EXPECTS(epoch_ >= 0, "batch_scheduler::next: call start_epoch first");
      if (next_to_hand_out_ >= num_batches_) { return nullptr; }  // the epoch is over
      cv_.wait(lock, [this] {
        return ready_slot(next_to_hand_out_) != nullptr || next_failed() || running_ == 0 ||
               all_slots_held();
      });
      chosen = ready_slot(next_to_hand_out_);
      if (chosen == nullptr) {
        if (next_failed() || (error_ && running_ == 0)) { std::rethrow_exception(error_); }
        if (running_ == 0) { return nullptr; }  // stopped
        throw invalid_argument(__FILE__, __LINE__,
                               "batch_scheduler::next: all " + std::to_string(options_.depth) +
                                 " batches are held; release one before asking for the next");
      }
      chosen->state = slot_state::handed_out;
      chosen->consumer = consumer;
      ++next_to_hand_out_;
    }
    GNNDIRECT_CUDA_TRY(cudaStreamWaitEvent(consumer, chosen->ready.get(), 0));
    chosen->held = timeline_begin(options_.timeline, consumer, chosen->batch_index, "held");
    return chosen->batch.get();
  }

  /// Gives a batch back: records an event on `consumer` after the work enqueued so far; the
  /// slot's stream waits on it before the slot's next batch is prepared, so the consumer may
  /// still be using the batch on the GPU when this returns. The batch must not be touched
  /// afterwards. @throws invalid_argument for a pointer next() did not hand out (or released
  /// twice); cuda_error.
  /// @param batch what next() handed out  @param consumer the stream that used it
  void release(const batch_type* batch, cudaStream_t consumer)
  {
    slot* const owner = slot_of(batch);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      GNNDIRECT_EXPECTS(owner != nullptr && owner->state == slot_state::handed_out,
                        "batch_scheduler::release: not a batch handed out by next()");
    }
    timeline_end(options_.timeline, owner->held, consumer);
    GNNDIRECT_CUDA_TRY(cudaEventRecord(owner->consumed.get(), consumer));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      owner->state = slot_state::free;
      owner->consumed_pending = true;
      owner->consumer = nullptr;
    }
    cv_.notify_all();
  }

  /// @return batches of the current epoch (0 before the first start_epoch)
  std::int64_t num_batches() const
  {
    std::lock_guard<std::mutex> lock(mutex_);
    return num_batches_;
  }

  /// A snapshot of the counters and of the current epoch's per-batch timestamps. Thread-safe.
  /// @return the snapshot
  scheduler_stats stats() const
  {
    std::lock_guard<std::mutex> lock(mutex_);
    return scheduler_stats{prepared_, payload_bytes_, epoch_, timings_};
  }

  /// @return the options in effect
  const scheduler_options& options() const noexcept { return options_; }

 private:
  enum class slot_state { free, preparing, ready, handed_out };
  static constexpr std::int64_t no_batch = std::numeric_limits<std::int64_t>::max();

  /// Room for one batch. A slot is owned by a worker while free or preparing, by the consumer
  /// while handed out; `state` and `batch_index` change under the mutex. All of a batch's GPU
  /// work and memory are ordered on the slot's stream, declared first so it is destroyed last.
  struct slot {
    stream_handle stream{make_non_blocking_stream()};
    std::unique_ptr<batch_type> batch{std::make_unique<batch_type>()};
    slot_state state{slot_state::free};
    std::int64_t batch_index{-1};  // batch of the current epoch held in the slot (-1: none)
    bool consumed_pending{false};  // `consumed` was recorded since the stream last waited on it
    cudaStream_t consumer{nullptr};
    pipeline_timeline::token held{pipeline_timeline::no_span};  // the "held" span while handed out (with a timeline)
    event_handle ready{make_sync_event()};
    event_handle consumed{make_sync_event()};
  };

  static scheduler_options checked(scheduler_options options)
  {
    GNNDIRECT_EXPECTS(options.depth >= 1, "batch_scheduler: depth must be >= 1");
    GNNDIRECT_EXPECTS(options.workers >= 1, "batch_scheduler: workers must be >= 1");
    return options;
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
      if (s->batch.get() == batch) { return s.get(); }
    }
    return nullptr;
  }

  slot* free_slot() const noexcept
  {
    for (auto const& s : slots_) {
      if (s->state == slot_state::free) { return s.get(); }
    }
    return nullptr;
  }

  /// Starts one worker thread, counted in running_ before it can finish.
  void start_worker(std::int64_t epoch, int worker)
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++running_;
    }
    try {
      workers_.emplace_back(&batch_scheduler::run, this, epoch, worker);
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
  void run(std::int64_t epoch, int worker) noexcept
  {
    try {
      GNNDIRECT_CUDA_TRY(cudaSetDevice(device_));  // the current device is per host thread
      scoped_wait_mode const waits(options_.worker_wait);
      while (true) {
        auto const [target, b] = take_batch();
        if (target == nullptr) { break; }
        std::uint64_t bytes = 0;
        try {
          bytes = prepare(*target, epoch, b, worker);
        } catch (...) {
          abandon(*target);
          record_failure(b, std::current_exception());
          break;
        }
        publish(*target, bytes);
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
  /// orders the slot's stream after the consumer's release of its previous batch.
  /// Returns {nullptr, -1} when stopping, after a failure, or when every batch was taken.
  std::pair<slot*, std::int64_t> take_batch()
  {
    slot* chosen = nullptr;
    std::int64_t b = -1;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] {
        return stop_ || error_ || next_to_prepare_ >= num_batches_ || free_slot() != nullptr;
      });
      if (stop_ || error_ || next_to_prepare_ >= num_batches_) { return {nullptr, -1}; }
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
    return {chosen, b};
  }

  /// Enqueues batch b through the preparer, waits for its GPU work (the ready event) and lets the
  /// preparer complete it; returns its payload bytes.
  std::uint64_t prepare(slot& target, std::int64_t epoch, std::int64_t b, int worker)
  {
    cudaStream_t const stream = target.stream.get();
    auto const started = std::chrono::steady_clock::now();
    preparer_.prepare(*target.batch, stream, epoch, b);
    GNNDIRECT_CUDA_TRY(cudaEventRecord(target.ready.get(), stream));
    auto const enqueued = std::chrono::steady_clock::now();
    GNNDIRECT_CUDA_TRY(cudaEventSynchronize(target.ready.get()));  // a blocking-sync event: sleeps
    if (options_.timeline != nullptr) {
      std::string const lane = "worker " + std::to_string(worker);
      options_.timeline->host_span(lane, b, "enqueue", started, enqueued);
      options_.timeline->host_span(lane, b, "wait", enqueued, std::chrono::steady_clock::now());
    }
    return preparer_.complete(*target.batch);
  }

  void publish(slot& target, std::uint64_t bytes)
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      target.state = slot_state::ready;
      batch_timing& timing = timings_[static_cast<std::size_t>(target.batch_index)];
      timing.ready = std::chrono::steady_clock::now();
      timing.is_ready = true;
      ++prepared_;
      payload_bytes_ += bytes;
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

  /// After a failed preparation: the slot is free again (its storage is kept; the next batch on
  /// its stream is ordered after whatever was enqueued).
  void abandon(slot& target) noexcept
  {
    std::lock_guard<std::mutex> lock(mutex_);
    target.state = slot_state::free;
    target.batch_index = -1;
  }

  Preparer& preparer_;
  scheduler_options options_;
  int device_;
  std::vector<std::unique_ptr<slot>> slots_;

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_{false};
  int running_{0};                      // workers that have not finished the epoch
  std::int64_t num_batches_{0};         // of the current epoch
  std::int64_t next_to_prepare_{0};     // next batch a worker takes
  std::int64_t next_to_hand_out_{0};    // next batch next() returns
  std::exception_ptr error_;            // failure of batch error_batch_ (the earliest)
  std::int64_t error_batch_{no_batch};
  std::int64_t epoch_{-1};
  std::int64_t prepared_{0};
  std::uint64_t payload_bytes_{0};
  std::vector<batch_timing> timings_;   // current epoch, indexed by batch
  std::vector<std::thread> workers_;
};

GNNDIRECT_NAMESPACE_END
