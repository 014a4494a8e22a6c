#pragma once
// Definitions of core/resource.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

inline void* device_pool_resource::allocate(::cuda::stream_ref stream, std::size_t bytes, std::size_t /*alignment*/)
{
  void* ptr = nullptr;
  if (bytes == 0) { return ptr; }
  cudaError_t const status = pool_ != nullptr
                               ? cudaMallocFromPoolAsync(&ptr, bytes, pool_, stream.get())
                               : cudaMallocAsync(&ptr, bytes, stream.get());
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    if (detail::is_no_device_code(status)) {
      throw no_device_error(__FILE__, __LINE__, "cudaMallocAsync", status);
    }
    throw allocation_error(__FILE__, __LINE__, bytes, memory_kind::device,
                           std::string("cudaMallocAsync returned ") + cudaGetErrorName(status) +
                             "; device memory is exhausted");
  }
  return ptr;
}

inline void device_pool_resource::deallocate(::cuda::stream_ref stream, void* ptr, std::size_t /*bytes*/,
                std::size_t /*alignment*/) noexcept
{
  if (ptr != nullptr) { GNNDIRECT_CUDA_TRY_NOTHROW(cudaFreeAsync(ptr, stream.get())); }
}

template <class R>
constexpr void device_resource_family::check() noexcept
{
  using type = std::remove_reference_t<R>;
  static_assert(std::is_lvalue_reference_v<R>,
                "gnndirect::resource_ref: pass the memory resource as a non-const lvalue (it is "
                "kept by address and must outlive its allocations), not a temporary");
  static_assert(!std::is_const_v<type>,
                "gnndirect::resource_ref: the memory resource is const; allocate and deallocate "
                "are called on a non-const lvalue, so pass a non-const one");
  static_assert(std::is_const_v<type> || is_stream_ordered_resource_v<type>,
                "gnndirect::resource_ref: not a stream-ordered memory resource; it needs the "
                "members void* allocate(cuda::stream_ref stream, std::size_t bytes, std::size_t "
                "alignment) and void deallocate(cuda::stream_ref stream, void* ptr, std::size_t "
                "bytes, std::size_t alignment) noexcept, callable on a non-const lvalue");
  static_assert(!is_stream_ordered_resource_v<type> ||
                  detail::has_noexcept_stream_deallocate<type>::value,
                "gnndirect::resource_ref: the memory resource's deallocate(cuda::stream_ref, "
                "void*, std::size_t, std::size_t) must be noexcept (owners return memory from "
                "destructors)");
}

GNNDIRECT_NAMESPACE_END
