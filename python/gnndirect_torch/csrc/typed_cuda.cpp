/// @file typed_cuda.cpp
/// @brief Registers the CUDA kernels of sample_typed_blocks and sample_typed_blocks_multi (checks the arguments, dispatches on
/// the indptr/indices dtypes to the generated instantiations typed_cuda_o*.cu).

#include "typed_common.hpp"
#include "typed_cuda.hpp"

#include <torch/library.h>

namespace gnndirect_torch {
namespace {

std::vector<at::Tensor> sample_typed_blocks_cuda(const std::vector<at::Tensor>& indptrs,
                                                 const std::vector<at::Tensor>& indices, at::IntArrayRef src_types,
                                                 at::IntArrayRef dst_types, at::IntArrayRef num_nodes,
                                                 std::int64_t seed_type, const at::Tensor& seeds,
                                                 at::IntArrayRef fanouts, at::IntArrayRef max_degrees,
                                                 std::int64_t seed, bool replace, bool check,
                                                 std::int64_t /*threads*/)
{
  typed_args const a = check_typed_args(indptrs, indices, src_types, dst_types, num_nodes, seed_type, seeds,
                                        fanouts, max_degrees, true);
  return dispatch_csr(a.indptrs[0], a.indices[0], [&](auto offset_tag, auto index_tag) {
    return sample_typed_blocks_cuda_typed<decltype(offset_tag), decltype(index_tag)>(a, seeds, seed, replace, check);
  });
}

std::vector<at::Tensor> sample_typed_blocks_multi_cuda(const std::vector<at::Tensor>& indptrs,
                                                       const std::vector<at::Tensor>& indices,
                                                       at::IntArrayRef src_types, at::IntArrayRef dst_types,
                                                       at::IntArrayRef num_nodes, const std::vector<at::Tensor>& seeds,
                                                       at::IntArrayRef fanouts, at::IntArrayRef max_degrees,
                                                       std::int64_t seed, bool replace, bool check,
                                                       std::int64_t /*threads*/)
{
  typed_args const a = check_typed_args_multi(indptrs, indices, src_types, dst_types, num_nodes, seeds, fanouts,
                                              max_degrees, true);
  // a.seeds[0] carries the device (every type's seeds are on it).
  return dispatch_csr(a.indptrs[0], a.indices[0], [&](auto offset_tag, auto index_tag) {
    return sample_typed_blocks_cuda_typed<decltype(offset_tag), decltype(index_tag)>(a, a.seeds[0], seed, replace,
                                                                                     check);
  });
}

}  // namespace
}  // namespace gnndirect_torch

TORCH_LIBRARY_IMPL(gnndirect, CUDA, m)
{
  m.impl("sample_typed_blocks", &gnndirect_torch::sample_typed_blocks_cuda);
  m.impl("sample_typed_blocks_multi", &gnndirect_torch::sample_typed_blocks_multi_cuda);
}
