#pragma once
/// @file cpu_blocks.hpp
/// @brief Internals of host/cpu_blocks.hpp: the allocator of the CPU sampler's outputs
/// (host-compilable; not part of the API).

#include <gnndirect/core/version.hpp>

#include <memory>
#include <new>
#include <type_traits>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN
namespace host {
namespace detail {

/// std::allocator whose value-initialisation is default-initialisation: resize() of a vector of
/// ints leaves new elements uninitialised (every pass writes them before reading).
template <class T>
struct default_init_allocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = default_init_allocator<U>;
  };
  default_init_allocator() noexcept = default;
  template <class U>
  default_init_allocator(const default_init_allocator<U>&) noexcept  // NOLINT: allocator rebind
  {
  }
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>)
  {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args)
  {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

}  // namespace detail
}  // namespace host
GNNDIRECT_NAMESPACE_END
