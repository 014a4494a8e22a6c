/// @file temporal_cuda_o32.cu
/// @brief Instantiations of the CUDA temporal-blocks kernel for int32 indptr (int32 and int64 indices).

#include "temporal_cuda_impl.cuh"

namespace gnndirect_torch {
template std::vector<at::Tensor> sample_temporal_blocks_cuda_typed<std::int32_t, std::int32_t>(
  const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const std::vector<int>&,
  const at::Tensor&, const std::string&, const std::string&, std::int64_t, const std::optional<at::Tensor>&, bool);
template std::vector<at::Tensor> sample_temporal_blocks_cuda_typed<std::int32_t, std::int64_t>(
  const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const std::vector<int>&,
  const at::Tensor&, const std::string&, const std::string&, std::int64_t, const std::optional<at::Tensor>&, bool);
}  // namespace gnndirect_torch
