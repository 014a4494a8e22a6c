#pragma once
/// @file common.hpp
/// @brief Shared helpers of the gnndirect PyTorch extension: error translation (gnndirect
/// exceptions -> c10 errors that torch turns into the right Python exception), argument checks,
/// placement detection of a tensor's memory, and element-size dispatch.
///
/// Host-compilable (g++ or nvcc); includes ATen but not pybind11.

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace gnndirect_torch {

/// Prefix of the message of an allocation failure; the Python layer turns a RuntimeError that
/// starts with it into MemoryError (c10 has no MemoryError type).
inline constexpr const char* allocation_error_tag = "[gnndirect.allocation_error] ";

#ifndef GNNDIRECT_TORCH_CPP_BACKTRACE
/// 1: translated errors carry a C++ backtrace (C10_THROW_ERROR); 0 (default): they carry the
/// library's message only. The message already names the argument, position and bound; a
/// backtrace of the dispatcher adds nothing for the Python user and costs a stack walk per error.
#define GNNDIRECT_TORCH_CPP_BACKTRACE 0
#endif

/// Throws a c10 error of type E (c10::IndexError, c10::ValueError, c10::Error) with `message`.
template <class E>
[[noreturn]] void throw_c10(std::string message)
{
#if GNNDIRECT_TORCH_CPP_BACKTRACE
  throw E(c10::SourceLocation{__func__, __FILE__, static_cast<std::uint32_t>(__LINE__)},
          std::move(message));
#else
  throw E(std::move(message));  // base constructor: no backtrace captured
#endif
}

/// Runs `body` and rethrows gnndirect exceptions as c10 errors with the library's message:
/// index_out_of_range -> c10::IndexError (Python IndexError), invalid_argument -> c10::ValueError
/// (ValueError), allocation_error -> c10::Error tagged with allocation_error_tag (MemoryError in
/// the Python wrappers), any other gnndirect::error -> c10::Error (RuntimeError). c10 errors
/// raised by the body pass through unchanged.
template <class Body>
decltype(auto) translate_errors(Body&& body)
{
  try {
    return std::forward<Body>(body)();
  } catch (const gnndirect::index_out_of_range& e) {
    throw_c10<c10::IndexError>(e.what());
  } catch (const gnndirect::invalid_argument& e) {
    throw_c10<c10::ValueError>(e.what());
  } catch (const gnndirect::allocation_error& e) {
    throw_c10<c10::Error>(std::string(allocation_error_tag) + e.what());
  } catch (const gnndirect::error& e) {
    throw_c10<c10::Error>(e.what());
  }
}

/// Where a tensor's bytes live and the address kernels use to reach them.
struct placed_pointer {
  gnndirect::memory_kind kind{gnndirect::memory_kind::device};  ///< placement as gather sees it
  void* device{nullptr};  ///< device-visible address of the tensor's first element
};

/// Placement of `t`'s memory from cudaPointerGetAttributes: device, pinned (cudaHostAlloc and
/// cudaHostRegister memory look alike to the driver and behave alike for gathers; both are
/// reported as `pinned`) or managed_host. Empty tensors report `device` with a null address.
/// @param what names the argument in errors  @param device the device the kernels run on
/// @throws c10::ValueError when the memory is pageable host memory the GPU cannot read, or lives
/// on another device than `device`. Does not synchronise.
placed_pointer placement_of(const at::Tensor& t, const char* what, int device);

/// Name of the placement of `t` ("device", "pinned", "managed_host", "pageable"). Does not
/// synchronise; initialises CUDA.
std::string placement_name(const at::Tensor& t);

/// Checks that `t` is a 1-D int32 or int64 tensor. @throws c10::TypeError / c10::ValueError.
void check_index_tensor(const at::Tensor& t, const char* what);

/// Checks that `t` is a 2-D table whose rows are contiguous (stride(1) == 1).
/// @throws c10::ValueError.
void check_table_tensor(const at::Tensor& t, const char* what);

/// Checks that `indptr` ends at the edge count: indptr[num_nodes] == indices.size(0). The cheap
/// part of CSR validation that every op runs before any kernel, so that a truncated `indices`
/// (or a wrong indptr) cannot make a kernel read past the arrays. Reads one element: a host read
/// for CPU tensors (any host placement), a copy and a synchronisation of the current stream for
/// CUDA tensors. @throws c10::ValueError naming both numbers.
void check_indptr_end(const at::Tensor& indptr, const at::Tensor& indices);

/// Tells torch's pinned-memory cache (CachingHostAllocator, behind Tensor.pin_memory()) that
/// work enqueued on `stream` so far uses the host tensor `t`, so that the block is not handed
/// out again before that work completes (torch records such events for its own copies; a
/// kernel of this extension that reads or writes a pin_memory() tensor must do the same). A
/// no-op for CUDA tensors and for host memory torch's cache does not own. Never synchronises.
void record_host_use(const at::Tensor& t, cudaStream_t stream, int device);

/// Adds `bytes` to the process-wide count of device-to-device bytes the extension copied (only
/// pipeline batches detached while held, see batch_hand_off in pipeline_impl.cuh). Thread-safe.
void count_device_copy(std::size_t bytes) noexcept;
/// Device-to-device bytes copied since the process started (or the last reset).
std::int64_t device_copy_bytes() noexcept;
/// Sets the device-to-device copy count back to 0.
void reset_device_copy_bytes() noexcept;

/// Calls body(tag) with tag an unsigned integer type of `bytes` bytes (1, 2, 4 or 8): feature
/// rows are moved as bytes, so fp32/fp16/bf16 (and int types) share instantiations.
/// @throws c10::TypeError for other element sizes.
template <class Body>
decltype(auto) dispatch_element_size(std::size_t bytes, Body&& body)
{
  switch (bytes) {
    case 1: return body(std::uint8_t{});
    case 2: return body(std::uint16_t{});
    case 4: return body(std::uint32_t{});
    case 8: return body(std::uint64_t{});
    default: break;
  }
  TORCH_CHECK_TYPE(false, "gnndirect: unsupported element size ", bytes);
}

/// Calls body(tag) with tag std::int32_t or std::int64_t matching `dtype`.
/// @throws c10::TypeError for other dtypes.
template <class Body>
decltype(auto) dispatch_index_type(at::ScalarType dtype, const char* what, Body&& body)
{
  if (dtype == at::kInt) { return body(std::int32_t{}); }
  TORCH_CHECK_TYPE(dtype == at::kLong, "gnndirect: ", what, " must be int32 or int64, got ", dtype);
  return body(std::int64_t{});
}

/// Element pointer of `t` as T (no dtype check: callers dispatched on the element size).
template <class T>
T* data_as(const at::Tensor& t)
{
  return static_cast<T*>(t.data_ptr());
}

}  // namespace gnndirect_torch
