#pragma once
/// @file typed_cuda.hpp
/// @brief Declaration of the CUDA kernel of gnndirect::sample_typed_blocks, instantiated per
/// offset type in the generated units typed_cuda_o32.cu / typed_cuda_o64.cu (python/generated_units.py; so that they compile in parallel) and
/// registered in typed_cuda.cpp.

#include "typed_common.hpp"

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

namespace gnndirect_torch {

/// GPU sample_typed_blocks for one (Offset, Index) pair over checked arguments (see
/// typed_common.hpp for the flat output). sample_typed_blocks_async writes into tensors of
/// torch's caching allocator sized by sample_typed_blocks_bounds (workspace likewise) on torch's
/// current stream; the results are narrowed views of them (prefixes; nothing is copied device to
/// device). Synchronises the current stream once (the counts and, with `check`, bad ids). The
/// seeds are args.seeds (per node type); `seeds` is one of them, naming the device.
/// @throws c10 errors (see translate_errors).
template <class Offset, class Index>
std::vector<at::Tensor> sample_typed_blocks_cuda_typed(const typed_args& args, const at::Tensor& seeds,
                                                       std::int64_t seed, bool replace, bool check);

}  // namespace gnndirect_torch
