#pragma once
/// @file basic_resource_ref.hpp
/// @brief basic_resource_ref: the one non-owning, type-erased, trivially copyable reference to a
/// memory resource that gnndirect's owners and allocating calls store and take. Its two
/// instances are resource_ref (stream-ordered device resources, core/resource.hpp) and
/// host_resource_ref (page-locked host resources, core/host_resource.hpp); a *family* type
/// says what each accepts. Host-compilable.
///
/// A family is a type with
/// @code
///   using default_resource = ...;                  // what a default-constructed reference uses
///   static constexpr memory_kind kind = ...;       // named in allocation errors
///   static constexpr const char* allocate_call = "allocate(...)";  // ditto
///   template <class R> static constexpr bool accepts = ...;  // R (as passed) can be referenced
///   template <class R> static constexpr void check() noexcept; // static_asserts naming why not
/// @endcode
/// and the family's allocate and deallocate take `Context...` (a cuda::stream_ref for the device
/// family, nothing for the host one) before (bytes, alignment) and (ptr, bytes, alignment).

#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/core/resource.hpp>

#include <cstddef>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// Alignment gnndirect asks of every allocation (CUB's temporary-storage alignment, and enough
/// for 16-byte vector access and the 8-byte error record).
inline constexpr std::size_t default_allocation_alignment = 256;

/// Non-owning, trivially copyable reference to any resource of `Family` (see the file comment).
/// The referenced resource must outlive every allocation made through the reference; a
/// default-constructed reference uses `Family::default_resource`.
///
/// Every allocation through a reference is checked: a resource that returns null for bytes > 0,
/// or a pointer not aligned as asked (gnndirect asks default_allocation_alignment, 256 bytes),
/// gives allocation_error naming the call, the bytes and the alignment (a misaligned block is
/// handed back first).
/// @tparam Family what the reference accepts (device_resource_family, host_resource_family)
/// @tparam Context the arguments allocate and deallocate take first (cuda::stream_ref or none)
template <class Family, class... Context>
class basic_resource_ref {
 public:
  /// The family's default resource.
  basic_resource_ref() noexcept = default;

  /// References `resource` (kept by address; it must outlive the allocations). Accepts any
  /// argument so that a type which does not fit fails here with the family's readable
  /// static_assert (the member signatures, the lvalue rule, noexcept deallocate) instead of "no
  /// matching overload" at every call that takes a reference.
  /// @tparam R a resource of the family, passed as a non-const lvalue
  /// @param resource the resource
  template <class R, class = std::enable_if_t<!std::is_same_v<
                       std::remove_cv_t<std::remove_reference_t<R>>, basic_resource_ref>>>
  basic_resource_ref(R&& resource) noexcept;  // NOLINT: implicit by design, like cuda::mr::resource_ref

  /// Allocates `bytes` (aligned to `alignment`); stream-ordered on the context's stream for the
  /// device family, synchronous for the host one.
  /// @throws allocation_error when the resource returns null (bytes > 0) or a misaligned
  /// pointer; whatever the resource throws (gnndirect's own: allocation_error).
  /// @param context the family's context (the stream)  @param bytes, alignment the request
  /// @return the memory
  void* allocate(Context... context, std::size_t bytes,
                 std::size_t alignment = default_allocation_alignment) const;
  /// Returns memory from allocate() with the same context, bytes and alignment. Never throws.
  /// @param context as allocated  @param ptr the memory  @param bytes, alignment as allocated
  void deallocate(Context... context, void* ptr, std::size_t bytes,
                  std::size_t alignment = default_allocation_alignment) const noexcept;
  /// @return true when this references the family's default resource
  bool is_default() const noexcept { return object_ == nullptr; }

 private:
  /// allocate() of the referenced resource: object_ cast back to its type (set by the converting
  /// constructor, the only place that knows it).
  /// @param object the resource  @param context, bytes, alignment the request
  /// @return what the resource's allocate returned
  template <class R>
  static void* allocate_thunk(void* object, Context... context, std::size_t bytes, std::size_t alignment)
  {
    return static_cast<R*>(object)->allocate(context..., bytes, alignment);
  }
  /// deallocate() of the referenced resource (as allocate_thunk).
  /// @param object the resource  @param context, ptr, bytes, alignment as allocated
  template <class R>
  static void deallocate_thunk(void* object, Context... context, void* ptr, std::size_t bytes,
                               std::size_t alignment) noexcept
  {
    static_cast<R*>(object)->deallocate(context..., ptr, bytes, alignment);
  }

  void* object_{nullptr};  ///< the referenced resource; null: the family's default
  /// allocate_thunk of the referenced resource's type (null with object_)
  void* (*allocate_)(void*, Context..., std::size_t, std::size_t){nullptr};
  /// deallocate_thunk of the referenced resource's type (null with object_)
  void (*deallocate_)(void*, Context..., void*, std::size_t, std::size_t) noexcept {nullptr};
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/basic_resource_ref.inl>
