/// @file pipeline_cuda_i64.cu
/// @brief minibatch_pipeline instantiations for int64 node ids (fp32 and 2-byte features).

#include "pipeline_impl.cuh"

namespace gnndirect_torch {

std::unique_ptr<pipeline_base> make_pipeline_i64(const at::Tensor& indptr, const at::Tensor& indices,
                                                 const at::Tensor& features, const at::Tensor& labels,
                                                 const at::Tensor& train_ids, const pipeline_config& config)
{
  return std::make_unique<detail::translating_pipeline>(
    detail::make_typed<std::int64_t>(indptr, indices, features, labels, train_ids, config));
}

}  // namespace gnndirect_torch
