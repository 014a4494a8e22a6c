#pragma once
/// @file negative_sampling.cuh
/// @brief sample_negatives_async: PyG's NegativeSampling ('binary', 'triplet', optionally strict)
/// on the GPU, deterministic with the library's Philox generator (needs nvcc). Semantics, the
/// modes, the options and the negative-sampler concept: algorithms/negative_sampling.hpp.

#include <gnndirect/algorithms/negative_sampling.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/negative_sampling.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/launch.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/detail/core/workspace.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// Workspace bytes of sample_negatives_async (its error records; independent of the sizes).
/// @return the bytes
inline std::size_t sample_negatives_workspace_bytes() noexcept
{
  return detail::align_workspace(detail::negative_records * sizeof(detail::error_record));
}

/// Enqueues negative sampling for `num_pos` positive edges on `stream`; returns at once.
///
/// Writes out_src and out_dst [0, negative_count(mode, num_pos)) and *unresolved (the number of
/// strict draws kept after max_attempts, 0 when not strict); nothing else. Positive endpoints
/// outside [0, csr.num_nodes), and pairs a user sampler draws outside the graph (not written), are
/// recorded in `ws`: call sample_negatives_check afterwards. Never synchronises, never
/// allocates: capturable.
/// @tparam Offset, Index the graph's offset and node id types
/// @tparam Mode binary_negatives or triplet_negatives
/// @tparam Sampler a negative sampler (algorithms/negative_sampling.hpp)
/// @param stream stream to enqueue on
/// @param csr device-visible graph (its neighbour lists sorted ascending when strict; only
/// indptr and indices are read, and only when strict)
/// @param src, dst device-visible positive endpoints, num_pos each (triplet keeps src; dst is
/// only checked)  @param num_pos their number
/// @param mode the mode and amount  @param options seed, batch, strict, max_attempts
/// @param out_src, out_dst device-visible, negative_count(mode, num_pos) entries each
/// @param unresolved device-visible scalar
/// @param ws workspace of sample_negatives_workspace_bytes() bytes
/// @param sampler the negative sampler (default: uniform over all nodes)
/// @throws invalid_argument (amount <= 0 or NaN, num_pos < 0, an empty graph with negatives to
/// draw, max_attempts < 1 when strict, null or unreachable arrays, workspace too small) before
/// any launch; cuda_error.
template <class Offset, class Index, class Mode, class Sampler = uniform_negative_sampler>
void sample_negatives_async(cudaStream_t stream, const csr_view<Offset, Index>& csr, const Index* src,
                            const Index* dst, std::int64_t num_pos, const Mode& mode,
                            const negative_options& options, Index* out_src, Index* out_dst,
                            std::int64_t* unresolved, workspace_view ws, const Sampler& sampler = {})
{
  static_assert(std::is_trivially_copyable_v<Sampler>,
                "gnndirect::sample_negatives_async: the negative sampler must be trivially copyable "
                "(algorithms/negative_sampling.hpp)");
  std::int64_t const num_neg = negative_count(mode, num_pos);
  GNNDIRECT_EXPECTS(num_neg == 0 || csr.num_nodes > 0,
                    "sample_negatives_async: the graph has no nodes to draw negatives from");
  GNNDIRECT_EXPECTS(!options.strict || options.max_attempts >= 1,
                    "sample_negatives_async: max_attempts must be >= 1 when strict, got " +
                      std::to_string(options.max_attempts));
  GNNDIRECT_EXPECTS(num_pos == 0 || (src != nullptr && dst != nullptr), "sample_negatives_async: null positives");
  GNNDIRECT_EXPECTS(num_neg == 0 || (out_src != nullptr && out_dst != nullptr),
                    "sample_negatives_async: null out_src/out_dst");
  GNNDIRECT_EXPECTS(unresolved != nullptr, "sample_negatives_async: null unresolved");
  GNNDIRECT_EXPECTS(ws.data != nullptr && ws.bytes >= sample_negatives_workspace_bytes(),
                    "sample_negatives_async: workspace too small: needs " +
                      std::to_string(sample_negatives_workspace_bytes()) + " bytes, got " + std::to_string(ws.bytes));
  auto const bytes = [](std::int64_t n) { return static_cast<std::size_t>(n) * sizeof(Index); };
  detail::check_device_accessible(src, bytes(num_pos), alignof(Index), "positive src");
  detail::check_device_accessible(dst, bytes(num_pos), alignof(Index), "positive dst");
  detail::check_device_accessible(out_src, bytes(num_neg), alignof(Index), "out_src");
  detail::check_device_accessible(out_dst, bytes(num_neg), alignof(Index), "out_dst");
  detail::check_device_accessible(unresolved, 8, 8, "unresolved");
  detail::check_device_accessible(ws.data, ws.bytes, workspace_alignment, "workspace");
  if (options.strict && num_neg > 0) {
    detail::check_device_accessible(csr.indptr, 0, alignof(Offset), "indptr");
    detail::check_device_accessible(csr.indices, 0, alignof(Index), "csr indices");
  }
  auto* const records = static_cast<detail::error_record*>(ws.data);
  GNNDIRECT_CUDA_TRY(cudaMemsetAsync(records, 0xFF, detail::negative_records * sizeof(detail::error_record), stream));
  GNNDIRECT_CUDA_TRY(cudaMemsetAsync(unresolved, 0, sizeof(std::int64_t), stream));
  std::int64_t const n = num_pos > num_neg ? num_pos : num_neg;
  if (n == 0) { return; }
  detail::error_flag_ref const bad_src{records};
  detail::error_flag_ref const bad_dst{records + 1};
  detail::error_flag_ref const bad_pair{records + 2};
  detail::negative_sampling_kernel<Mode, Sampler, Offset, Index>
    <<<detail::grid_stride_blocks(n), detail::elementwise_block_threads, 0, stream>>>(
      csr, src, dst, num_pos, num_neg, mode, sampler, options, out_src, out_dst,
      reinterpret_cast<unsigned long long*>(unresolved), bad_src, bad_dst, bad_pair);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  if (num_pos > 0) {
    bad_src.capture_value_async(stream, src);
    bad_dst.capture_value_async(stream, dst);
  }
}

/// Synchronises `stream` and raises what the last sample_negatives_async on `ws` recorded.
/// @param stream the stream it ran on  @param ws its workspace  @param num_nodes the graph's size
/// @throws index_out_of_range naming "positive src"/"positive dst"[position] = value;
/// invalid_argument when the negative sampler drew a pair outside the graph (naming the
/// negative) or for a null workspace; cuda_error.
inline void sample_negatives_check(cudaStream_t stream, workspace_view ws, std::int64_t num_nodes)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, "sample_negatives_check: null workspace");
  auto* const records = static_cast<detail::error_record*>(ws.data);
  detail::error_flag_ref{records}.throw_if_set(stream, "positive src", num_nodes);
  detail::error_flag_ref{records + 1}.throw_if_set(stream, "positive dst", num_nodes);
  detail::error_record const pair = detail::error_flag_ref{records + 2}.read(stream);
  GNNDIRECT_EXPECTS(pair.position == detail::no_bad_position,
                    "sample_negatives: the negative sampler drew a pair outside [0, " + std::to_string(num_nodes) +
                      ") for negative " + std::to_string(static_cast<std::int64_t>(pair.position)) +
                      " (not written)");
}

GNNDIRECT_NAMESPACE_END
