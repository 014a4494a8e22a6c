#pragma once
/// @file torch_resource.cuh
/// @brief torch_caching_resource: PyTorch's CUDA caching allocator as a gnndirect stream-ordered
/// memory resource (include/gnndirect/core/resource.hpp), so that every device allocation the
/// library makes for the extension is torch memory: counted by torch.cuda.memory_allocated(),
/// returned by torch.cuda.empty_cache(), shared with the training loop's own tensors.
///
/// Included by .cu files only: <cuda/stream_ref> is a CCCL header that nvcc finds on its own but
/// the host compiler of torch's extension build does not (CUDA 13 keeps CCCL in include/cccl).

#include "common.hpp"

#include <gnndirect/core/resource.hpp>

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda/stream_ref>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

namespace gnndirect_torch {

/// Device memory from c10::cuda::CUDACachingAllocator (raw_alloc_with_stream / raw_delete),
/// modelling gnndirect's stream-ordered resource concept; pass it where the library takes a
/// gnndirect::resource_ref. One object per device; it must outlive its allocations (the
/// extension keeps one per device for the life of the process, see for_device()).
///
/// Stream semantics: the caching allocator associates a block with the stream it was allocated
/// on and reuses it for later allocations on that stream without synchronisation, which is the
/// stream-ordered contract for same-stream frees. A free on another stream first makes the
/// allocation stream wait for the work enqueued on the freeing stream (an event), so that reuse
/// on the allocation stream is ordered after every use.
class torch_caching_resource {
 public:
  /// @param device the CUDA device whose allocator serves this resource
  explicit torch_caching_resource(int device) noexcept : device_(device) {}
  torch_caching_resource(const torch_caching_resource&) = delete;
  torch_caching_resource& operator=(const torch_caching_resource&) = delete;

  /// `bytes` of device memory usable by work enqueued on `stream` after this call (null for 0
  /// bytes). The caching allocator aligns every block to 512 bytes.
  /// @throws gnndirect::invalid_argument for an alignment that is not a power of two <= 512;
  /// gnndirect::allocation_error when torch's allocator is out of memory (its message kept).
  void* allocate(::cuda::stream_ref stream, std::size_t bytes, std::size_t alignment)
  {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > max_alignment) {
      throw gnndirect::invalid_argument(__FILE__, __LINE__,
                                        "torch_caching_resource: alignment " + std::to_string(alignment) +
                                          " is not a power of two <= 512");
    }
    if (bytes == 0) { return nullptr; }
    c10::cuda::CUDAGuard const guard(static_cast<c10::DeviceIndex>(device_));
    void* ptr = nullptr;
    try {
      ptr = c10::cuda::CUDACachingAllocator::raw_alloc_with_stream(bytes, stream.get());
    } catch (const c10::OutOfMemoryError& e) {
      throw gnndirect::allocation_error(__FILE__, __LINE__, bytes, gnndirect::memory_kind::device,
                                        e.what_without_backtrace());
    }
    std::lock_guard<std::mutex> const lock(mutex_);
    streams_[ptr] = stream.get();
    return ptr;
  }

  /// Returns `ptr` to torch's cache once the work enqueued on `stream` before this call is done
  /// (see the class comment). Never throws: CUDA failures are reported on stderr.
  void deallocate(::cuda::stream_ref stream, void* ptr, std::size_t /*bytes*/,
                  std::size_t /*alignment*/) noexcept
  {
    if (ptr == nullptr) { return; }
    cudaStream_t allocated_on = stream.get();
    {
      std::lock_guard<std::mutex> const lock(mutex_);
      auto found = streams_.find(ptr);
      if (found != streams_.end()) {
        allocated_on = found->second;
        streams_.erase(found);
      }
    }
    c10::cuda::CUDAGuard const guard(static_cast<c10::DeviceIndex>(device_));
    if (allocated_on != stream.get()) { order_after(stream.get(), allocated_on); }
    c10::cuda::CUDACachingAllocator::raw_delete(ptr);
  }

  /// The device this resource allocates on.
  int device() const noexcept { return device_; }

  /// The process-wide resource of `device` (created on first use, never destroyed, so that
  /// teardown order cannot matter). Thread-safe.
  static torch_caching_resource& for_device(int device)
  {
    static std::mutex mutex;
    static auto* resources = new std::unordered_map<int, torch_caching_resource*>();
    std::lock_guard<std::mutex> const lock(mutex);
    auto& slot = (*resources)[device];
    if (slot == nullptr) { slot = new torch_caching_resource(device); }
    return *slot;
  }

  /// Largest alignment the caching allocator guarantees.
  static constexpr std::size_t max_alignment = 512;

 private:
  /// Makes `later` wait for the work enqueued on `earlier` so far (never throws).
  static void order_after(cudaStream_t earlier, cudaStream_t later) noexcept
  {
    cudaEvent_t event = nullptr;
    if (cudaEventCreateWithFlags(&event, cudaEventDisableTiming) != cudaSuccess ||
        cudaEventRecord(event, earlier) != cudaSuccess ||
        cudaStreamWaitEvent(later, event, 0) != cudaSuccess) {
      (void)cudaGetLastError();
      // Fall back to the safe order: wait for the freeing stream on the host.
      (void)cudaStreamSynchronize(earlier);
    }
    if (event != nullptr) { (void)cudaEventDestroy(event); }  // released once it completes
  }

  int device_;
  std::mutex mutex_;
  std::unordered_map<void*, cudaStream_t> streams_;  // allocation stream of each live block
};

static_assert(gnndirect::is_stream_ordered_resource_v<torch_caching_resource>);

}  // namespace gnndirect_torch
