// Must NOT compile: a decoding gather into a destination type the codec cannot produce (int8
// codes decode to float, __half or __nv_bfloat16, not double). The compile_fail test checks that
// the error is the library's readable static_assert.
#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/device/codecs.hpp>

void use(cudaStream_t stream, const std::int64_t* indices, gnndirect::encoded_view<gnndirect::codecs::int8_affine> src,
         gnndirect::table_view<double> out, gnndirect::workspace_view ws)
{
  gnndirect::gather_async(stream, src, indices, 10, out, ws);
}
