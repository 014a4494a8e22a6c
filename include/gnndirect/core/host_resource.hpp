#pragma once
/// @file host_resource.hpp
/// @brief Caller-supplied page-locked host memory: the host-side memory-resource concept (for
/// pinned staging and pinned owners), a non-owning type-erased reference to one, and the default
/// resource (cudaHostAlloc, mapped and portable). Host-compilable (CUDA headers needed).
///
/// The concept is the synchronous shape of resource.hpp's stream-ordered one:
/// @code
///   void* allocate(std::size_t bytes, std::size_t alignment);
///   void  deallocate(void* ptr, std::size_t bytes, std::size_t alignment) noexcept;
/// @endcode
/// Synchronous rather than stream-ordered because page-locked host memory has no stream-ordered
/// allocator in CUDA (cudaHostAlloc and cudaFreeHost are synchronous) and the first user of such
/// memory is the CPU writing into it, which no stream orders. It is the shape of RMM's host
/// memory resources and of CCCL 3.0's synchronous cuda::mr resource.
///
/// What the memory must be: page-locked and mapped into the device's address space
/// (cudaHostAlloc with cudaHostAllocMapped, or memory pinned with cudaHostRegisterMapped), because
/// gnndirect hands its device address (cudaHostGetDevicePointer) to kernels and copies. Memory that
/// is not gives allocation_error when a pinned owner is built from it.

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/core/host_resource.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

/// True when `R` models the host resource concept (see the file comment): both members callable
/// on a non-const lvalue of `R`.
/// @tparam R the type to test
template <class R, class = void>
struct is_host_resource : std::false_type {};

/// The case where both members are callable.  @tparam R the type to test
template <class R>
struct is_host_resource<
  R, std::void_t<decltype(static_cast<void*>(std::declval<R&>().allocate(std::size_t{}, std::size_t{}))),
                 decltype(std::declval<R&>().deallocate(std::declval<void*>(), std::size_t{},
                                                        std::size_t{}))>> : std::true_type {};

/// Shorthand for is_host_resource<R>::value.  @tparam R the type to test
template <class R>
inline constexpr bool is_host_resource_v = is_host_resource<R>::value;

/// Page-locked host memory mapped for every device (cudaHostAlloc with cudaHostAllocMapped |
/// cudaHostAllocPortable; page-aligned, so any alignment up to the page size holds). Stateless.
/// This is the host resource every gnndirect call uses when the caller passes none.
class pinned_host_resource {
 public:
  /// Allocates `bytes` of mapped page-locked memory (null for 0 bytes). Synchronous.
  /// @throws allocation_error (kind pinned) naming cudaHostAlloc and the locked-memory limit;
  ///         no_device_error without a GPU.
  /// @param bytes the size (the alignment argument is unnamed: pages are aligned enough)
  /// @return the memory
  void* allocate(std::size_t bytes, std::size_t /*alignment*/);
  /// Frees memory from allocate() (cudaFreeHost, which waits for the device). Never throws.
  /// @param ptr the memory (size and alignment arguments unused)
  void deallocate(void* ptr, std::size_t /*bytes*/, std::size_t /*alignment*/) noexcept;
};

static_assert(is_host_resource_v<pinned_host_resource>);

/// The host family of basic_resource_ref (its file comment): resources that model
/// is_host_resource with a noexcept deallocate, passed as non-const lvalues; the default is
/// pinned_host_resource.
struct host_resource_family {
  using default_resource = pinned_host_resource;  ///< what a default host_resource_ref uses
  static constexpr memory_kind kind = memory_kind::pinned;  ///< named in allocation errors
  static constexpr const char* allocate_call = "allocate(host, ...)";  ///< ditto

  /// Whether `R` (as passed to host_resource_ref's constructor) can be referenced. When it is false the
  /// constructor stores nothing after check()'s static_assert has fired, so the compiler prints
  /// that one message rather than errors from the thunks.
  /// @tparam R the argument type
  template <class R>
  static constexpr bool accepts = std::is_lvalue_reference_v<R> && !std::is_const_v<std::remove_reference_t<R>> &&
                                  is_host_resource_v<std::remove_reference_t<R>> &&
                                  detail::has_noexcept_host_deallocate<std::remove_reference_t<R>>::value;

  /// The readable static_asserts of what `R` lacks (as device_resource_family::check).
  /// @tparam R the argument type
  template <class R>
  static constexpr void check() noexcept;
};

/// Non-owning, trivially copyable reference to any host resource: what gnndirect's pinned owners
/// and the pipeline's staging store and take (basic_resource_ref of the host family: allocate
/// and deallocate take no stream). The referenced resource must outlive every allocation made
/// through the reference. A default-constructed reference uses pinned_host_resource. Every
/// allocation is checked as resource_ref's are (null for bytes > 0, misalignment:
/// allocation_error naming the call, the bytes and the alignment).
using host_resource_ref = basic_resource_ref<host_resource_family>;

static_assert(std::is_trivially_copyable_v<host_resource_ref>);
static_assert(is_host_resource_v<host_resource_ref>);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/host_resource.inl>
