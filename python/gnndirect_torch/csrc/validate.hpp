#pragma once
/// @file validate.hpp
/// @brief Full structural check of a CSR graph given as tensors (host-compilable declaration;
/// defined in validate_cuda.cu, where the GPU validator compiles).

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace gnndirect_torch {

/// Checks that (indptr, indices, weights) is a valid CSR graph with gnndirect::validate: indptr
/// starts at 0, never decreases and ends at indices.size(0); every neighbour id lies in
/// [0, num_nodes); weights (when given) are finite and >= 0.
///
/// @param device a CUDA device index: the GPU validator runs on that device's current stream
///        (every array must be device-visible: CUDA, registered, pinned or managed_host; fast,
///        arrays read once); -1: the host validator (CPU tensors read on the host, all cores).
/// @throws c10::ValueError with the library's message (first failing array, position, value),
/// c10::TypeError (dtypes), c10 errors for CUDA failures. Synchronises the stream on the GPU.
void validate_csr(const at::Tensor& indptr, const at::Tensor& indices,
                  const std::optional<at::Tensor>& weights, std::int64_t device);

/// Self-check of torch_caching_resource (torch_resource.cuh) through the library's own owner:
/// allocates a gnndirect::buffer of `bytes` bytes via a gnndirect::resource_ref to the adapter on
/// the current stream of `device`, and returns {torch.cuda.memory_allocated() before, while the
/// buffer lives, after it is freed}. For the tests.
std::vector<std::int64_t> resource_self_check(std::int64_t device, std::int64_t bytes);

}  // namespace gnndirect_torch
