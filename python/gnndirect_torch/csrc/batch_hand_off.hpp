#pragma once
/// @file batch_hand_off.hpp
/// @brief Zero-copy hand-off of minibatch_pipeline batches to PyTorch: a batch's device arrays
/// become tensors that are views of the pipeline's own memory (no device-to-device copy), and the
/// batch's slot goes back to the pipeline only when the last of those tensors is gone.
///
/// Lifetime protocol. next() wraps each array of the batch in a tensor (at::from_blob) whose
/// deleter holds a shared `lease` on the batch; the lease's destructor (the last tensor's
/// storage died) releases the batch to the pipeline, ordered after the work enqueued so far on
/// the stream the batch was handed to and on the stream current in the releasing thread (both
/// recorded as events that a private release stream waits for; the pipeline's slot stream waits
/// for that stream before the slot is reused). So a slot is never rewritten while Python holds
/// any tensor of its batch or while GPU work enqueued before the last tensor died may read it.
///
/// Detaching. Three events need a held batch's slot back while Python may still hold tensors of
/// it: starting an epoch (the library treats held batches as released), destroying the pipeline
/// (loader.close()), and next() with every slot held. Then the batch is *detached*: each live
/// storage gets a fresh block of torch's caching allocator, its bytes are copied there on the
/// current stream (after the batch's consumer stream), the storage is re-pointed at the copy
/// (StorageImpl::set_data_ptr: every view follows), and the slot is released. Those copies are
/// counted by count_device_copy; a training loop that drops each batch before asking for the
/// one after next never detaches.
///
/// Host-compilable (ATen, c10 CUDA headers, CUDA runtime); templated on the pipeline type.

#include "common.hpp"

#include <gnndirect/core/cuda_error.hpp>

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/core/StorageImpl.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace gnndirect_torch {
namespace detail {

/// Creates the hand-off's release stream (non-blocking) and its two events (no timing).
/// @throws gnndirect::cuda_error.
inline void make_hand_off_handles(cudaStream_t& stream, cudaEvent_t& first, cudaEvent_t& second)
{
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  GNNDIRECT_CUDA_TRY(cudaEventCreateWithFlags(&first, cudaEventDisableTiming));
  GNNDIRECT_CUDA_TRY(cudaEventCreateWithFlags(&second, cudaEventDisableTiming));
}

/// Makes `waiter` wait for the work enqueued on `stream` so far, through `event`.
inline void wait_for(cudaStream_t waiter, cudaStream_t stream, cudaEvent_t event)
{
  if (waiter == stream) { return; }
  GNNDIRECT_CUDA_TRY(cudaEventRecord(event, stream));
  GNNDIRECT_CUDA_TRY(cudaStreamWaitEvent(waiter, event, 0));
}

/// Owns a minibatch_pipeline (any type with batch_type, next(stream), release(batch, stream)
/// and options().depth) and hands its batches out as leases whose tensors view the batch's
/// memory (see the file comment). Shared: every lease keeps it alive. Thread-safe: leases may
/// die on any thread (the release takes the internal mutex); next() and the detach functions are
/// for the one consumer thread (the Python loader serialises them under its lock).
template <class Pipeline>
class batch_hand_off {
 public:
  using batch_type = typename Pipeline::batch_type;

  /// One handed-out batch. Its tensors' deleters share it; its destructor releases the batch.
  class lease {
   public:
    lease(std::shared_ptr<batch_hand_off> owner, const batch_type* batch, cudaStream_t consumer)
      : owner_(std::move(owner)), batch_(batch), consumer_(consumer)
    {
    }
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;
    /// Releases the batch (unless it was detached); never throws.
    ~lease() { owner_->on_lease_gone(*this); }

    /// The batch.
    const batch_type& batch() const noexcept { return *batch_; }

   private:
    friend class batch_hand_off;
    std::shared_ptr<batch_hand_off> owner_;
    const batch_type* batch_;
    cudaStream_t consumer_;
    std::mutex mutex_;  // guards storages_
    std::vector<c10::weak_intrusive_ptr<c10::StorageImpl>> storages_;
    bool released_{false};  // under the owner's mutex
  };

  /// Takes the pipeline; `device` is its CUDA device. @throws cuda_error.
  batch_hand_off(std::unique_ptr<Pipeline> pipeline, int device)
    : device_(device), pipeline_(std::move(pipeline))
  {
    make_hand_off_handles(release_stream_, consumer_done_, current_done_);
  }
  batch_hand_off(const batch_hand_off&) = delete;
  batch_hand_off& operator=(const batch_hand_off&) = delete;
  /// Destroys the pipeline if shutdown() did not, then the stream and events. Never throws.
  ~batch_hand_off()
  {
    pipeline_.reset();
    if (release_stream_ != nullptr) { (void)cudaStreamSynchronize(release_stream_); }
    (void)cudaEventDestroy(consumer_done_);
    (void)cudaEventDestroy(current_done_);
    (void)cudaStreamDestroy(release_stream_);
    (void)cudaGetLastError();
  }

  /// The pipeline (null after shutdown()).
  Pipeline* pipeline() const noexcept { return pipeline_.get(); }

  /// The next batch on `consumer` as a lease, or null at the end of the epoch; first detaches the
  /// oldest held batch when every slot is held (see the file comment). Blocks until the batch is
  /// prepared; `self` is this object's owner. @throws what the pipeline's next() throws.
  static std::shared_ptr<lease> next(const std::shared_ptr<batch_hand_off>& self, cudaStream_t consumer)
  {
    self->detach_oldest(false);
    const batch_type* batch = self->pipeline_->next(consumer);
    if (batch == nullptr) { return nullptr; }
    std::shared_ptr<lease> held;
    try {
      held = std::make_shared<lease>(self, batch, consumer);
    } catch (...) {
      self->pipeline_->release(batch, consumer);
      throw;
    }
    std::lock_guard<std::mutex> const lock(self->mutex_);
    self->held_.push_back(held.get());
    return held;
  }

  /// A tensor of `sizes` x `dtype` viewing `data` (device memory of `held`'s batch, contiguous),
  /// registered with the lease so that it can be detached; an ordinary empty tensor when it has
  /// no elements. @throws c10 errors.
  at::Tensor view(const std::shared_ptr<lease>& held, const void* data, at::IntArrayRef sizes,
                  at::ScalarType dtype) const
  {
    at::Device const device(at::kCUDA, static_cast<c10::DeviceIndex>(device_));
    auto const options = at::TensorOptions().dtype(dtype).device(device);
    std::int64_t numel = 1;
    for (std::int64_t s : sizes) { numel *= s; }
    if (numel == 0 || data == nullptr) { return at::empty(sizes, options); }
    // The deleter's copy of `held` is the tensor's share of the lease. The device is given, so
    // torch does not ask the driver where the pointer lives.
    at::Tensor t = at::from_blob(const_cast<void*>(data), sizes, [held](void*) {}, options, device);
    std::lock_guard<std::mutex> const lock(held->mutex_);
    held->storages_.push_back(t.storage().getWeakStorageImpl());
    return t;
  }

  /// Batches handed out whose tensors are still alive (and not detached).
  std::int64_t held() const
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    return static_cast<std::int64_t>(held_.size());
  }

  /// Detaches held batches: all of them with `all`, else the oldest ones until a slot is free
  /// for next(). Run it while no other thread uses those tensors (their storages are re-pointed).
  /// Returns the number detached. @throws c10/gnndirect errors (allocation, CUDA).
  std::int64_t detach_oldest(bool all)
  {
    std::vector<c10::intrusive_ptr<c10::StorageImpl>> kept;  // die after the lock: a lease may go
    std::vector<c10::DataPtr> old;                            // likewise (the deleters' shares)
    std::int64_t detached = 0;
    {
      std::lock_guard<std::mutex> const lock(mutex_);
      if (pipeline_ == nullptr) { return 0; }
      auto const depth = static_cast<std::size_t>(pipeline_->options().depth);
      c10::cuda::CUDAGuard const guard(static_cast<c10::DeviceIndex>(device_));
      while (!held_.empty() && (all || held_.size() >= depth)) {
        detach(*held_.front(), kept, old);  // on failure it stays held (and is detached later)
        held_.erase(held_.begin());
        ++detached;
      }
    }
    return detached;
  }

  /// Detaches every held batch and destroys the pipeline (its workers stop; its memory returns to
  /// torch's cache). Later lease deaths only unregister. @throws as detach_oldest (the pipeline is
  /// destroyed all the same).
  void shutdown()
  {
    struct destroy_last {
      batch_hand_off& self;
      ~destroy_last()
      {
        std::unique_ptr<Pipeline> gone;
        {
          std::lock_guard<std::mutex> const lock(self.mutex_);
          gone = std::move(self.pipeline_);
        }
      }
    } const finally{*this};
    detach_oldest(true);
  }

 private:
  /// Copies `l`'s live storages into torch's caching allocator on the current stream (after the
  /// consumer stream), re-points them, and releases the batch. Under mutex_.
  void detach(lease& l, std::vector<c10::intrusive_ptr<c10::StorageImpl>>& kept,
              std::vector<c10::DataPtr>& old)
  {
    if (l.released_) { return; }
    cudaStream_t const current = at::cuda::getCurrentCUDAStream(device_).stream();
    wait_for(current, l.consumer_, consumer_done_);
    {
      std::lock_guard<std::mutex> const lock(l.mutex_);
      // Room first: nothing that holds a share of a lease may be destroyed under mutex_ (the
      // last share's destructor takes it), so no push_back below may throw.
      kept.reserve(kept.size() + l.storages_.size());
      old.reserve(old.size() + l.storages_.size());
      for (auto& weak : l.storages_) {
        c10::intrusive_ptr<c10::StorageImpl> storage = weak.lock();
        if (!storage) { continue; }  // that tensor is gone already
        kept.push_back(storage);
        std::size_t const bytes = storage->nbytes();
        c10::DataPtr fresh = c10::cuda::CUDACachingAllocator::get()->allocate(bytes);
        GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(fresh.get(), storage->data(), bytes, cudaMemcpyDeviceToDevice, current));
        count_device_copy(bytes);
        old.push_back(storage->set_data_ptr(std::move(fresh)));
      }
      l.storages_.clear();
    }
    release(l);
  }

  /// Gives `l`'s batch back to the pipeline after the consumer stream and the current stream
  /// (through the release stream). Under mutex_. @throws gnndirect errors.
  void release(lease& l)
  {
    cudaStream_t const current = at::cuda::getCurrentCUDAStream(device_).stream();
    wait_for(release_stream_, l.consumer_, consumer_done_);
    wait_for(release_stream_, current, current_done_);
    pipeline_->release(l.batch_, release_stream_);
    l.released_ = true;
  }

  /// The last tensor of `l` is gone: unregister it and release its batch. Never throws (a
  /// failure is reported on stderr; the slot then stays held until the pipeline is destroyed).
  void on_lease_gone(lease& l) noexcept
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    auto const found = std::find(held_.begin(), held_.end(), &l);
    if (found != held_.end()) { held_.erase(found); }
    if (l.released_ || pipeline_ == nullptr) { return; }
    try {
      c10::cuda::CUDAGuard const guard(static_cast<c10::DeviceIndex>(device_));
      release(l);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gnndirect_torch: releasing a batch failed: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "gnndirect_torch: releasing a batch failed\n");
    }
  }

  int device_;
  cudaStream_t release_stream_{nullptr};  // the slots' streams wait for it (never the user's)
  cudaEvent_t consumer_done_{nullptr};    // reused under mutex_: a wait captures the record
  cudaEvent_t current_done_{nullptr};
  mutable std::mutex mutex_;              // guards held_, pipeline_ and the leases' released_
  std::vector<lease*> held_;              // live, not released, oldest first
  std::unique_ptr<Pipeline> pipeline_;
};

}  // namespace detail
}  // namespace gnndirect_torch
