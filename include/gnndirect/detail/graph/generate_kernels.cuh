#pragma once
/// @file generate_kernels.cuh
/// @brief Kernel of the GPU graph generator (nvcc): evaluates generate.hpp's per-edge function.

#include <gnndirect/core/config.hpp>
#include <gnndirect/detail/graph/generate.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Writes output edges [0, count): src, dst and (when weights is not null) weights. Each edge is
/// a pure function of (plan, j), so the result does not depend on the launch configuration.
template <class Index>
GNNDIRECT_KERNEL void generate_edges_kernel(generator_plan plan, std::int64_t count, Index* src,
                                            Index* dst, float* weights)
{
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t j = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; j < count; j += stride) {
    drawn_edge const edge = generate_edge(plan, j);
    src[j] = static_cast<Index>(edge.src);
    dst[j] = static_cast<Index>(edge.dst);
    if (weights != nullptr) { weights[j] = generate_weight(plan, j); }
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
