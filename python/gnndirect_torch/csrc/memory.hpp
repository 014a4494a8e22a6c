#pragma once
/// @file memory.hpp
/// @brief Registration of CPU tensors and host-resident allocations as tensors (host-compilable).

#include "common.hpp"

#include <gnndirect/owners/registration.hpp>

#include <ATen/ATen.h>
#include <pybind11/pybind11.h>

#include <cstdint>

#include <memory>
#include <string>

namespace gnndirect_torch {

/// Pins a CPU tensor's memory in place (cudaHostRegister, mapped) for as long as this object
/// lives or until close(); holds a reference to the tensor so its storage outlives the
/// registration. The GPU then reads the tensor directly (placement "pinned"/registered).
class registration {
 public:
  /// Registers the byte span of `tensor` (CPU, non-empty). Synchronous; initialises CUDA.
  /// @throws c10::ValueError (not CPU, empty, overlapping an existing registration),
  /// allocation error (the driver refused, e.g. the locked-memory limit; MemoryError in Python).
  explicit registration(const at::Tensor& tensor);
  registration(const registration&) = delete;
  registration& operator=(const registration&) = delete;
  /// Unregisters (never throws).
  ~registration();
  /// Waits for the device's in-flight work (cudaDeviceSynchronize), unregisters and drops the
  /// tensor reference; idempotent; never throws.
  void close() noexcept;
  /// True until close().
  bool active() const noexcept { return pin_ != nullptr; }
  /// Registered bytes.
  std::size_t bytes() const noexcept { return bytes_; }
  /// The registered tensor (undefined after close()).
  const at::Tensor& tensor() const noexcept { return tensor_; }

 private:
  at::Tensor tensor_;
  std::unique_ptr<gnndirect::host_registration> pin_;
  std::size_t bytes_{0};
};

/// A new, uninitialised CPU tensor of `sizes` x `dtype` whose memory is a gnndirect allocation
/// in `placement` ("pinned": cudaHostAlloc mapped; "managed_host": managed memory kept on the CPU
/// and mapped by the GPU, never more than the GPU has free). The tensor owns the allocation.
/// Synchronous. @throws c10::ValueError (placement, sizes), allocation error (MemoryError).
at::Tensor allocate_host_tensor(at::IntArrayRef sizes, at::ScalarType dtype, const std::string& placement);

/// Name of the placement gnndirect's `auto` picks on the current device ("managed_host" with
/// concurrent managed access, else "pinned"). @throws c10 errors without a device.
std::string auto_placement();
/// One-line reason for auto_placement().
std::string auto_placement_reason();

/// `auto` placement for a table of `bytes` bytes on the current device (managed_host only when it
/// fits the GPU's free-memory safety rule, else pinned; see gnndirect/owners/placement.hpp).
/// @throws c10 errors without a device.
std::string auto_placement_for(std::int64_t bytes);

/// What the host can give now and its ceiling (gnndirect/owners/host_memory.hpp), as a Python
/// dict: known, available, source, cgroup_headroom (or None), mem_available, limit,
/// limit_source. Reads a few small files; initialises nothing. @throws ValueError for a bad
/// GNNDIRECT_HOST_MEMORY_LIMIT.
pybind11::dict host_memory_info();

/// (shape, descr) of a .npy file's header, e.g. ([111059956, 128], "<f4"). Maps the file
/// (nothing is read but the header). @throws ValueError naming the file.
pybind11::tuple npy_header(const std::string& path);

/// Streams the .npy file at `path` into `target` (a contiguous tensor of the same element count
/// and element size: CPU memory of any placement, or CUDA through one bounded staging chunk) in
/// chunks of 64 MiB on all cores, releasing each chunk's mapped pages, so that peak host memory
/// is the target plus one chunk. The caller checks dtypes (Python maps descr to torch dtypes).
/// Synchronous. @throws ValueError (file, sizes), RuntimeError (CUDA copy).
void fill_from_npy(const at::Tensor& target, const std::string& path);

}  // namespace gnndirect_torch
