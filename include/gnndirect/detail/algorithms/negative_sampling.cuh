#pragma once
/// @file negative_sampling.cuh
/// @brief Internals of algorithms/negative_sampling.cuh: the workspace (three error records:
/// positives' sources, positives' destinations, drawn pairs) and the kernel (not part of the API).

#include <gnndirect/algorithms/negative_sampling.hpp>
#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/detail/core/error_flag.cuh>

#include <cstddef>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Error records of a negative-sampling workspace, in this order at its start.
inline constexpr std::size_t negative_records = 3;

GNNDIRECT_USER_KERNELS_BEGIN
/// Thread k < num_pos checks positive k's endpoints (src in [0, csr.num_nodes), dst in
/// [0, num_dst)); thread k < num_neg resolves negative k (resolve_negative) and writes it, or
/// reports a pair outside those ranges (not written).
/// Strict draws still unresolved add to *unresolved.
template <class Mode, class Sampler, class Offset, class Index>
GNNDIRECT_KERNEL void negative_sampling_kernel(csr_view<Offset, Index> csr, const Index* src, const Index* dst,
                                               std::int64_t num_pos, std::int64_t num_neg, Mode mode,
                                               Sampler sampler, negative_options options, Index* out_src,
                                               Index* out_dst, unsigned long long* unresolved,
                                               error_flag_ref bad_src, error_flag_ref bad_dst,
                                               error_flag_ref bad_pair)
{
  std::int64_t const n = num_pos > num_neg ? num_pos : num_neg;
  std::int64_t const num_dst = negative_dst_count(options, csr.num_nodes);
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  unsigned long long open = 0;
  for (std::int64_t k = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; k < n; k += stride) {
    if (k < num_pos) {
      auto const s = static_cast<std::int64_t>(src[k]);
      auto const d = static_cast<std::int64_t>(dst[k]);
      if (s < 0 || s >= csr.num_nodes) { bad_src.report(k); }
      if (d < 0 || d >= num_dst) { bad_dst.report(k); }
    }
    if (k < num_neg) {
      resolved_negative<Index> const r = resolve_negative(csr, src, mode, sampler, options, k);
      auto const s = static_cast<std::int64_t>(r.pair.src);
      auto const d = static_cast<std::int64_t>(r.pair.dst);
      if (s < 0 || s >= csr.num_nodes || d < 0 || d >= num_dst) {
        bad_pair.report(k);
      } else {
        out_src[k] = r.pair.src;
        out_dst[k] = r.pair.dst;
        open += r.unresolved ? 1 : 0;
      }
    }
  }
  if (open > 0) { atomicAdd(unresolved, open); }
}
GNNDIRECT_USER_KERNELS_END

}  // namespace detail
GNNDIRECT_NAMESPACE_END
