#pragma once
/// @file buffer.hpp
/// @brief buffer<T>: owning 1-D array of T in one memory_kind (host-compilable).

#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/allocation.hpp>

#include <cstddef>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// Owning, move-only array of `size` uninitialised elements of trivially copyable T.
/// data() is the device-visible address; host_data() the CPU address (nullptr for device).
/// @tparam T element type (trivially copyable)
template <class T>
class buffer {
  static_assert(std::is_trivially_copyable_v<T>, "buffer<T>: T must be trivially copyable");

 public:
  /// Empty buffer.
  buffer() noexcept = default;
  /// Allocates `size` elements synchronously in `kind`: device memory from `mr`, pinned memory
  /// from `host_mr` (defaults: the device's default pool, cudaHostAlloc); both must outlive the
  /// buffer. @param size elements  @param kind placement  @param mr, host_mr resources
  /// @throws invalid_argument "overflows" when size * sizeof(T) exceeds std::size_t (checked
  /// before anything is allocated); as allocation::allocation.
  buffer(std::size_t size, memory_kind kind, resource_ref mr = {}, host_resource_ref host_mr = {});
  /// Allocates `size` elements of device memory stream-ordered on `stream` from `mr` (default:
  /// the device's default pool); returned to `mr` on `stream`, which must outlive the buffer, as
  /// must the resource. Enqueued, not synchronous. @throws invalid_argument "overflows" (as
  /// above); as allocation::allocation.
  /// @param size elements  @param stream allocation (and release) stream  @param mr the resource
  buffer(std::size_t size, cudaStream_t stream, resource_ref mr = {});
  /// As above, from a CUDA memory pool of the current device (null: its default pool).
  /// @param size elements  @param stream allocation (and release) stream  @param pool the pool
  /// @throws invalid_argument "overflows" (as above); as allocation::allocation.
  buffer(std::size_t size, cudaStream_t stream, cudaMemPool_t pool);

  /// @return device-visible address of element 0 (nullptr when empty)
  T* data() const noexcept { return static_cast<T*>(storage_.device_data()); }
  /// @return host address of element 0; nullptr for device memory or when empty
  T* host_data() const noexcept { return static_cast<T*>(storage_.host_data()); }
  /// @return number of elements
  std::size_t size() const noexcept { return size_; }
  /// @return size in bytes
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  /// @return placement
  memory_kind kind() const noexcept { return storage_.kind(); }
  /// @return true when the buffer holds no element
  bool empty() const noexcept { return size_ == 0; }

 private:
  // size * sizeof(T) would wrap for sizes near 2^64 / sizeof(T): refuse before allocating.
  static std::size_t checked_bytes(std::size_t size);

  /// The memory (an allocation of its placement) and the element count.
  allocation storage_;
  std::size_t size_{0};
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/owners/buffer.inl>
