/// @file link_cuda.cu
/// @brief CUDA kernels of the link-prediction ops (schemas and CPU kernels: link_cpu.cpp):
/// sample_negatives through the library's sample_negatives_async (equal to the CPU kernel bit for
/// bit: both run resolve_negative), and the registration of sample_temporal_blocks (its typed
/// kernel: temporal_cuda_impl.cuh).

#include "common.hpp"
#include "link_common.hpp"
#include "link_cuda.hpp"
#include "sample_common.hpp"

#include <gnndirect/algorithms/negative_sampling.cuh>
#include <gnndirect/core/cuda_error.hpp>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace gnndirect_torch {
namespace {

/// GPU sample_negatives: outputs and the unresolved count (0-dim) on the device. Synchronises the
/// current stream once (sample_negatives_check): bad positive endpoints raise IndexError.
std::tuple<at::Tensor, at::Tensor, at::Tensor> sample_negatives_cuda(
  const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& src, const at::Tensor& dst,
  c10::string_view mode_view, double amount, std::int64_t seed, std::int64_t batch, bool strict,
  std::int64_t max_attempts, std::int64_t num_dst)
{
  std::string const mode(mode_view);
  check_negative_args(indptr, indices, src, dst, mode, max_attempts, num_dst, true);
  c10::cuda::CUDAGuard const guard(src.device());
  int const device = src.device().index();
  cudaStream_t const stream = at::cuda::getCurrentCUDAStream(device).stream();
  at::Tensor const s = src.contiguous();
  at::Tensor const d = dst.contiguous();
  auto const options = negative_options_of(seed, batch, strict, max_attempts, num_dst);
  return translate_errors([&] {
    return dispatch_csr(indptr, indices, [&](auto offset_tag, auto index_tag) {
      using O = decltype(offset_tag);
      using I = decltype(index_tag);
      auto const csr = detail::device_csr_view<O, I>(indptr, indices, std::nullopt, device);
      return visit_negative_mode(mode, amount, [&](auto negatives) {
        std::int64_t const num_pos = s.numel();
        std::int64_t const num_neg = gnndirect::negative_count(negatives, num_pos);
        at::Tensor out_src = at::empty({num_neg}, s.options());
        at::Tensor out_dst = at::empty({num_neg}, s.options());
        at::Tensor unresolved = at::empty({}, s.options().dtype(at::kLong));
        std::size_t const ws_bytes = gnndirect::sample_negatives_workspace_bytes();
        at::Tensor ws = at::empty({static_cast<std::int64_t>(ws_bytes)}, s.options().dtype(at::kByte));
        gnndirect::workspace_view const scratch{ws.data_ptr(), ws_bytes};
        gnndirect::sample_negatives_async(stream, csr, num_pos > 0 ? data_as<const I>(s) : nullptr,
                                          num_pos > 0 ? data_as<const I>(d) : nullptr, num_pos, negatives, options,
                                          num_neg > 0 ? data_as<I>(out_src) : nullptr,
                                          num_neg > 0 ? data_as<I>(out_dst) : nullptr,
                                          data_as<std::int64_t>(unresolved), scratch);
        if (strict) {
          record_host_use(indptr, stream, device);
          record_host_use(indices, stream, device);
        }
        // synchronises
        gnndirect::sample_negatives_check(stream, scratch, csr.num_nodes,
                                          gnndirect::negative_dst_count(options, csr.num_nodes));
        return std::make_tuple(out_src, out_dst, unresolved);
      });
    });
  });
}

std::vector<at::Tensor> sample_temporal_blocks_cuda(const at::Tensor& indptr, const at::Tensor& indices,
                                                    const at::Tensor& seeds, const at::Tensor& seed_times,
                                                    at::IntArrayRef fanouts, const at::Tensor& times,
                                                    c10::string_view time_form_view, c10::string_view strategy_view,
                                                    std::int64_t seed, const std::optional<at::Tensor>& excluded,
                                                    bool check)
{
  std::string const time_form(time_form_view);
  std::string const strategy(strategy_view);
  check_csr_tensors(indptr, indices, seeds, std::nullopt, true);
  std::vector<int> const fans = checked_fanouts(fanouts);
  check_temporal_args(indptr, indices, seeds, seed_times, times, time_form, strategy, excluded);
  return dispatch_csr(indptr, indices, [&](auto offset_tag, auto index_tag) {
    return sample_temporal_blocks_cuda_typed<decltype(offset_tag), decltype(index_tag)>(
      indptr, indices, seeds, seed_times, fans, times, time_form, strategy, seed, excluded, check);
  });
}

}  // namespace
}  // namespace gnndirect_torch

TORCH_LIBRARY_IMPL(gnndirect, CUDA, m)
{
  m.impl("sample_negatives", &gnndirect_torch::sample_negatives_cuda);
  m.impl("sample_temporal_blocks", &gnndirect_torch::sample_temporal_blocks_cuda);
}
