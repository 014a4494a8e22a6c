/// @file codec_cuda_fp16.cu
/// @brief gather_encoded's CUDA kernels for gnndirect::codecs::fp16 (see codec_cuda_impl.cuh).

#include "codec_cuda_impl.cuh"

namespace gnndirect_torch {
template void run_encoded_gather<gnndirect::codecs::fp16>(const encoded_gather_call&);
}  // namespace gnndirect_torch
