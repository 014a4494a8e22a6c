#pragma once
/// @file coo_to_csr_kernels.cuh
/// @brief Kernels of the GPU COO -> CSR conversion (nvcc): positions, indptr from sorted sources,
/// gather of the edge arrays in sorted order.

#include <gnndirect/core/config.hpp>
#include <gnndirect/detail/core/launch.cuh>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// indptr[v] = number of sorted sources < v, for v in [0, num_nodes]: a binary search per node.
/// Neighbouring nodes search the same path, so the reads hit cache; the cost per node is bounded
/// by log2(m) whatever the degree distribution.
template <class Key, class Offset>
GNNDIRECT_KERNEL void indptr_from_sorted_kernel(const Key* sorted_src, std::int64_t num_edges,
                                                std::int64_t num_nodes, Offset* indptr)
{
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t v = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; v <= num_nodes;
       v += stride) {
    std::int64_t low = 0;
    std::int64_t high = num_edges;
    while (low < high) {
      std::int64_t const mid = low + (high - low) / 2;
      if (static_cast<std::int64_t>(sorted_src[mid]) < v) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    indptr[v] = static_cast<Offset>(low);
  }
}

/// For each CSR slot k: indices[k] = dst[p], weights_out[k] = weights_in[p] and edge_ids[k] = p,
/// where p = positions[k] is the input position of the edge stored there. Optional outputs are
/// null when absent.
template <class Offset, class Index>
GNNDIRECT_KERNEL void gather_sorted_edges_kernel(const Offset* positions, std::int64_t num_edges,
                                                 const Index* dst, const float* weights_in,
                                                 Index* indices, float* weights_out,
                                                 Offset* edge_ids)
{
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t k = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; k < num_edges;
       k += stride) {
    Offset const p = positions[k];
    indices[k] = dst[p];
    if (weights_out != nullptr) { weights_out[k] = weights_in[p]; }
    if (edge_ids != nullptr) { edge_ids[k] = p; }
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
