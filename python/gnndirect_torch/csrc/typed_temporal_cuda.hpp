#pragma once
/// @file typed_temporal_cuda.hpp
/// @brief Declaration of the CUDA kernel of gnndirect::sample_typed_temporal_blocks, instantiated
/// per offset type in the generated units typed_temporal_cuda_o32.cu / typed_temporal_cuda_o64.cu
/// (python/generated_units.py) and registered in typed_temporal_cuda.cpp.

#include "typed_temporal_common.hpp"

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

namespace gnndirect_torch {

/// GPU sample_typed_temporal_blocks for one (Offset, Index) pair over checked arguments (the
/// flat output of typed_common.hpp): sample_typed_temporal_blocks_async into tensors of torch's
/// caching allocator on torch's current stream, returned as narrowed views. Every relation draws
/// with a temporal sampler keyed by `seed` over its own times, which may sit in any placement the
/// GPU reads. Synchronises the current stream once (the counts and, with `check`, bad ids).
/// @throws c10 errors (see translate_errors).
template <class Offset, class Index>
std::vector<at::Tensor> sample_typed_temporal_blocks_cuda_typed(const typed_temporal_args& t, std::int64_t seed,
                                                                bool check);

}  // namespace gnndirect_torch
