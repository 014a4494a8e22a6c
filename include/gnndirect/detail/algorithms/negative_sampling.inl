#pragma once
// Definitions of algorithms/negative_sampling.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

inline std::size_t sample_negatives_workspace_bytes() noexcept
{
  return detail::align_workspace(detail::negative_records * sizeof(detail::error_record));
}

template <class Offset, class Index, class Mode, class Sampler>
void sample_negatives_async(
  cudaStream_t stream, const csr_view<Offset, Index>& csr, const Index* src, const Index* dst, std::int64_t num_pos,
  const Mode& mode, const negative_options& options, Index* out_src, Index* out_dst, std::int64_t* unresolved,
  workspace_view ws, const Sampler& sampler)
{
  static_assert(std::is_trivially_copyable_v<Sampler>,
                "gnndirect::sample_negatives_async: the negative sampler must be trivially copyable "
                "(algorithms/negative_sampling.hpp)");
  std::int64_t const num_neg = negative_count(mode, num_pos);
  GNNDIRECT_EXPECTS(options.num_dst_nodes >= -1, "sample_negatives_async: num_dst_nodes must be >= 0 or -1, got " +
                                                   std::to_string(options.num_dst_nodes));
  std::int64_t const num_dst = negative_dst_count(options, csr.num_nodes);
  GNNDIRECT_EXPECTS((negative_sampler_has_two_ranges<Sampler, Index>) || num_dst == csr.num_nodes,
                    "sample_negatives_async: the negative sampler has no two-range draw, so num_dst_nodes (" +
                      std::to_string(num_dst) + ") must equal csr.num_nodes (" + std::to_string(csr.num_nodes) + ")");
  GNNDIRECT_EXPECTS(num_neg == 0 || csr.num_nodes > 0,
                    "sample_negatives_async: the graph has no nodes to draw negatives from");
  GNNDIRECT_EXPECTS(num_neg == 0 || num_dst > 0,
                    "sample_negatives_async: the destination range is empty (num_dst_nodes 0) with negatives to draw");
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

inline void sample_negatives_check(cudaStream_t stream, workspace_view ws, std::int64_t num_src, std::int64_t num_dst)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, "sample_negatives_check: null workspace");
  auto* const records = static_cast<detail::error_record*>(ws.data);
  detail::error_flag_ref{records}.throw_if_set(stream, "positive src", num_src);
  detail::error_flag_ref{records + 1}.throw_if_set(stream, "positive dst", num_dst);
  detail::error_record const pair = detail::error_flag_ref{records + 2}.read(stream);
  std::string const range = num_src == num_dst ? "[0, " + std::to_string(num_src) + ")"
                                               : "src [0, " + std::to_string(num_src) + ") x dst [0, " +
                                                   std::to_string(num_dst) + ")";
  GNNDIRECT_EXPECTS(pair.position == detail::no_bad_position,
                    "sample_negatives: the negative sampler drew a pair outside " + range + " for negative " +
                      std::to_string(static_cast<std::int64_t>(pair.position)) + " (not written)");
}

inline void sample_negatives_check(cudaStream_t stream, workspace_view ws, std::int64_t num_nodes)
{
  sample_negatives_check(stream, ws, num_nodes, num_nodes);
}

GNNDIRECT_NAMESPACE_END
