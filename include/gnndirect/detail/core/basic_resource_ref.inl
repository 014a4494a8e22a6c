#pragma once
// Definitions of core/basic_resource_ref.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Family, class... Context>
template <class R, class>
basic_resource_ref<Family, Context...>::basic_resource_ref(R&& resource) noexcept
{
  Family::template check<R>();
  if constexpr (Family::template accepts<R>) {
    using type = std::remove_reference_t<R>;
    object_ = static_cast<void*>(&resource);
    allocate_ = &allocate_thunk<type>;
    deallocate_ = &deallocate_thunk<type>;
  }
}

template <class Family, class... Context>
void* basic_resource_ref<Family, Context...>::allocate(Context... context, std::size_t bytes,
                                                       std::size_t alignment) const
{
  if (object_ == nullptr) { return typename Family::default_resource{}.allocate(context..., bytes, alignment); }
  void* const ptr = allocate_(object_, context..., bytes, alignment);
  return detail::checked_allocation(ptr, bytes, alignment, Family::kind, Family::allocate_call,
                                    [&](void* bad) { deallocate_(object_, context..., bad, bytes, alignment); });
}

template <class Family, class... Context>
void basic_resource_ref<Family, Context...>::deallocate(Context... context, void* ptr, std::size_t bytes,
                                                        std::size_t alignment) const noexcept
{
  if (object_ == nullptr) {
    typename Family::default_resource{}.deallocate(context..., ptr, bytes, alignment);
    return;
  }
  deallocate_(object_, context..., ptr, bytes, alignment);
}

GNNDIRECT_NAMESPACE_END
