/// @file sample_cuda_o64.cu
/// @brief Instantiations of the CUDA sampling kernels for int64 indptr (int32 and int64 indices).

#include "sample_cuda_impl.cuh"

namespace gnndirect_torch {
template std::tuple<at::Tensor, at::Tensor, at::Tensor> sample_neighbors_cuda_typed<std::int64_t, std::int32_t>(
  const at::Tensor&, const at::Tensor&, const at::Tensor&, int, int, std::int64_t, bool,
  const std::optional<at::Tensor>&, bool);
template std::tuple<at::Tensor, at::Tensor, at::Tensor> sample_neighbors_cuda_typed<std::int64_t, std::int64_t>(
  const at::Tensor&, const at::Tensor&, const at::Tensor&, int, int, std::int64_t, bool,
  const std::optional<at::Tensor>&, bool);
template std::vector<at::Tensor> sample_blocks_cuda_typed<std::int64_t, std::int32_t>(
  const at::Tensor&, const at::Tensor&, const at::Tensor&, const std::vector<int>&, std::int64_t, bool,
  const std::optional<at::Tensor>&, bool);
template std::vector<at::Tensor> sample_blocks_cuda_typed<std::int64_t, std::int64_t>(
  const at::Tensor&, const at::Tensor&, const at::Tensor&, const std::vector<int>&, std::int64_t, bool,
  const std::optional<at::Tensor>&, bool);
}  // namespace gnndirect_torch
