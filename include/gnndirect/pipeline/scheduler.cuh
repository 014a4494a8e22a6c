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

#include <gnndirect/core/version.hpp>
#include <gnndirect/core/wait_mode.hpp>
#include <gnndirect/owners/cuda_handles.hpp>
#include <gnndirect/pipeline/timeline.hpp>

#include <cuda_runtime_api.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
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
  batch_scheduler(Preparer& preparer, scheduler_options options);

  batch_scheduler(const batch_scheduler&) = delete;
  batch_scheduler& operator=(const batch_scheduler&) = delete;

  /// Stops the workers (after the batches they are preparing), treats batches still held as
  /// released on the stream they were handed to (that stream must still exist), destroys every
  /// slot's batch on its stream after its consumer and synchronises the streams, so memory the
  /// batches return to a stream-ordered resource is free when this returns. Never throws.
  ~batch_scheduler();

  /// Starts epoch `epoch`: stops the previous epoch's workers (batches still held count as
  /// released on the stream they were handed to), calls the preparer's start_epoch and starts the
  /// workers. When the preparer's start_epoch throws, no worker starts and next() rethrows.
  /// @param epoch the epoch number handed to the preparer
  /// @throws std::system_error when a thread cannot be started (the ones started keep working).
  void start_epoch(std::int64_t epoch);

  /// Waits (host) until the next batch of the epoch is prepared, makes `consumer` wait for it on
  /// the GPU, and returns it; nullptr once the epoch's batches have all been handed out.
  /// @throws what preparing the batch threw, again on every call until the next start_epoch,
  /// after every earlier batch was handed out; invalid_argument before start_epoch, or when all
  /// `depth` batches are held (release one first: waiting would deadlock); cuda_error.
  /// @param consumer the stream that will use the batch
  /// @return the batch, or nullptr at the epoch's end
  batch_type* next(cudaStream_t consumer);

  /// Gives a batch back: records an event on `consumer` after the work enqueued so far; the
  /// slot's stream waits on it before the slot's next batch is prepared, so the consumer may
  /// still be using the batch on the GPU when this returns. The batch must not be touched
  /// afterwards. @throws invalid_argument for a pointer next() did not hand out (or released
  /// twice); cuda_error.
  /// @param batch what next() handed out  @param consumer the stream that used it
  void release(const batch_type* batch, cudaStream_t consumer);

  /// @return batches of the current epoch (0 before the first start_epoch)
  std::int64_t num_batches() const;

  /// A snapshot of the counters and of the current epoch's per-batch timestamps. Thread-safe.
  /// @return the snapshot
  scheduler_stats stats() const;

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

  /// @return `options`  @throws invalid_argument when depth or workers is < 1.
  static scheduler_options checked(scheduler_options options);
  /// Whether every slot is handed out to the consumer. Call under the mutex.
  bool all_slots_held() const noexcept;
  /// The slot holding batch b ready to be handed out, or nullptr. Call under the mutex.
  slot* ready_slot(std::int64_t b) const noexcept;
  /// The next batch to hand out failed (every earlier batch has been handed out). Under the mutex.
  bool next_failed() const noexcept { return error_ && error_batch_ <= next_to_hand_out_; }
  /// The slot whose batch is `batch`, or nullptr.
  slot* slot_of(const batch_type* batch) const noexcept;
  /// A free slot, or nullptr. Call under the mutex.
  slot* free_slot() const noexcept;

  /// Starts one worker thread, counted in running_ before it can finish.
  void start_worker(std::int64_t epoch, int worker);
  /// Asks the workers to stop and joins them (each finishes the batch it is preparing).
  void stop_workers() noexcept;

  /// With the workers stopped: every slot becomes free; held batches count as released on their
  /// consumer stream (recorded now), ready ones were never seen by a consumer.
  void reclaim_slots() noexcept;

  /// Worker thread body: takes the epoch's batches in order while slots are free, prepares and
  /// publishes each; the first failure stops every worker from taking more batches.
  void run(std::int64_t epoch, int worker) noexcept;

  /// Waits for a free slot and assigns it the next batch of the epoch, in batch order, so the
  /// earliest unfinished batch always has a slot (no deadlock whatever the consumer holds). Then
  /// orders the slot's stream after the consumer's release of its previous batch.
  /// Returns {nullptr, -1} when stopping, after a failure, or when every batch was taken.
  std::pair<slot*, std::int64_t> take_batch();

  /// Enqueues batch b through the preparer, waits for its GPU work (the ready event) and lets the
  /// preparer complete it; returns its payload bytes.
  std::uint64_t prepare(slot& target, std::int64_t epoch, std::int64_t b, int worker);
  /// Marks the slot's batch ready (its timestamp, the counters) and wakes the consumer.
  void publish(slot& target, std::uint64_t bytes);
  /// Keeps the failure of the earliest batch; no worker takes a batch after it.
  void record_failure(std::int64_t b, std::exception_ptr failure) noexcept;
  /// After a failed preparation: the slot is free again (its storage is kept; the next batch on
  /// its stream is ordered after whatever was enqueued).
  void abandon(slot& target) noexcept;

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

#include <gnndirect/detail/pipeline/scheduler.inl>
