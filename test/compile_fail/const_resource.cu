// Must NOT compile: a const memory resource (allocate and deallocate are non-const members, and
// resource_ref keeps the resource by address). The failure must name the lvalue rule.
#include <gnndirect/algorithms/gather.cuh>

struct some_resource {
  void* allocate(::cuda::stream_ref, std::size_t, std::size_t);
  void deallocate(::cuda::stream_ref, void*, std::size_t, std::size_t) noexcept;
};

void use(cudaStream_t stream, gnndirect::table_view<const float> src, const std::int64_t* ids,
         gnndirect::table_view<float> dst)
{
  some_resource const memory{};
  gnndirect::gather(stream, src, ids, 10, dst, gnndirect::gather_policy{}, memory);
}
