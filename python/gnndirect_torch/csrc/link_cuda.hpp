#pragma once
/// @file link_cuda.hpp
/// @brief Declarations of the CUDA temporal-blocks kernel of the extension, instantiated per
/// offset type in the generated units temporal_cuda_o32.cu / temporal_cuda_o64.cu (python/generated_units.py; so that they compile in parallel)
/// and registered in link_cuda.cu with the negative-sampling kernel.

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gnndirect_torch {

/// GPU sample_temporal_blocks for one (Offset, Index) pair, arguments already checked by the
/// caller: the library's sample_temporal_blocks_async into tensors of torch's caching allocator
/// sized by sample_blocks_bounds, returned as narrowed views (4 per layer, as
/// sample_blocks_cuda_typed). Runs on torch's current stream and synchronises it once (the counts
/// and, with `check`, bad ids). @throws c10 errors.
template <class Offset, class Index>
std::vector<at::Tensor> sample_temporal_blocks_cuda_typed(const at::Tensor& indptr, const at::Tensor& indices,
                                                          const at::Tensor& seeds, const at::Tensor& seed_times,
                                                          const std::vector<int>& fanouts, const at::Tensor& times,
                                                          const std::string& time_form, const std::string& strategy,
                                                          std::int64_t seed, const std::optional<at::Tensor>& excluded,
                                                          bool check);

}  // namespace gnndirect_torch
