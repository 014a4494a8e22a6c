#pragma once
/// @file codec_cuda_impl.cuh
/// @brief The CUDA body of torch.ops.gnndirect.gather_encoded for one codec type, instantiated
/// once per codec in codec_cuda_<codec>.cu (one translation unit each, so that the extension's
/// parallel build compiles the 6 codecs x 3 destination types x 2 index types x 2 sources
/// (plain, tiered) kernels side by side); the op itself is registered in codec_cuda.cu.

#include "codec.hpp"

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/cache/tiered_table.cuh>
#include <gnndirect/core/encoded_view.hpp>
#include <gnndirect/cache/tiered_view.hpp>

#include <ATen/cuda/CUDAContext.h>

namespace gnndirect_torch {

/// Enqueues the decoding gather of `call` for codec C (arguments already checked by the op),
/// synchronising the stream to raise a bad index when call.check.
template <class C>
void run_encoded_gather(const encoded_gather_call& call)
{
  gnndirect::encoded_view<C> const view = encoded_rows_view<C>(call.codes, call.placed, call.meta, call.cols);
  at::Tensor const& idx = call.index;
  at::Tensor const& out = call.out;
  cudaStream_t const stream = at::cuda::getCurrentCUDAStream(call.device).stream();
  dispatch_decoded_dtype(out.scalar_type(), [&](auto d) {
    using D = decltype(d);
    if constexpr (gnndirect::codec_decodes_to_v<C, D>) {
      gnndirect::table_view<D> to(static_cast<D*>(out.data_ptr()), out.size(0), call.cols, call.cols,
                                  gnndirect::memory_kind::device);
      dispatch_index_type(idx.scalar_type(), "index", [&](auto index_tag) {
        using I = decltype(index_tag);
        gnndirect::gather_policy policy;
        policy.check_indices = call.check;
        std::size_t const ws_bytes = gnndirect::gather_workspace_bytes<I>(
          idx.size(0), call.codes.size(0), view.kind, static_cast<std::size_t>(view.load_bytes()), policy);
        at::Tensor ws = at::empty({static_cast<std::int64_t>(ws_bytes)}, idx.options().dtype(at::kByte));
        gnndirect::workspace_view const scratch{ws.data_ptr(), ws_bytes};
        if (call.cache != nullptr) {
          gnndirect::table_view<const std::uint8_t> bytes(view.data, view.rows, view.stride_bytes, view.stride_bytes,
                                                          view.kind);
          gnndirect::tiered_view<std::uint8_t> tier{bytes, data_as<const std::uint8_t>(*call.cache),
                                                    data_as<const std::int32_t>(*call.slot_of), call.cache->size(0)};
          gnndirect::gather_async(stream, view, tier, data_as<const I>(idx), idx.size(0), to, scratch, policy);
        } else {
          gnndirect::gather_async(stream, gnndirect::encoded_source<C>(view), data_as<const I>(idx), idx.size(0), to,
                                  scratch, policy);
        }
        record_host_use(call.codes, stream, call.device);
        if (call.check) { gnndirect::gather_check(stream, scratch, call.codes.size(0)); }
      });
    } else {
      TORCH_CHECK_TYPE(false, "gnndirect: codec ", canonical_codec(call.codec), " cannot decode to ",
                       out.scalar_type());
    }
  });
}

}  // namespace gnndirect_torch
