// Test support for test_gpu_allocations: counts every CUDA runtime allocation call the test
// executable makes, library headers included, and forwards it to the shared libcudart found by
// dlsym(RTLD_NEXT). Compiled by the host compiler (the runtime's declarations carry nvcc-only
// attributes there), and the executable links the shared cudart: with the static one these
// definitions would clash with the archive's instead of replacing them.
#include "allocation_interposer.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace {

std::atomic<long> counters[gnndirect::test::raw_call_count]{};

template <class Function>
Function real(const char* name)
{
  void* const symbol = dlsym(RTLD_NEXT, name);
  if (symbol == nullptr) {
    std::fprintf(stderr, "allocation_interposer: %s not found in the CUDA runtime\n", name);
    std::abort();
  }
  return reinterpret_cast<Function>(symbol);
}

void count(gnndirect::test::raw_call call) { counters[static_cast<int>(call)].fetch_add(1); }

}  // namespace

namespace gnndirect::test {
raw_counts raw_allocation_counts() noexcept
{
  raw_counts result;
  for (int i = 0; i < raw_call_count; ++i) { result.calls[i] = counters[i].load(); }
  return result;
}
}  // namespace gnndirect::test

using gnndirect::test::raw_call;

extern "C" {

cudaError_t CUDARTAPI cudaMalloc(void** ptr, size_t size)
{
  count(raw_call::malloc);
  static auto const forward = real<cudaError_t (*)(void**, size_t)>("cudaMalloc");
  return forward(ptr, size);
}

cudaError_t CUDARTAPI cudaMallocAsync(void** ptr, size_t size, cudaStream_t stream)
{
  count(raw_call::malloc_async);
  static auto const forward = real<cudaError_t (*)(void**, size_t, cudaStream_t)>("cudaMallocAsync");
  return forward(ptr, size, stream);
}

cudaError_t CUDARTAPI cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream)
{
  count(raw_call::malloc_from_pool);
  static auto const forward =
    real<cudaError_t (*)(void**, size_t, cudaMemPool_t, cudaStream_t)>("cudaMallocFromPoolAsync");
  return forward(ptr, size, pool, stream);
}

cudaError_t CUDARTAPI cudaMallocManaged(void** ptr, size_t size, unsigned int flags)
{
  count(raw_call::malloc_managed);
  static auto const forward = real<cudaError_t (*)(void**, size_t, unsigned int)>("cudaMallocManaged");
  return forward(ptr, size, flags);
}

cudaError_t CUDARTAPI cudaHostAlloc(void** ptr, size_t size, unsigned int flags)
{
  count(raw_call::host_alloc);
  static auto const forward = real<cudaError_t (*)(void**, size_t, unsigned int)>("cudaHostAlloc");
  return forward(ptr, size, flags);
}

cudaError_t CUDARTAPI cudaMallocHost(void** ptr, size_t size)
{
  count(raw_call::malloc_host);
  static auto const forward = real<cudaError_t (*)(void**, size_t)>("cudaMallocHost");
  return forward(ptr, size);
}

cudaError_t CUDARTAPI cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height)
{
  count(raw_call::malloc_pitch);
  static auto const forward = real<cudaError_t (*)(void**, size_t*, size_t, size_t)>("cudaMallocPitch");
  return forward(ptr, pitch, width, height);
}

cudaError_t CUDARTAPI cudaHostRegister(void* ptr, size_t size, unsigned int flags)
{
  count(raw_call::host_register);
  static auto const forward = real<cudaError_t (*)(void*, size_t, unsigned int)>("cudaHostRegister");
  return forward(ptr, size, flags);
}

}  // extern "C"
