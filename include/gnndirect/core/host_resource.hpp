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

/// Non-owning, trivially copyable reference to any host resource: what gnndirect's pinned owners
/// and the pipeline's staging store and take. The referenced resource must outlive every
/// allocation made through the reference. A default-constructed reference uses
/// pinned_host_resource. Every allocation is checked as resource_ref's are (null for bytes > 0,
/// misalignment: allocation_error naming the call, the bytes and the alignment).
class host_resource_ref {
 public:
  /// The default resource: pinned_host_resource.
  host_resource_ref() noexcept = default;

  /// References `resource` (kept by address; it must outlive the allocations). Accepts any
  /// argument so that a type which does not fit fails here with a readable static_assert.
  /// @tparam R a host resource, passed as a non-const lvalue, whose deallocate is noexcept
  /// @param resource the resource
  template <class R, class = std::enable_if_t<!std::is_same_v<
                       std::remove_cv_t<std::remove_reference_t<R>>, host_resource_ref>>>
  host_resource_ref(R&& resource) noexcept;  // NOLINT: implicit by design, like resource_ref

  /// Allocates `bytes` aligned to `alignment`. Synchronous.
  /// @throws allocation_error (kind pinned) when the resource returns null (bytes > 0) or a
  ///         misaligned pointer; whatever the resource throws.
  /// @param bytes, alignment the request  @return the memory
  void* allocate(std::size_t bytes, std::size_t alignment = default_allocation_alignment) const;
  /// Returns memory from allocate() with the same bytes and alignment.
  /// @param ptr the memory  @param bytes, alignment as allocated
  void deallocate(void* ptr, std::size_t bytes,
                  std::size_t alignment = default_allocation_alignment) const noexcept;
  /// @return true when this references the default resource
  bool is_default() const noexcept { return object_ == nullptr; }

 private:
  /// allocate() of the referenced resource: object_ cast back to its type R (set by the
  /// converting constructor, the only place that knows R).
  /// @param object the resource  @param bytes, alignment the request
  /// @return what R::allocate returned
  template <class R>
  static void* allocate_thunk(void* object, std::size_t bytes, std::size_t alignment)
  {
    return static_cast<R*>(object)->allocate(bytes, alignment);
  }
  /// deallocate() of the referenced resource (as allocate_thunk).
  /// @param object the resource  @param ptr, bytes, alignment as allocated
  template <class R>
  static void deallocate_thunk(void* object, void* ptr, std::size_t bytes, std::size_t alignment) noexcept
  {
    static_cast<R*>(object)->deallocate(ptr, bytes, alignment);
  }

  void* object_{nullptr};  ///< the referenced resource; null: pinned_host_resource
  /// allocate_thunk<R> of the referenced resource's type (null with object_)
  void* (*allocate_)(void*, std::size_t, std::size_t){nullptr};
  /// deallocate_thunk<R> of the referenced resource's type (null with object_)
  void (*deallocate_)(void*, void*, std::size_t, std::size_t) noexcept {nullptr};
};

static_assert(std::is_trivially_copyable_v<host_resource_ref>);
static_assert(is_host_resource_v<host_resource_ref>);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/host_resource.inl>
