// Must NOT compile: a memory resource whose deallocate is not noexcept (owners return memory from
// destructors, where a throw ends in std::terminate; cuda::mr requires noexcept too).
#include <gnndirect/owners/buffer.hpp>

struct throwing_resource {
  void* allocate(::cuda::stream_ref, std::size_t, std::size_t);
  void deallocate(::cuda::stream_ref, void*, std::size_t, std::size_t);  // may throw
};

void use(cudaStream_t stream)
{
  throwing_resource memory;
  gnndirect::buffer<int> const b(100, stream, memory);
}
