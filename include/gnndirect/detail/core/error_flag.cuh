#pragma once
/// @file error_flag.cuh
/// @brief Device-side record of the first out-of-range index a kernel met, and its host check.
///
/// Device code never throws (docs/design.md §5). A checked kernel that meets a bad index calls
/// error_flag_ref::report(position) and skips the work for that position; afterwards the host API
/// enqueues capture_value_async (which reads the bad value back on the device, so nothing races)
/// and, once it synchronises, throw_if_set turns the record into gnndirect::index_out_of_range
/// naming the array, the first bad position, its value and the bound. Every step up to
/// throw_if_set is stream-ordered and allowed under CUDA graph capture.
///
/// Usage (e.g. a gather over `indices` with `rows` rows):
/// @code
///   detail::error_flag flag;  // (error_flag_owner.cuh) or error_flag_ref{workspace pointer}
///   flag.ref().reset_async(stream);
///   my_kernel<<<grid, block, 0, stream>>>(..., flag.ref());  // calls ref.report(i) on bad input
///   flag.ref().capture_value_async(stream, indices);
///   flag.ref().throw_if_set(stream, "indices", rows);  // synchronises `stream`
/// @endcode

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/detail/core/error_record.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Copies the bad value out of `indices` on the device, after the checked kernel, so that the
/// reported value belongs to the reported (minimum) position without any race between threads.
template <class Index>
GNNDIRECT_KERNEL void capture_bad_value_kernel(error_record* record, const Index* indices)
{
  unsigned long long const position = record->position;
  if (position != no_bad_position) {
    record->value = static_cast<long long>(indices[static_cast<std::int64_t>(position)]);
  }
}

/// Trivially copyable handle to a device-visible error_record: passed by value to kernels, and
/// used on the host to reset, complete and check the record. Does not own the record.
struct error_flag_ref {
  error_record* record{nullptr};  ///< device-visible record (device memory in practice)

  /// Records `position` as bad; concurrent reports keep the minimum (atomicMin), so the host
  /// names the first bad position whatever the launch order. Device only; never throws.
  GNNDIRECT_DEVICE void report(std::int64_t position) const noexcept { report_min(record, position); }

  /// Records (`position`, `value`) as one pair when `position` is the smallest so far
  /// (report_first): for a value no later kernel can read back. A record takes one kind of
  /// report only. Device only; never throws.
  GNNDIRECT_DEVICE void report(std::int64_t position, long long value) const noexcept
  {
    report_first(record, position, value);
  }

  /// Marks the record clean. Enqueued on `stream` (capturable). @throws cuda_error.
  void reset_async(cudaStream_t stream) const
  {
    GNNDIRECT_CUDA_TRY(cudaMemsetAsync(record, 0xFF, sizeof(error_record), stream));
  }

  /// Enqueues the read-back of the value at the recorded position from the checked array
  /// `indices` (device-visible; it must not change before this runs). Capturable.
  /// @throws cuda_error when the launch fails.
  template <class Index>
  void capture_value_async(cudaStream_t stream, const Index* indices) const
  {
    capture_bad_value_kernel<Index><<<1, 1, 0, stream>>>(record, indices);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
  }

  /// Copies the record to the host and synchronises `stream`; returns it (position ==
  /// no_bad_position when clean). Not capturable. @throws cuda_error.
  error_record read(cudaStream_t stream) const
  {
    error_record host{no_bad_position, 0};
    GNNDIRECT_CUDA_TRY(
      cudaMemcpyAsync(&host, record, sizeof(error_record), cudaMemcpyDefault, stream));
    detail::synchronize(stream);
    return host;
  }

  /// Synchronises `stream` and throws when a bad index was recorded.
  /// @param what name of the checked array (e.g. "seeds")  @param bound its exclusive upper bound
  /// @throws index_out_of_range naming what[position] = value; cuda_error.
  void throw_if_set(cudaStream_t stream, const std::string& what, std::int64_t bound) const
  {
    error_record const host = read(stream);
    if (host.position != no_bad_position) {
      throw index_out_of_range(__FILE__, __LINE__, what, static_cast<std::int64_t>(host.position),
                               static_cast<std::int64_t>(host.value), bound);
    }
  }
};

}  // namespace detail
GNNDIRECT_NAMESPACE_END
