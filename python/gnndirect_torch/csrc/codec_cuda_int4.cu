/// @file codec_cuda_int4.cu
/// @brief gather_encoded's CUDA kernels for gnndirect::codecs::int4_affine (see codec_cuda_impl.cuh).

#include "codec_cuda_impl.cuh"

namespace gnndirect_torch {
template void run_encoded_gather<gnndirect::codecs::int4_affine>(const encoded_gather_call&);
}  // namespace gnndirect_torch
