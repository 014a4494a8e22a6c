#pragma once
/// @file sample_cuda.hpp
/// @brief Declarations of the CUDA sampling kernels, instantiated per offset type in
/// sample_cuda_o32.cu / sample_cuda_o64.cu (so that they compile in parallel) and registered in
/// sample_cuda.cu.

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

namespace gnndirect_torch {

/// GPU sample_neighbors for one (Offset, Index) pair; arguments already checked by the caller.
/// Runs on torch's current stream; outputs from torch's caching allocator; synchronises that
/// stream (the sampled edge count sizes the outputs). @throws c10 errors (see translate_errors).
template <class Offset, class Index>
std::tuple<at::Tensor, at::Tensor, at::Tensor> sample_neighbors_cuda_typed(
  const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& seeds, int fanout,
  int layer, std::int64_t seed, bool replace, const std::optional<at::Tensor>& weights, bool check);

/// GPU sample_blocks for one (Offset, Index) pair; returns 4 tensors per layer (src_nodes,
/// offsets, local indices, edge_ids). The library's sample_blocks_async writes into tensors of
/// torch's caching allocator sized by sample_blocks_bounds (workspace likewise); the results are
/// narrowed views of them (prefixes: contiguous, storage offset 0; their storages keep the
/// bound-sized allocations until they die), so nothing is copied device to device.
/// Synchronises the current stream once (the counts and, with `check`, bad ids).
/// @throws c10 errors.
template <class Offset, class Index>
std::vector<at::Tensor> sample_blocks_cuda_typed(const at::Tensor& indptr, const at::Tensor& indices,
                                                 const at::Tensor& seeds, const std::vector<int>& fanouts,
                                                 std::int64_t seed, bool replace,
                                                 const std::optional<at::Tensor>& weights, bool check);

}  // namespace gnndirect_torch
