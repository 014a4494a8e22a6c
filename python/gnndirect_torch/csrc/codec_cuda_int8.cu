/// @file codec_cuda_int8.cu
/// @brief gather_encoded's CUDA kernels for gnndirect::codecs::int8_affine (see codec_cuda_impl.cuh).

#include "codec_cuda_impl.cuh"

namespace gnndirect_torch {
template void run_encoded_gather<gnndirect::codecs::int8_affine>(const encoded_gather_call&);
}  // namespace gnndirect_torch
