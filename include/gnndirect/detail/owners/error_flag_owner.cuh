#pragma once
/// @file error_flag_owner.cuh
/// @brief detail::error_flag: an error record that owns its device memory (for synchronous
/// APIs). Kept apart from error_flag.cuh so that the *_async headers, which take the record in
/// the caller's workspace, include no owners.

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/owners/buffer.hpp>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Owning error record in device memory (one small stream-ordered allocation from the caller's
/// resource: for synchronous APIs; hot paths that must not allocate take an error_flag_ref into
/// the caller's workspace instead).
class error_flag {
 public:
  /// Allocates the record (not yet reset) from `mr` on `stream`, which must outlive it.
  /// @throws allocation_error (or what `mr` throws), no_device_error.
  error_flag(cudaStream_t stream, resource_ref mr) : storage_(1, stream, mr) {}

  /// Handle for kernels and for the host-side steps.
  error_flag_ref ref() const noexcept { return error_flag_ref{storage_.data()}; }

 private:
  buffer<error_record> storage_;
};

}  // namespace detail
GNNDIRECT_NAMESPACE_END
