#pragma once
// Definitions of core/host_resource.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

inline void* pinned_host_resource::allocate(std::size_t bytes, std::size_t /*alignment*/)
{
  void* ptr = nullptr;
  if (bytes == 0) { return ptr; }
  cudaError_t const status = cudaHostAlloc(&ptr, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    if (detail::is_no_device_code(status)) {
      throw no_device_error(__FILE__, __LINE__, "cudaHostAlloc", status);
    }
    throw allocation_error(__FILE__, __LINE__, bytes, memory_kind::pinned,
                           std::string("cudaHostAlloc returned ") + cudaGetErrorName(status) +
                             "; page-locked memory is limited by free RAM and the locked-memory "
                             "limit (ulimit -l)");
  }
  return ptr;
}

inline void pinned_host_resource::deallocate(void* ptr, std::size_t /*bytes*/, std::size_t /*alignment*/) noexcept
{
  if (ptr != nullptr) { GNNDIRECT_CUDA_TRY_NOTHROW(cudaFreeHost(ptr)); }
}

template <class R>
constexpr void host_resource_family::check() noexcept
{
  using type = std::remove_reference_t<R>;
  static_assert(std::is_lvalue_reference_v<R>,
                "gnndirect::host_resource_ref: pass the host memory resource as a non-const "
                "lvalue (it is kept by address and must outlive its allocations), not a temporary");
  static_assert(!std::is_const_v<type>,
                "gnndirect::host_resource_ref: the host memory resource is const; allocate and "
                "deallocate are called on a non-const lvalue, so pass a non-const one");
  static_assert(std::is_const_v<type> || is_host_resource_v<type>,
                "gnndirect::host_resource_ref: not a host memory resource; it needs the members "
                "void* allocate(std::size_t bytes, std::size_t alignment) and void "
                "deallocate(void* ptr, std::size_t bytes, std::size_t alignment) noexcept, "
                "callable on a non-const lvalue");
  static_assert(!is_host_resource_v<type> || detail::has_noexcept_host_deallocate<type>::value,
                "gnndirect::host_resource_ref: the host memory resource's deallocate(void*, "
                "std::size_t, std::size_t) must be noexcept (owners return memory from "
                "destructors)");
}

GNNDIRECT_NAMESPACE_END
