#pragma once
/// @file codec.hpp
/// @brief Row codecs (gnndirect/device/codecs.hpp) for the extension: the codec names Python
/// uses, dispatch from a name to the codec type, the encoded row layout, and the host encoder
/// (owners/encoded_table.hpp's rule, run on all cores into tensors the caller placed).

#include "common.hpp"

#include <gnndirect/algorithms/codec_choice.hpp>
#include <gnndirect/core/encoded_view.hpp>
#include <gnndirect/device/codecs.hpp>
#include <gnndirect/owners/encoded_table.hpp>

#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace gnndirect_torch {

/// The codec `name` names (gnndirect::codec_from_name: "fp32", "fp16", "bf16", "int8_affine",
/// "fp8_e4m3", "int4_affine", or the short forms "int8", "fp8", "int4").
/// @throws c10::ValueError naming the accepted names.
gnndirect::codec_kind codec_kind_of(const std::string& name);

/// The library's name of `name` (see codec_kind_of). @throws c10::ValueError as codec_kind_of.
std::string canonical_codec(const std::string& name);

/// Calls body(C{}) with C the codec type named `name` (gnndirect::visit_codec).
/// @throws c10::ValueError for an unknown name.
template <class Body>
decltype(auto) dispatch_codec(const std::string& name, Body&& body)
{
  return gnndirect::visit_codec(codec_kind_of(name), std::forward<Body>(body));
}

/// Floats of per-row metadata codec `C` keeps (0: none; int8/int4: 2, fp8: 1).
template <class C>
constexpr std::int64_t meta_floats() noexcept
{
  using M = typename C::meta_type;
  if constexpr (std::is_empty_v<M>) {
    return 0;
  } else {
    static_assert(sizeof(M) % sizeof(float) == 0, "metadata must be whole floats");
    return static_cast<std::int64_t>(sizeof(M) / sizeof(float));
  }
}

/// The library's view of an encoded table as the extension holds one: codes (uint8 [rows,
/// stride], checked by check_encoded_args) reached at `placed`, the per-row metadata `meta`
/// (float32 [rows, meta_floats<C>()] in device memory; read only when C keeps metadata), `cols`
/// decoded values per row. The one place gather_encoded and the pipeline build it, so that both
/// read a Table's rows alike. Non-owning: the tensors must outlive the view. Never throws.
template <class C>
gnndirect::encoded_view<C> encoded_rows_view(const at::Tensor& codes, const placed_pointer& placed,
                                             const std::optional<at::Tensor>& meta, std::int64_t cols)
{
  using M = typename C::meta_type;
  const M* meta_ptr = nullptr;
  if constexpr (meta_floats<C>() > 0) { meta_ptr = static_cast<const M*>(meta->data_ptr()); }
  // Each row owns codes.size(1) bytes (its padded stride), the last row's included: copies may
  // load that padding in 16-byte vectors.
  return {static_cast<const std::uint8_t*>(placed.device), codes.size(0), cols, codes.stride(0), placed.kind,
          meta_ptr, C{}, codes.size(1)};
}

/// (canonical name, encoded row stride in bytes, metadata floats per row, payload bytes per row)
/// of codec `name` for rows of `cols` values. @throws c10::ValueError (name, negative cols).
std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t> codec_layout(const std::string& name,
                                                                         std::int64_t cols);

/// Encodes the rows of `x` (CPU, 2-D, contiguous rows; float32, float16 or bfloat16) with codec
/// `name` on all host cores into `codes` (CPU-addressable uint8 [rows, stride], e.g. pinned or
/// managed memory) and `meta` (CPU float32 [rows, meta_floats]; ignored when the codec keeps
/// none), and accumulates the encoder's error into `stats` (CPU float64 [3, cols]: per column the
/// largest |decoded - x|, the sum of |decoded - x|, the largest |x|), so that a caller encoding
/// in chunks (a streamed file) gets the whole table's report. `row_offset` is added to row
/// numbers in messages. Synchronous.
/// @throws c10::ValueError naming the row, column and value the codec cannot encode (NaN,
/// infinity, beyond fp16/bf16's range) or what is wrong with the shapes; c10::TypeError (dtypes).
void encode_rows(const at::Tensor& x, const std::string& name, const at::Tensor& codes,
                 const at::Tensor& meta, const at::Tensor& stats, std::int64_t row_offset);

}  // namespace gnndirect_torch

namespace gnndirect_torch {

/// Checks the encoded table arguments of gather_encoded: `codes` a 2-D uint8 tensor with
/// contiguous rows of at least the codec's payload bytes, `meta` (when the codec keeps metadata)
/// a contiguous float32 [codes rows, meta_floats] tensor (on `meta_device`'s kind of device),
/// `cols` >= 0. @throws c10::ValueError / c10::TypeError naming what is wrong.
void check_encoded_args(const at::Tensor& codes, const std::optional<at::Tensor>& meta, std::int64_t cols,
                        const std::string& codec, bool meta_on_cuda);

/// Calls body(D{}) with D the element type of the decoded output dtype (float, __half,
/// __nv_bfloat16). @throws c10::TypeError naming the dtype for any other.
template <class Body>
decltype(auto) dispatch_decoded_dtype(at::ScalarType dtype, Body&& body)
{
  switch (dtype) {
    case at::kFloat: return body(float{});
    case at::kHalf: return body(__half{});
    case at::kBFloat16: return body(__nv_bfloat16{});
    default: break;
  }
  TORCH_CHECK_TYPE(false, "gnndirect: a codec decodes to float32, float16 or bfloat16, not ", dtype);
}

/// One checked gather_encoded call, handed from the op (codec_cuda.cu) to the kernels of its
/// codec (codec_cuda_<codec>.cu).
struct encoded_gather_call {
  at::Tensor codes;                 ///< uint8 [rows, stride] encoded rows, any placement
  placed_pointer placed;            ///< their placement and device-visible address
  std::optional<at::Tensor> meta;   ///< float32 [rows, meta floats] in device memory (or none)
  std::int64_t cols{0};             ///< decoded values per row
  std::string codec;                ///< the codec's name
  at::Tensor index;                 ///< contiguous int32/int64 CUDA row ids
  const at::Tensor* cache{nullptr};    ///< uint8 [cache rows, stride] encoded tier, or null
  const at::Tensor* slot_of{nullptr};  ///< int32 [rows] slots of the tier (with cache)
  at::Tensor out;                   ///< [len(index), cols] decoded output (its dtype picks D)
  int device{0};                    ///< the CUDA device
  bool check{true};                 ///< check the indices (synchronises the current stream)
};

/// Enqueues the decoding gather of `call` with codec C (codec_cuda_impl.cuh; instantiated in
/// codec_cuda_<codec>.cu). @throws as gnndirect::gather_async / gather_check, c10::TypeError
/// for an output dtype C cannot produce.
template <class C>
void run_encoded_gather(const encoded_gather_call& call);

}  // namespace gnndirect_torch
