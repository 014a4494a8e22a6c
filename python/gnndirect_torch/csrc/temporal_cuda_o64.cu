/// @file temporal_cuda_o64.cu
/// @brief Instantiations of the CUDA temporal-blocks kernel for int64 indptr (int32 and int64 indices).

#include "temporal_cuda_impl.cuh"

namespace gnndirect_torch {
template std::vector<at::Tensor> sample_temporal_blocks_cuda_typed<std::int64_t, std::int32_t>(
  const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const std::vector<int>&,
  const at::Tensor&, const std::string&, const std::string&, std::int64_t, const std::optional<at::Tensor>&, bool);
template std::vector<at::Tensor> sample_temporal_blocks_cuda_typed<std::int64_t, std::int64_t>(
  const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const std::vector<int>&,
  const at::Tensor&, const std::string&, const std::string&, std::int64_t, const std::optional<at::Tensor>&, bool);
}  // namespace gnndirect_torch
