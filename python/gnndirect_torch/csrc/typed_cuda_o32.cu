/// @file typed_cuda_o32.cu
/// @brief Instantiations of the CUDA kernel of sample_typed_blocks for int32 indptr (int32 and
/// int64 indices).

#include "typed_cuda_impl.cuh"

namespace gnndirect_torch {
template std::vector<at::Tensor> sample_typed_blocks_cuda_typed<std::int32_t, std::int32_t>(
  const typed_args&, const at::Tensor&, std::int64_t, bool, bool);
template std::vector<at::Tensor> sample_typed_blocks_cuda_typed<std::int32_t, std::int64_t>(
  const typed_args&, const at::Tensor&, std::int64_t, bool, bool);
}  // namespace gnndirect_torch
