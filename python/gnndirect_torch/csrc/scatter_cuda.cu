/// @file scatter_cuda.cu
/// @brief CUDA kernel of torch.ops.gnndirect.scatter_rows: table[index[i]] = src[i], into a table
/// in any placement (e.g. sparse embedding updates written back into host memory).
///
/// Runs on torch's current stream of src's device; workspace from torch's caching allocator.
/// With check=True it synchronises that stream once (IndexError for a bad index); otherwise it
/// only enqueues. Duplicate indices: the last occurrence wins, whole row (the rule of the host
/// reference and of Table.scatter's cache update; the library's scatter_async follows it).

#include "common.hpp"

#include <gnndirect/algorithms/gather.cuh>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

namespace gnndirect_torch {
namespace {

void scatter_rows_cuda(const at::Tensor& table, const at::Tensor& index, const at::Tensor& src,
                       bool check)
{
  check_table_tensor(table, "table");
  check_index_tensor(index, "index");
  check_table_tensor(src, "src");
  TORCH_CHECK_VALUE(index.is_cuda() && src.is_cuda() && index.device() == src.device(),
                    "gnndirect: index and src must be CUDA tensors on one device");
  TORCH_CHECK_TYPE(src.scalar_type() == table.scalar_type(), "gnndirect: src dtype ",
                   src.scalar_type(), " differs from the table's ", table.scalar_type());
  TORCH_CHECK_VALUE(src.size(0) == index.size(0) && src.size(1) == table.size(1),
                    "gnndirect: src must be ", index.size(0), " x ", table.size(1), ", got ",
                    src.sizes());
  c10::cuda::CUDAGuard const guard(src.device());
  at::Tensor const idx = index.contiguous();
  at::Tensor const rows = src.contiguous();
  if (idx.numel() == 0 || table.size(1) == 0) { return; }
  int const device = src.device().index();
  placed_pointer const dst = placement_of(table, "table", device);
  cudaStream_t const stream = at::cuda::getCurrentCUDAStream(device).stream();
  translate_errors([&] {
    dispatch_element_size(table.element_size(), [&](auto element) {
      using T = decltype(element);
      gnndirect::table_view<const T> from(data_as<const T>(rows), rows.size(0), rows.size(1),
                                          rows.size(1), gnndirect::memory_kind::device);
      gnndirect::table_view<T> to(static_cast<T*>(dst.device), table.size(0), table.size(1),
                                  table.stride(0), dst.kind);
      dispatch_index_type(idx.scalar_type(), "index", [&](auto index_tag) {
        using I = decltype(index_tag);
        gnndirect::gather_policy policy;
        policy.check_indices = check;
        std::size_t const ws_bytes = gnndirect::scatter_workspace_bytes<I>(
          idx.size(0), table.size(0), dst.kind, to.row_bytes(), policy);
        at::Tensor ws = at::empty({static_cast<std::int64_t>(ws_bytes)},
                                  idx.options().dtype(at::kByte));
        gnndirect::workspace_view const scratch{ws.data_ptr(), ws_bytes};
        gnndirect::scatter_async(stream, from, data_as<const I>(idx), idx.size(0), to, scratch,
                                 policy);
        record_host_use(table, stream, device);  // also with check=False: see common.hpp
        if (check) { gnndirect::scatter_check(stream, scratch, table.size(0)); }
      });
    });
  });
}

}  // namespace
}  // namespace gnndirect_torch

TORCH_LIBRARY_IMPL(gnndirect, CUDA, m) { m.impl("scatter_rows", &gnndirect_torch::scatter_rows_cuda); }
