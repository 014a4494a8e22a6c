/// @file gather_cuda.cu
/// @brief CUDA kernels of torch.ops.gnndirect.gather (plain and with a device cache tier).
///
/// Runs on torch's current CUDA stream of the index's device; the output and the workspace come
/// from torch's caching allocator. With check=True the call synchronises that stream (to raise an
/// out-of-range index as IndexError, and, with a cache tier, to check slot_of against the cache's
/// rows); with check=False it only enqueues. A table in torch's pinned cache (pin_memory()) gets
/// an event recorded, so that freeing it right after the call cannot recycle the block under the
/// kernel.

#include "common.hpp"

#include <gnndirect/cache/tiered_table.cuh>
#include <gnndirect/cache/tiered_view.hpp>
#include <gnndirect/algorithms/gather.cuh>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

namespace gnndirect_torch {
namespace {

/// Checks the optional tier (cache rows in device memory, slot_of int32 per table row).
void check_tier(const at::Tensor& table, const at::Tensor& index, const at::Tensor& cache,
                const at::Tensor& slot_of)
{
  check_table_tensor(cache, "cache");
  TORCH_CHECK_VALUE(cache.is_cuda() && slot_of.is_cuda() && cache.device() == index.device() &&
                      slot_of.device() == index.device(),
                    "gnndirect: cache and slot_of must be CUDA tensors on the index's device");
  TORCH_CHECK_TYPE(cache.scalar_type() == table.scalar_type(), "gnndirect: cache dtype ",
                   cache.scalar_type(), " differs from the table's ", table.scalar_type());
  TORCH_CHECK_VALUE(cache.size(1) == table.size(1) && cache.is_contiguous(),
                    "gnndirect: cache must be a contiguous tensor with the table's ", table.size(1),
                    " columns");
  TORCH_CHECK_TYPE(slot_of.scalar_type() == at::kInt, "gnndirect: slot_of must be int32, got ",
                   slot_of.scalar_type());
  TORCH_CHECK_VALUE(slot_of.dim() == 1 && slot_of.size(0) == table.size(0) && slot_of.is_contiguous(),
                    "gnndirect: slot_of must be contiguous with one entry per table row (",
                    table.size(0), "), got shape ", slot_of.sizes());
}

/// Checks every slot_of entry against the cache: -1 (not cached) or a row of `cache`, so that a
/// slot map of another table (or a stale one after the cache shrank) cannot make the kernel read
/// outside the cache. One reduction over slot_of on the current stream (O(table rows) int32
/// reads) and one synchronisation, with check=True only. @throws c10::ValueError.
void check_slots(const at::Tensor& slot_of, std::int64_t cache_rows)
{
  if (slot_of.numel() == 0) { return; }
  auto const [low, high] = at::aminmax(slot_of);
  at::Tensor const bounds = at::stack({low, high}).to(at::kCPU, at::kLong);  // one synchronisation
  std::int64_t const min_slot = bounds[0].item<std::int64_t>();
  std::int64_t const max_slot = bounds[1].item<std::int64_t>();
  TORCH_CHECK_VALUE(min_slot >= -1 && max_slot < cache_rows, "gnndirect: slot_of holds slots in [",
                    min_slot, ", ", max_slot, "] but the cache has ", cache_rows,
                    " rows (valid: -1 for not cached, or 0 .. cache rows - 1)");
}

at::Tensor gather_cuda(const at::Tensor& table, const at::Tensor& index,
                       const std::optional<at::Tensor>& cache, const std::optional<at::Tensor>& slot_of,
                       bool check)
{
  check_table_tensor(table, "table");
  check_index_tensor(index, "index");
  TORCH_CHECK_VALUE(index.is_cuda(), "gnndirect: index must be a CUDA tensor (the table may live "
                                     "in host memory)");
  TORCH_CHECK_VALUE(cache.has_value() == slot_of.has_value(),
                    "gnndirect: pass both cache and slot_of, or neither");
  c10::cuda::CUDAGuard const guard(index.device());
  at::Tensor const idx = index.contiguous();
  at::Tensor out = at::empty({idx.size(0), table.size(1)}, table.options().device(index.device()));
  if (idx.numel() == 0 || table.size(1) == 0) { return out; }
  if (cache.has_value()) {
    check_tier(table, idx, *cache, *slot_of);
    if (check) { check_slots(*slot_of, cache->size(0)); }
  }
  int const device = index.device().index();
  placed_pointer const src = placement_of(table, "table", device);
  cudaStream_t const stream = at::cuda::getCurrentCUDAStream(device).stream();
  translate_errors([&] {
    dispatch_element_size(table.element_size(), [&](auto element) {
      using T = decltype(element);
      gnndirect::table_view<const T> from(static_cast<const T*>(src.device), table.size(0),
                                          table.size(1), table.stride(0), src.kind);
      gnndirect::table_view<T> to(data_as<T>(out), out.size(0), out.size(1), out.size(1),
                                  gnndirect::memory_kind::device);
      dispatch_index_type(idx.scalar_type(), "index", [&](auto index_tag) {
        using I = decltype(index_tag);
        gnndirect::gather_policy policy;
        policy.check_indices = check;
        std::size_t const ws_bytes = gnndirect::gather_workspace_bytes<I>(
          idx.size(0), table.size(0), src.kind, to.row_bytes(), policy);
        at::Tensor ws = at::empty({static_cast<std::int64_t>(ws_bytes)},
                                  idx.options().dtype(at::kByte));
        gnndirect::workspace_view const scratch{ws.data_ptr(), ws_bytes};
        if (cache.has_value()) {
          gnndirect::tiered_view<T> tier{from, data_as<const T>(*cache),
                                         data_as<const std::int32_t>(*slot_of), cache->size(0)};
          gnndirect::gather_async(stream, tier, data_as<const I>(idx), idx.size(0), to, scratch,
                                  policy);
        } else {
          gnndirect::gather_async(stream, from, data_as<const I>(idx), idx.size(0), to, scratch,
                                  policy);
        }
        record_host_use(table, stream, device);  // also with check=False: see common.hpp
        if (check) { gnndirect::gather_check(stream, scratch, table.size(0)); }
      });
    });
  });
  return out;
}

}  // namespace
}  // namespace gnndirect_torch

TORCH_LIBRARY_IMPL(gnndirect, CUDA, m) { m.impl("gather", &gnndirect_torch::gather_cuda); }
