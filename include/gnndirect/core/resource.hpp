#pragma once
/// @file resource.hpp
/// @brief Caller-supplied device memory: the stream-ordered memory-resource concept every
/// allocating call of gnndirect accepts, a non-owning type-erased reference to one, and the
/// default resource (the device's stream-ordered pool). Host-compilable (CUDA headers needed).
///
/// The concept's member signatures are those of CCCL's stable `cuda::mr` stream-ordered resource
/// (CCCL >= 3.1) and of RMM's resources (>= 25.10):
/// @code
///   void* allocate(cuda::stream_ref stream, std::size_t bytes, std::size_t alignment);
///   void  deallocate(cuda::stream_ref stream, void* ptr, std::size_t bytes,
///                    std::size_t alignment) noexcept;
/// @endcode
/// so such a resource (or a PyTorch caching-allocator adapter written to the same shape) plugs in
/// without a wrapper. CCCL 3.0 (CUDA 13.0) only has the experimental concept with other names
/// (allocate_async), which is why gnndirect states the concept itself instead of requiring
/// `cuda::mr::async_resource`.

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/core/resource.hpp>

#include <cuda/stream_ref>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

/// Alignment gnndirect asks of every allocation (CUB's temporary-storage alignment, and enough
/// for 16-byte vector access and the 8-byte error record).
inline constexpr std::size_t default_allocation_alignment = 256;

/// True when `R` models the stream-ordered resource concept (see the file comment): both members
/// callable on a non-const lvalue of `R`, whatever `deallocate` promises (resource_ref also
/// requires it to be noexcept).
/// @tparam R the type to test
template <class R, class = void>
struct is_stream_ordered_resource : std::false_type {};

/// The case where both members are callable.  @tparam R the type to test
template <class R>
struct is_stream_ordered_resource<
  R, std::void_t<decltype(static_cast<void*>(std::declval<R&>().allocate(
                   std::declval<::cuda::stream_ref>(), std::size_t{}, std::size_t{}))),
                 decltype(std::declval<R&>().deallocate(std::declval<::cuda::stream_ref>(),
                                                        std::declval<void*>(), std::size_t{},
                                                        std::size_t{}))>> : std::true_type {};

/// Shorthand for is_stream_ordered_resource<R>::value.  @tparam R the type to test
template <class R>
inline constexpr bool is_stream_ordered_resource_v = is_stream_ordered_resource<R>::value;

/// Device memory from a CUDA memory pool, stream-ordered (cudaMallocAsync /
/// cudaMallocFromPoolAsync). Trivially copyable; a null pool means the current device's default
/// pool. This is the resource every gnndirect call uses when the caller passes none.
class device_pool_resource {
 public:
  /// Resource over `pool`.  @param pool a pool of the current device, or null for its default pool
  explicit device_pool_resource(cudaMemPool_t pool = nullptr) noexcept : pool_(pool) {}

  /// Allocates `bytes` usable by work enqueued on `stream` after this call (never null for
  /// bytes > 0). @throws allocation_error when the pool cannot serve the request.
  /// @param stream the stream  @param bytes the size (the alignment argument is unnamed: the pool
  /// aligns to at least 256 bytes)  @return the memory
  void* allocate(::cuda::stream_ref stream, std::size_t bytes, std::size_t /*alignment*/);
  /// Frees `ptr` once the work enqueued on `stream` before this call is done. Never throws.
  /// @param stream the stream  @param ptr what allocate() returned
  void deallocate(::cuda::stream_ref stream, void* ptr, std::size_t /*bytes*/,
                  std::size_t /*alignment*/) noexcept;
  /// @return the pool (null: the device's default pool)
  cudaMemPool_t pool() const noexcept { return pool_; }

 private:
  cudaMemPool_t pool_{nullptr};  ///< the pool; null: the current device's default pool
};

static_assert(is_stream_ordered_resource_v<device_pool_resource>);

/// Non-owning, trivially copyable reference to any stream-ordered resource: what gnndirect's
/// owners and allocating calls store and take. The referenced resource must outlive every
/// allocation made through the reference. A default-constructed reference uses the current
/// device's default pool (device_pool_resource{}).
///
/// Every allocation through a reference is checked: a resource that returns null for bytes > 0,
/// or a pointer not aligned as asked (gnndirect asks default_allocation_alignment, 256 bytes),
/// gives allocation_error naming the call, the bytes and the alignment (a misaligned block is
/// handed back first).
class resource_ref {
 public:
  /// The default resource: the current device's default stream-ordered pool.
  resource_ref() noexcept = default;

  /// References `resource` (kept by address; it must outlive the allocations). Accepts any
  /// argument so that a type which does not fit fails here with a readable static_assert (the
  /// two member signatures and the lvalue rule) instead of "no matching overload" at every call
  /// that takes a resource_ref.
  /// @tparam R a stream-ordered resource, passed as a non-const lvalue, whose deallocate is
  ///         noexcept
  /// @param resource the resource
  template <class R, class = std::enable_if_t<!std::is_same_v<
                       std::remove_cv_t<std::remove_reference_t<R>>, resource_ref>>>
  resource_ref(R&& resource) noexcept;  // NOLINT: implicit by design, like cuda::mr::resource_ref

  /// Allocates `bytes` (aligned to `alignment`) for use on `stream`.
  /// @throws allocation_error when the resource returns null (bytes > 0) or a misaligned
  /// pointer; whatever the resource throws (gnndirect's own: allocation_error).
  /// @param stream the stream  @param bytes, alignment the request  @return the memory
  void* allocate(::cuda::stream_ref stream, std::size_t bytes,
                 std::size_t alignment = default_allocation_alignment) const;
  /// Returns memory from allocate() with the same bytes and alignment, stream-ordered.
  /// @param stream the stream  @param ptr the memory  @param bytes, alignment as allocated
  void deallocate(::cuda::stream_ref stream, void* ptr, std::size_t bytes,
                  std::size_t alignment = default_allocation_alignment) const noexcept;
  /// @return true when this references the default resource
  bool is_default() const noexcept { return object_ == nullptr; }

 private:
  /// allocate() of the referenced resource: object_ cast back to its type R (set by the
  /// converting constructor, the only place that knows R).
  /// @param object the resource  @param stream, bytes, alignment the request
  /// @return what R::allocate returned
  template <class R>
  static void* allocate_thunk(void* object, ::cuda::stream_ref stream, std::size_t bytes,
                              std::size_t alignment)
  {
    return static_cast<R*>(object)->allocate(stream, bytes, alignment);
  }
  /// deallocate() of the referenced resource (as allocate_thunk).
  /// @param object the resource  @param stream, ptr, bytes, alignment as allocated
  template <class R>
  static void deallocate_thunk(void* object, ::cuda::stream_ref stream, void* ptr, std::size_t bytes,
                               std::size_t alignment) noexcept
  {
    static_cast<R*>(object)->deallocate(stream, ptr, bytes, alignment);
  }

  void* object_{nullptr};  ///< the referenced resource; null: the default pool
  /// allocate_thunk<R> of the referenced resource's type (null with object_)
  void* (*allocate_)(void*, ::cuda::stream_ref, std::size_t, std::size_t){nullptr};
  /// deallocate_thunk<R> of the referenced resource's type (null with object_)
  void (*deallocate_)(void*, ::cuda::stream_ref, void*, std::size_t, std::size_t) noexcept {nullptr};
};

static_assert(std::is_trivially_copyable_v<resource_ref>);
static_assert(is_stream_ordered_resource_v<resource_ref>);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/resource.inl>
