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

#include <gnndirect/core/basic_resource_ref.hpp>
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

/// The stream-ordered (device) family of basic_resource_ref (its file comment): resources that
/// model is_stream_ordered_resource with a noexcept deallocate, passed as non-const lvalues;
/// the default is device_pool_resource.
struct device_resource_family {
  using default_resource = device_pool_resource;  ///< what a default resource_ref uses
  static constexpr memory_kind kind = memory_kind::device;  ///< named in allocation errors
  static constexpr const char* allocate_call = "allocate(stream, ...)";  ///< ditto

  /// Whether `R` (as passed to resource_ref's constructor) can be referenced. When it is false the
  /// constructor stores nothing after check()'s static_assert has fired, so the compiler prints
  /// that one message rather than errors from the thunks.
  /// @tparam R the argument type
  template <class R>
  static constexpr bool accepts =
    std::is_lvalue_reference_v<R> && !std::is_const_v<std::remove_reference_t<R>> &&
    is_stream_ordered_resource_v<std::remove_reference_t<R>> &&
    detail::has_noexcept_stream_deallocate<std::remove_reference_t<R>>::value;

  /// The readable static_asserts of what `R` lacks (the lvalue rule, constness, the two member
  /// signatures, noexcept deallocate).
  /// @tparam R the argument type
  template <class R>
  static constexpr void check() noexcept;
};

/// Non-owning, trivially copyable reference to any stream-ordered resource: what gnndirect's
/// owners and allocating calls store and take (basic_resource_ref of the device family; its
/// allocate and deallocate take the cuda::stream_ref first). A default-constructed reference
/// uses the current device's default pool (device_pool_resource{}). A caller's resource is passed
/// where a resource_ref is taken and must outlive what is allocated through it:
/// @code
///   my_pool_resource pool;                              // any stream-ordered resource
///   gnndirect::buffer<float> rows(count, stream, pool); // allocated through resource_ref(pool)
/// @endcode
using resource_ref = basic_resource_ref<device_resource_family, ::cuda::stream_ref>;

static_assert(std::is_trivially_copyable_v<resource_ref>);
static_assert(is_stream_ordered_resource_v<resource_ref>);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/resource.inl>
