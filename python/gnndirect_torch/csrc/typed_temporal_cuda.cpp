/// @file typed_temporal_cuda.cpp
/// @brief Registers the CUDA kernel of sample_typed_temporal_blocks (checks the arguments,
/// dispatches on the indptr/indices dtypes to the generated instantiations
/// typed_temporal_cuda_o*.cu).

#include "sample_common.hpp"
#include "typed_temporal_common.hpp"
#include "typed_temporal_cuda.hpp"

#include <torch/library.h>

#include <string>

namespace gnndirect_torch {
namespace {

std::vector<at::Tensor> sample_typed_temporal_blocks_cuda(
  const std::vector<at::Tensor>& indptrs, const std::vector<at::Tensor>& indices, at::IntArrayRef src_types,
  at::IntArrayRef dst_types, at::IntArrayRef num_nodes, const std::vector<at::Tensor>& seeds,
  const std::vector<at::Tensor>& seed_times, at::IntArrayRef fanouts, at::IntArrayRef max_degrees,
  const std::vector<at::Tensor>& times, c10::string_view time_form, c10::string_view strategy, std::int64_t seed,
  bool check)
{
  typed_temporal_args const t =
    check_typed_temporal_args(indptrs, indices, src_types, dst_types, num_nodes, seeds, seed_times, fanouts,
                              max_degrees, times, std::string(time_form), std::string(strategy), true);
  return dispatch_csr(t.typed.indptrs[0], t.typed.indices[0], [&](auto offset_tag, auto index_tag) {
    return sample_typed_temporal_blocks_cuda_typed<decltype(offset_tag), decltype(index_tag)>(t, seed, check);
  });
}

}  // namespace
}  // namespace gnndirect_torch

TORCH_LIBRARY_IMPL(gnndirect, CUDA, m)
{
  m.impl("sample_typed_temporal_blocks", &gnndirect_torch::sample_typed_temporal_blocks_cuda);
}
