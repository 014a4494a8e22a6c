/// @file pipeline_cuda_i64_f2.cu
/// @brief minibatch_pipeline instantiation for int64 node ids and 2-byte (fp16, bf16) features.

#include "pipeline_impl.cuh"

namespace gnndirect_torch {

template <>
std::unique_ptr<pipeline_base> make_pipeline_for<std::int64_t, 2>(
  const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& features,
  const at::Tensor& labels, const at::Tensor& train_ids, const pipeline_config& config)
{
  return std::make_unique<detail::translating_pipeline>(
    detail::make_typed<std::int64_t, std::uint16_t>(indptr, indices, features, labels, train_ids, config));
}

}  // namespace gnndirect_torch
