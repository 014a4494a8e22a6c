// Must NOT compile: sampling with a type that is not a sampler (see bad_row_source.cu).
#include <gnndirect/algorithms/sample_neighbors.cuh>

struct not_a_sampler {
  int k;
};

void use(cudaStream_t stream, const gnndirect::csr_view<std::int64_t, std::int64_t>& csr, const std::int64_t* seeds,
         const gnndirect::sampled_slots_view<std::int64_t, std::int64_t>& out, gnndirect::workspace_view ws)
{
  gnndirect::sample_neighbors_async(stream, csr, seeds, 10, 5, 0, not_a_sampler{1}, gnndirect::sampling_policy{},
                                    out, ws);
}
