#pragma once
/// @file csr_rules.hpp
/// @brief The per-position rules of a valid CSR graph, shared by the host and GPU validators
/// (host-compilable; the functors are callable from device code).
///
/// Each rule answers "is position i of one array bad?" reading only that array, so the host
/// (parallel slices) and the GPU (grid-stride threads) find the same first bad position.

#include <gnndirect/core/config.hpp>

#include <cfloat>
#include <cstdint>

namespace gnndirect::detail {

/// indptr[0..num_nodes]: position 0 must hold 0, each entry must be >= its predecessor, and the
/// last must equal num_edges. Together these bound every entry to [0, num_edges].
template <class Offset>
struct indptr_rule {
  const Offset* indptr;
  std::int64_t num_nodes;
  std::int64_t num_edges;

  GNNDIRECT_HOST_DEVICE bool operator()(std::int64_t i) const noexcept
  {
    std::int64_t const value = indptr[i];
    bool const bad = i == 0 ? value != 0 : value < static_cast<std::int64_t>(indptr[i - 1]);
    return bad || (i == num_nodes && value != num_edges);
  }
};

/// ids[i] must lie in [0, bound): node ids (bound = num_nodes) or edge ids (bound = INT64_MAX).
template <class Id>
struct id_range_rule {
  const Id* ids;
  std::int64_t bound;

  GNNDIRECT_HOST_DEVICE bool operator()(std::int64_t i) const noexcept
  {
    std::int64_t const value = ids[i];
    return value < 0 || value >= bound;
  }
};

/// weights[i] must be finite and >= 0; written with comparisons only (NaN fails both) so host
/// and device agree without <cmath> in device code.
struct weight_rule {
  const float* weights;

  GNNDIRECT_HOST_DEVICE bool operator()(std::int64_t i) const noexcept
  {
    float const w = weights[i];
    return !(w >= 0.0f && w <= FLT_MAX);
  }
};

}  // namespace gnndirect::detail
