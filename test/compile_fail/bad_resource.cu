// Must NOT compile: a type that is not a memory resource passed where gnndirect takes one. The
// failure must be resource_ref's readable static_assert (the two member signatures), not "no
// instance of overloaded function gnndirect::gather matches" once per overload.
#include <gnndirect/algorithms/gather.cuh>

struct not_a_resource {
  void* allocate(std::size_t bytes);  // the host shape, without stream and alignment
};

void use(cudaStream_t stream, gnndirect::table_view<const float> src, const std::int64_t* ids,
         gnndirect::table_view<float> dst)
{
  not_a_resource memory;
  gnndirect::gather(stream, src, ids, 10, dst, gnndirect::gather_policy{}, memory);
}
