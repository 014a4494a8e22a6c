/// @file codec_cuda.cu
/// @brief CUDA kernel of torch.ops.gnndirect.gather_encoded: gnndirect's gather from encoded rows
/// (any placement; per-row metadata in HBM), decoding inside the copy (device/decode_row.cuh), with
/// an optional device tier of encoded rows (cache [cache rows, stride] uint8, slot_of int32).
///
/// Runs on torch's current CUDA stream of the index's device; output and workspace come from
/// torch's caching allocator. check=True synchronises that stream (an out-of-range index raises
/// IndexError naming its position and value; the slot map is checked against the cache);
/// check=False only enqueues. The kernels of each codec live in codec_cuda_<codec>.cu.

#include "codec.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

namespace gnndirect_torch {
namespace {

/// Checks the optional tier of encoded rows: uint8 cache rows of the codes' stride on the index's
/// device, int32 slot_of per table row, and (check) every slot within the cache.
void check_encoded_tier(const at::Tensor& codes, const at::Tensor& index, const at::Tensor& cache,
                        const at::Tensor& slot_of, bool check)
{
  TORCH_CHECK_VALUE(cache.is_cuda() && slot_of.is_cuda() && cache.device() == index.device() &&
                      slot_of.device() == index.device(),
                    "gnndirect: cache and slot_of must be CUDA tensors on the index's device");
  TORCH_CHECK_TYPE(cache.scalar_type() == at::kByte && slot_of.scalar_type() == at::kInt,
                   "gnndirect: an encoded tier needs uint8 cache rows and int32 slot_of, got ",
                   cache.scalar_type(), " and ", slot_of.scalar_type());
  TORCH_CHECK_VALUE(cache.dim() == 2 && cache.size(1) == codes.size(1) && cache.is_contiguous(),
                    "gnndirect: cache must be a contiguous [rows, ", codes.size(1), "] uint8 tensor (the "
                    "encoded rows' stride), got ", cache.sizes());
  TORCH_CHECK_VALUE(codes.stride(0) == codes.size(1),
                    "gnndirect: an encoded tier needs codes whose rows are packed (stride == row bytes)");
  TORCH_CHECK_VALUE(slot_of.dim() == 1 && slot_of.size(0) == codes.size(0) && slot_of.is_contiguous(),
                    "gnndirect: slot_of must be contiguous with one entry per table row (", codes.size(0),
                    "), got shape ", slot_of.sizes());
  if (check && slot_of.numel() > 0) {
    auto const [low, high] = at::aminmax(slot_of);
    at::Tensor const bounds = at::stack({low, high}).to(at::kCPU, at::kLong);
    std::int64_t const min_slot = bounds[0].item<std::int64_t>();
    std::int64_t const max_slot = bounds[1].item<std::int64_t>();
    TORCH_CHECK_VALUE(min_slot >= -1 && max_slot < cache.size(0), "gnndirect: slot_of holds slots in [",
                      min_slot, ", ", max_slot, "] but the cache has ", cache.size(0), " rows");
  }
}

at::Tensor gather_encoded_cuda(const at::Tensor& codes, const std::optional<at::Tensor>& meta, std::int64_t cols,
                               c10::string_view codec_name, const at::Tensor& index,
                               const std::optional<at::Tensor>& cache, const std::optional<at::Tensor>& slot_of,
                               std::optional<at::ScalarType> dtype, bool check)
{
  std::string const codec(codec_name.data(), codec_name.size());
  check_encoded_args(codes, meta, cols, codec, true);
  check_index_tensor(index, "index");
  TORCH_CHECK_VALUE(index.is_cuda(), "gnndirect: index must be a CUDA tensor (the codes may live in host memory)");
  TORCH_CHECK_VALUE(cache.has_value() == slot_of.has_value(), "gnndirect: pass both cache and slot_of, or neither");
  c10::cuda::CUDAGuard const guard(index.device());
  at::ScalarType const out_type = dtype.value_or(at::kFloat);
  at::Tensor const idx = index.contiguous();
  at::Tensor out = at::empty({idx.size(0), cols}, idx.options().dtype(out_type));
  dispatch_decoded_dtype(out_type, [](auto) {});  // TypeError for a dtype no codec produces
  if (idx.numel() == 0 || cols == 0) { return out; }
  if (meta.has_value() && meta->numel() > 0) {
    TORCH_CHECK_VALUE(meta->device() == index.device(), "gnndirect: meta must be on the index's device ",
                      index.device(), ", got ", meta->device());
  }
  if (cache.has_value()) { check_encoded_tier(codes, idx, *cache, *slot_of, check); }
  int const device = index.device().index();
  placed_pointer const src = placement_of(codes, "codes", device);
  encoded_gather_call const call{codes, src, meta, cols, codec, idx,
                                 cache.has_value() ? &*cache : nullptr,
                                 slot_of.has_value() ? &*slot_of : nullptr, out, device, check};
  translate_errors([&] { dispatch_codec(codec, [&](auto c) { run_encoded_gather<decltype(c)>(call); }); });
  return out;
}

}  // namespace
}  // namespace gnndirect_torch

TORCH_LIBRARY_IMPL(gnndirect, CUDA, m) { m.impl("gather_encoded", &gnndirect_torch::gather_encoded_cuda); }
