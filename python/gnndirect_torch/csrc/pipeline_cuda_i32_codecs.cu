/// @file pipeline_cuda_i32_codecs.cu
/// @brief minibatch_pipeline instantiations for int32 node ids over encoded features: one per
/// lossy codec (fp16, bf16, int8, fp8, int4), decoded to float32 inside the feature gather. All
/// codecs share this one translation unit: the sampling kernels they have in common compile once,
/// which builds faster on few cores than a unit per codec.

#include "pipeline_impl.cuh"

namespace gnndirect_torch {

template <>
std::unique_ptr<pipeline_base> make_encoded_pipeline_for<std::int32_t>(
  const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& codes, const at::Tensor& labels,
  const at::Tensor& train_ids, const pipeline_config& config, const encoded_features& encoded)
{
  return detail::make_encoded<std::int32_t>(indptr, indices, codes, labels, train_ids, config, encoded);
}

}  // namespace gnndirect_torch
