#pragma once
// Definitions of pipeline/scheduler.cuh (included at its end; not part of the API).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/host_wait.hpp>

#include <algorithm>
#include <string>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

template <class Preparer>
batch_scheduler<Preparer>::batch_scheduler(Preparer& preparer, scheduler_options options)
  : preparer_(preparer),
    options_(checked(options)),
    device_(require_device())
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

template <class Preparer>
batch_scheduler<Preparer>::~batch_scheduler()
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

template <class Preparer>
auto batch_scheduler<Preparer>::start_epoch(std::int64_t epoch) -> void
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

template <class Preparer>
auto batch_scheduler<Preparer>::next(cudaStream_t consumer) -> batch_type*
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

template <class Preparer>
auto batch_scheduler<Preparer>::release(const batch_type* batch, cudaStream_t consumer) -> void
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

template <class Preparer>
auto batch_scheduler<Preparer>::num_batches() const -> std::int64_t
{
  std::lock_guard<std::mutex> lock(mutex_);
  return num_batches_;
}

template <class Preparer>
auto batch_scheduler<Preparer>::stats() const -> scheduler_stats
{
  std::lock_guard<std::mutex> lock(mutex_);
  return scheduler_stats{prepared_, payload_bytes_, epoch_, timings_};
}

template <class Preparer>
auto batch_scheduler<Preparer>::checked(scheduler_options options) -> scheduler_options
{
  GNNDIRECT_EXPECTS(options.depth >= 1, "batch_scheduler: depth must be >= 1");
  GNNDIRECT_EXPECTS(options.workers >= 1, "batch_scheduler: workers must be >= 1");
  return options;
}

template <class Preparer>
auto batch_scheduler<Preparer>::all_slots_held() const noexcept -> bool
{
  return std::all_of(slots_.begin(), slots_.end(),
                     [](const auto& s) { return s->state == slot_state::handed_out; });
}

template <class Preparer>
auto batch_scheduler<Preparer>::ready_slot(std::int64_t b) const noexcept -> slot*
{
  for (auto const& s : slots_) {
    if (s->state == slot_state::ready && s->batch_index == b) { return s.get(); }
  }
  return nullptr;
}

template <class Preparer>
auto batch_scheduler<Preparer>::slot_of(const batch_type* batch) const noexcept -> slot*
{
  for (auto const& s : slots_) {
    if (s->batch.get() == batch) { return s.get(); }
  }
  return nullptr;
}

template <class Preparer>
auto batch_scheduler<Preparer>::free_slot() const noexcept -> slot*
{
  for (auto const& s : slots_) {
    if (s->state == slot_state::free) { return s.get(); }
  }
  return nullptr;
}

template <class Preparer>
auto batch_scheduler<Preparer>::start_worker(std::int64_t epoch, int worker) -> void
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

template <class Preparer>
auto batch_scheduler<Preparer>::stop_workers() noexcept -> void
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

template <class Preparer>
auto batch_scheduler<Preparer>::reclaim_slots() noexcept -> void
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

template <class Preparer>
auto batch_scheduler<Preparer>::run(std::int64_t epoch, int worker) noexcept -> void
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

template <class Preparer>
auto batch_scheduler<Preparer>::take_batch() -> std::pair<slot*, std::int64_t>
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

template <class Preparer>
auto batch_scheduler<Preparer>::prepare(slot& target, std::int64_t epoch, std::int64_t b, int worker) -> std::uint64_t
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

template <class Preparer>
auto batch_scheduler<Preparer>::publish(slot& target, std::uint64_t bytes) -> void
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

template <class Preparer>
auto batch_scheduler<Preparer>::record_failure(std::int64_t b, std::exception_ptr failure) noexcept -> void
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

template <class Preparer>
auto batch_scheduler<Preparer>::abandon(slot& target) noexcept -> void
{
  std::lock_guard<std::mutex> lock(mutex_);
  target.state = slot_state::free;
  target.batch_index = -1;
}

GNNDIRECT_NAMESPACE_END
