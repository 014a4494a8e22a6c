// Must NOT compile: gather from a type that is not a row source. The compile_fail test checks
// that the error is the library's readable static_assert, not a page of overload failures.
#include <gnndirect/algorithms/gather.cuh>

struct not_a_source {
  const float* data;
};

void use(cudaStream_t stream, const std::int64_t* indices, gnndirect::table_view<float> out,
         gnndirect::workspace_view ws)
{
  gnndirect::gather_async(stream, not_a_source{nullptr}, indices, 10, out, ws);
}
