/// @file sample_cuda.cpp
/// @brief Registers the CUDA kernels of sample_neighbors and sample_blocks (checks arguments,
/// dispatches on the indptr/indices dtypes to the instantiations in sample_cuda_o*.cu).

#include "sample_common.hpp"
#include "sample_cuda.hpp"

#include <torch/library.h>

namespace gnndirect_torch {
namespace {

std::tuple<at::Tensor, at::Tensor, at::Tensor> sample_neighbors_cuda(
  const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& seeds, std::int64_t fanout,
  std::int64_t layer, std::int64_t seed, bool replace, const std::optional<at::Tensor>& weights,
  bool check, std::int64_t /*threads*/)
{
  check_csr_tensors(indptr, indices, seeds, weights, true);
  check_fanout(fanout);
  TORCH_CHECK_VALUE(layer >= 0 && layer <= INT_MAX, "gnndirect: layer must be >= 0, got ", layer);
  return dispatch_csr(indptr, indices, [&](auto offset_tag, auto index_tag) {
    return sample_neighbors_cuda_typed<decltype(offset_tag), decltype(index_tag)>(
      indptr, indices, seeds, static_cast<int>(fanout), static_cast<int>(layer), seed, replace,
      weights, check);
  });
}

std::vector<at::Tensor> sample_blocks_cuda(const at::Tensor& indptr, const at::Tensor& indices,
                                           const at::Tensor& seeds, at::IntArrayRef fanouts,
                                           std::int64_t seed, bool replace,
                                           const std::optional<at::Tensor>& weights, bool check,
                                           std::int64_t /*threads*/)
{
  check_csr_tensors(indptr, indices, seeds, weights, true);
  std::vector<int> const fans = checked_fanouts(fanouts);
  return dispatch_csr(indptr, indices, [&](auto offset_tag, auto index_tag) {
    return sample_blocks_cuda_typed<decltype(offset_tag), decltype(index_tag)>(
      indptr, indices, seeds, fans, seed, replace, weights, check);
  });
}

}  // namespace
}  // namespace gnndirect_torch

TORCH_LIBRARY_IMPL(gnndirect, CUDA, m)
{
  m.impl("sample_neighbors", &gnndirect_torch::sample_neighbors_cuda);
  m.impl("sample_blocks", &gnndirect_torch::sample_blocks_cuda);
}
