/// @file common.cpp
/// @brief Placement detection and argument checks shared by the ops (see common.hpp).

#include "common.hpp"

#include <ATen/core/CachingHostAllocator.h>
#include <c10/cuda/CUDAStream.h>

#include <atomic>

namespace gnndirect_torch {

placed_pointer placement_of(const at::Tensor& t, const char* what, int device)
{
  placed_pointer result;
  if (t.numel() == 0) { return result; }
  if (device >= 0) {
    // Make the device's context current on this thread first: in a thread that has not used
    // CUDA yet (a second Python thread scattering), cudaPointerGetAttributes would otherwise
    // report page-locked memory without its device mapping (issue #31).
    cudaError_t const set = cudaSetDevice(device);
    if (set != cudaSuccess) {
      (void)cudaGetLastError();
      TORCH_CHECK(false, "gnndirect: cudaSetDevice(", device, ") failed for ", what, ": ",
                  cudaGetErrorString(set));
    }
  }
  cudaPointerAttributes attributes{};
  cudaError_t const status = cudaPointerGetAttributes(&attributes, t.data_ptr());
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    TORCH_CHECK(false, "gnndirect: cudaPointerGetAttributes failed for ", what, ": ",
                cudaGetErrorString(status));
  }
  switch (attributes.type) {
    case cudaMemoryTypeDevice:
      TORCH_CHECK_VALUE(attributes.device == device, "gnndirect: ", what, " lives on cuda:",
                        attributes.device, " but the op runs on cuda:", device);
      result.kind = gnndirect::memory_kind::device;
      result.device = attributes.devicePointer;
      return result;
    case cudaMemoryTypeManaged:
      result.kind = gnndirect::memory_kind::managed_host;
      result.device = attributes.devicePointer != nullptr ? attributes.devicePointer : t.data_ptr();
      return result;
    case cudaMemoryTypeHost:
      TORCH_CHECK_VALUE(attributes.devicePointer != nullptr, "gnndirect: ", what,
                        " is page-locked but not mapped into the GPU's address space");
      result.kind = gnndirect::memory_kind::pinned;
      result.device = attributes.devicePointer;
      return result;
    default: break;
  }
  TORCH_CHECK_VALUE(false, "gnndirect: ", what,
                    " is pageable host memory that the GPU cannot read: make it GPU-addressable "
                    "first (gnndirect_torch.Table / register_tensor / to_placement with "
                    "'registered', 'pinned', 'managed_host' or 'device')");
}

std::string placement_name(const at::Tensor& t)
{
  if (t.numel() == 0) { return t.is_cuda() ? "device" : "pageable"; }
  cudaPointerAttributes attributes{};
  cudaError_t const status = cudaPointerGetAttributes(&attributes, t.data_ptr());
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    TORCH_CHECK(false, "gnndirect: cudaPointerGetAttributes failed: ", cudaGetErrorString(status));
  }
  switch (attributes.type) {
    case cudaMemoryTypeDevice: return "device";
    case cudaMemoryTypeManaged: return "managed_host";
    case cudaMemoryTypeHost: return "pinned";
    default: return "pageable";
  }
}

void check_index_tensor(const at::Tensor& t, const char* what)
{
  TORCH_CHECK_TYPE(t.scalar_type() == at::kInt || t.scalar_type() == at::kLong, "gnndirect: ",
                   what, " must be int32 or int64, got ", t.scalar_type());
  TORCH_CHECK_VALUE(t.dim() == 1, "gnndirect: ", what, " must be 1-D, got shape ", t.sizes());
}

void check_table_tensor(const at::Tensor& t, const char* what)
{
  TORCH_CHECK_VALUE(t.dim() == 2, "gnndirect: ", what, " must be 2-D (rows x cols), got shape ",
                    t.sizes());
  TORCH_CHECK_VALUE(t.size(1) <= 1 || t.stride(1) == 1, "gnndirect: the columns of ", what,
                    " must be contiguous (stride(1) == 1), got strides ", t.strides());
  TORCH_CHECK_VALUE(t.size(0) <= 1 || t.stride(0) >= t.size(1), "gnndirect: ", what,
                    " has overlapping rows (stride(0) < size(1))");
}

void check_indptr_end(const at::Tensor& indptr, const at::Tensor& indices)
{
  if (indptr.numel() == 0) { return; }  // the callers' shape checks report this case
  std::int64_t const last = indptr.select(0, indptr.size(0) - 1).item<std::int64_t>();
  TORCH_CHECK_VALUE(last == indices.size(0), "gnndirect: corrupt CSR graph: indptr[",
                    indptr.size(0) - 1, "] = ", last, " but indices has ", indices.size(0),
                    " entries (indptr must end at the edge count; is indices truncated?)");
}

void record_host_use(const at::Tensor& t, cudaStream_t stream, int device)
{
  if (t.is_cuda() || !t.has_storage() || t.numel() == 0) { return; }
  at::DataPtr const& data = t.storage().data_ptr();
  c10::Stream const on = c10::cuda::getStreamFromExternal(stream, static_cast<c10::DeviceIndex>(device));
  // false (not a block of torch's pinned cache) is the expected answer for registered,
  // cudaHostAlloc'd and managed tensors: nothing to record for them.
  (void)at::getHostAllocator(at::kCUDA)->record_event(data.get(), data.get_context(), on);
}

namespace {
std::atomic<std::int64_t> copied_bytes{0};
}  // namespace

void count_device_copy(std::size_t bytes) noexcept
{
  copied_bytes.fetch_add(static_cast<std::int64_t>(bytes), std::memory_order_relaxed);
}

std::int64_t device_copy_bytes() noexcept { return copied_bytes.load(std::memory_order_relaxed); }

void reset_device_copy_bytes() noexcept { copied_bytes.store(0, std::memory_order_relaxed); }

}  // namespace gnndirect_torch
