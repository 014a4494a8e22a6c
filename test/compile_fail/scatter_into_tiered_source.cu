// Must NOT compile: scatter into a read-only tier source (tiered_source); the static_assert names
// tiered_table::write_source, which writes through both copies.
#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/cache/tiered_source.hpp>

void use(cudaStream_t stream, const std::int64_t* indices, gnndirect::table_view<const float> src,
         gnndirect::tiered_view<float> tier, gnndirect::workspace_view ws)
{
  gnndirect::scatter_async(stream, src, indices, 10, gnndirect::tiered_source<float>(tier), ws);
}
