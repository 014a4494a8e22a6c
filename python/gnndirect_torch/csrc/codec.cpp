/// @file codec.cpp
/// @brief Row codecs in the extension: the schema of torch.ops.gnndirect.gather_encoded and its
/// CPU kernel (the host decode reference, gnndirect::host_decode_row), and the host encoder
/// exposed to Python (encode_rows, codec_layout; registered in module.cpp).
///
/// Op: gather_encoded(codes, meta, cols, codec, index, cache=None, slot_of=None, dtype=None,
/// check=True) -> Tensor: out[i] = decode(codes[index[i]]) as `dtype` (float32 by default). The
/// CUDA kernel (codec_cuda.cu) decodes inside gnndirect's gather; the CPU one decodes with the
/// reference the library's kernels are tested against bit for bit.

#include "codec.hpp"

#include <gnndirect/util/parallel.hpp>

#include <ATen/Parallel.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace gnndirect_torch {

gnndirect::codec_kind codec_kind_of(const std::string& name)
{
  return translate_errors([&] { return gnndirect::codec_from_name(name); });
}

std::string canonical_codec(const std::string& name)
{
  return std::string(gnndirect::to_string(codec_kind_of(name)));
}

std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t> codec_layout(const std::string& name,
                                                                         std::int64_t cols)
{
  TORCH_CHECK_VALUE(cols >= 0, "gnndirect: codec_layout: negative column count ", cols);
  return dispatch_codec(name, [&](auto codec) {
    using C = decltype(codec);
    std::int64_t const payload = gnndirect::encoded_payload_bytes<C>(cols);
    return std::make_tuple(canonical_codec(name), gnndirect::encoded_row_stride(payload), meta_floats<C>(), payload);
  });
}

namespace {

/// Row r of `x` as floats (exact conversion of fp16/bf16).
template <class In>
void row_as_float(const In* row, std::int64_t cols, float* out)
{
  for (std::int64_t c = 0; c < cols; ++c) { out[c] = gnndirect::numeric::to_float(row[c]); }
}

}  // namespace

void encode_rows(const at::Tensor& x, const std::string& name, const at::Tensor& codes, const at::Tensor& meta,
                 const at::Tensor& stats, std::int64_t row_offset)
{
  TORCH_CHECK_VALUE(!x.is_cuda() && !codes.is_cuda() && !meta.is_cuda() && !stats.is_cuda(),
                    "gnndirect: encode_rows runs on the host: x, codes, meta and stats must be CPU tensors");
  check_table_tensor(x, "x");
  TORCH_CHECK_TYPE(x.scalar_type() == at::kFloat || x.scalar_type() == at::kHalf || x.scalar_type() == at::kBFloat16,
                   "gnndirect: a codec encodes float32, float16 or bfloat16 features, got ", x.scalar_type());
  TORCH_CHECK_TYPE(codes.scalar_type() == at::kByte && stats.scalar_type() == at::kDouble,
                   "gnndirect: encode_rows needs uint8 codes and float64 stats");
  std::int64_t const rows = x.size(0);
  std::int64_t const cols = x.size(1);
  dispatch_codec(name, [&](auto codec) {
    using C = decltype(codec);
    using M = typename C::meta_type;
    std::int64_t const payload = gnndirect::encoded_payload_bytes<C>(cols);
    std::int64_t const stride = gnndirect::encoded_row_stride(payload);
    TORCH_CHECK_VALUE(codes.dim() == 2 && codes.size(0) == rows && codes.size(1) == stride && codes.is_contiguous(),
                      "gnndirect: encode_rows: codes must be a contiguous uint8 [", rows, ", ", stride,
                      "] tensor, got ", codes.sizes());
    constexpr std::int64_t k_meta = meta_floats<C>();
    if constexpr (k_meta > 0) {
      TORCH_CHECK_VALUE(meta.scalar_type() == at::kFloat && meta.dim() == 2 && meta.size(0) == rows &&
                          meta.size(1) == k_meta && meta.is_contiguous(),
                        "gnndirect: encode_rows: meta must be a contiguous float32 [", rows, ", ", k_meta,
                        "] tensor, got ", meta.sizes(), " ", meta.scalar_type());
    }
    TORCH_CHECK_VALUE(stats.dim() == 2 && stats.size(0) == 3 && stats.size(1) == cols && stats.is_contiguous(),
                      "gnndirect: encode_rows: stats must be a contiguous float64 [3, ", cols, "] tensor");
    if (rows == 0 || cols == 0) { return; }
    std::uint8_t* const out = data_as<std::uint8_t>(codes);
    M* const row_meta = k_meta > 0 ? static_cast<M*>(meta.data_ptr()) : nullptr;
    int const threads = gnndirect::host::default_thread_count();
    std::vector<std::vector<double>> partial(static_cast<std::size_t>(threads),
                                             std::vector<double>(static_cast<std::size_t>(3 * cols), 0.0));
    // First failure (lowest row) of each worker: reported after the join, so the message names
    // a row of this call, not a half-written state.
    std::vector<std::int64_t> bad_row(static_cast<std::size_t>(threads), -1);
    std::vector<std::int64_t> bad_col(static_cast<std::size_t>(threads), -1);
    std::vector<float> bad_value(static_cast<std::size_t>(threads), 0.0f);
    auto const encode = [&](auto in_tag) {
      using In = decltype(in_tag);
      const In* const input = static_cast<const In*>(x.data_ptr());
      std::int64_t const in_stride = x.stride(0);
      gnndirect::host::parallel_for_ranges(
        rows,
        [&](std::int64_t begin, std::int64_t end, int worker) {
          std::vector<float> values(static_cast<std::size_t>(cols));
          std::vector<float> decoded(static_cast<std::size_t>(cols));
          double* const err = partial[static_cast<std::size_t>(worker)].data();
          for (std::int64_t r = begin; r < end; ++r) {
            row_as_float(input + r * in_stride, cols, values.data());
            std::uint8_t* const row = out + r * stride;
            std::fill(row, row + stride, std::uint8_t{0});  // padding stays zero (deterministic bytes)
            M m{};
            std::int64_t const bad = C::encode_row(values.data(), cols, row, m);
            if (bad >= 0) {
              bad_row[static_cast<std::size_t>(worker)] = r;
              bad_col[static_cast<std::size_t>(worker)] = bad;
              bad_value[static_cast<std::size_t>(worker)] = values[static_cast<std::size_t>(bad)];
              return;
            }
            if constexpr (k_meta > 0) { row_meta[r] = m; }
            gnndirect::host_decode_row<float>(C{}, row, m, cols, decoded.data());
            for (std::int64_t c = 0; c < cols; ++c) {
              double const e = std::fabs(static_cast<double>(decoded[c]) - values[c]);
              err[c] = std::max(err[c], e);
              err[cols + c] += e;
              err[2 * cols + c] = std::max(err[2 * cols + c], std::fabs(static_cast<double>(values[c])));
            }
          }
        },
        threads);
    };
    translate_errors([&] {
      switch (x.scalar_type()) {
        case at::kHalf: encode(__half{}); break;
        case at::kBFloat16: encode(__nv_bfloat16{}); break;
        default: encode(float{}); break;
      }
    });
    for (std::size_t w = 0; w < bad_row.size(); ++w) {
      TORCH_CHECK_VALUE(bad_row[w] < 0, "gnndirect: codec ", canonical_codec(name), " cannot encode row ",
                        bad_row[w] + row_offset, " column ", bad_col[w], ": value ", bad_value[w],
                        " (NaN, infinity, or beyond the format's range); clean the features first");
    }
    double* const total = data_as<double>(stats);
    for (std::int64_t c = 0; c < cols; ++c) {
      for (std::size_t w = 0; w < partial.size(); ++w) {
        total[c] = std::max(total[c], partial[w][static_cast<std::size_t>(c)]);
        total[cols + c] += partial[w][static_cast<std::size_t>(cols + c)];
        total[2 * cols + c] = std::max(total[2 * cols + c], partial[w][static_cast<std::size_t>(2 * cols + c)]);
      }
    }
  });
}

void check_encoded_args(const at::Tensor& codes, const std::optional<at::Tensor>& meta, std::int64_t cols,
                        const std::string& codec, bool meta_on_cuda)
{
  TORCH_CHECK_TYPE(codes.scalar_type() == at::kByte, "gnndirect: encoded codes must be uint8, got ",
                   codes.scalar_type());
  check_table_tensor(codes, "codes");
  TORCH_CHECK_VALUE(cols >= 0, "gnndirect: negative column count ", cols);
  dispatch_codec(codec, [&](auto c) {
    using C = decltype(c);
    std::int64_t const payload = gnndirect::encoded_payload_bytes<C>(cols);
    TORCH_CHECK_VALUE(codes.size(1) >= payload, "gnndirect: encoded rows of ", codes.size(1), " bytes cannot hold ",
                      cols, " values of codec ", canonical_codec(codec), " (", payload, " bytes)");
    constexpr std::int64_t k_meta = meta_floats<C>();
    if constexpr (k_meta > 0) {
      TORCH_CHECK_VALUE(meta.has_value(), "gnndirect: codec ", canonical_codec(codec), " needs its per-row metadata");
      TORCH_CHECK_VALUE(meta->scalar_type() == at::kFloat && meta->dim() == 2 && meta->size(0) == codes.size(0) &&
                          meta->size(1) == k_meta && meta->is_contiguous(),
                        "gnndirect: meta must be a contiguous float32 [", codes.size(0), ", ", k_meta,
                        "] tensor, got ", meta->sizes(), " ", meta->scalar_type());
      TORCH_CHECK_VALUE(meta->is_cuda() == meta_on_cuda, "gnndirect: meta must be a ",
                        meta_on_cuda ? "CUDA tensor (it is read by the kernel from HBM)" : "CPU tensor",
                        " here, got one on ", meta->device());
    }
  });
}

namespace {

/// CPU gather_encoded: host_decode_row (the codecs' own decode, also what the kernels are
/// checked against) of each selected row, on all cores.
at::Tensor gather_encoded_cpu(const at::Tensor& codes, const std::optional<at::Tensor>& meta, std::int64_t cols,
                              c10::string_view codec_name, const at::Tensor& index,
                              const std::optional<at::Tensor>& /*cache*/, const std::optional<at::Tensor>& /*slot_of*/,
                              std::optional<at::ScalarType> dtype, bool /*check*/)
{
  std::string const codec(codec_name.data(), codec_name.size());
  check_encoded_args(codes, meta, cols, codec, false);
  check_index_tensor(index, "index");
  at::ScalarType const out_type = dtype.value_or(at::kFloat);
  at::Tensor const idx = index.contiguous().to(at::kLong);
  at::Tensor out = at::empty({idx.size(0), cols}, codes.options().dtype(out_type));
  dispatch_decoded_dtype(out_type, [&](auto d) {
    using D = decltype(d);
    dispatch_codec(codec, [&](auto c) {
      using C = decltype(c);
      using M = typename C::meta_type;
      const std::int64_t* const ids = idx.data_ptr<std::int64_t>();
      std::int64_t const rows = codes.size(0);
      for (std::int64_t i = 0; i < idx.size(0); ++i) {
        if (ids[i] < 0 || ids[i] >= rows) {
          throw_c10<c10::IndexError>("gnndirect: index[" + std::to_string(i) + "] = " + std::to_string(ids[i]) +
                                     " is outside the table's " + std::to_string(rows) + " rows");
        }
      }
      const std::uint8_t* const base = codes.data_ptr<std::uint8_t>();
      D* const dst = static_cast<D*>(out.data_ptr());
      at::parallel_for(0, idx.size(0), 256, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
          M m{};
          if constexpr (meta_floats<C>() > 0) { m = static_cast<const M*>(meta->data_ptr())[ids[i]]; }
          gnndirect::host_decode_row<D>(C{}, base + ids[i] * codes.stride(0), m, cols, dst + i * cols);
        }
      });
    });
  });
  return out;
}

}  // namespace
}  // namespace gnndirect_torch

TORCH_LIBRARY_FRAGMENT(gnndirect, m)
{
  m.def("gather_encoded(Tensor codes, Tensor? meta, int cols, str codec, Tensor index, Tensor? cache=None, "
        "Tensor? slot_of=None, ScalarType? dtype=None, bool check=True) -> Tensor");
}

TORCH_LIBRARY_IMPL(gnndirect, CPU, m) { m.impl("gather_encoded", &gnndirect_torch::gather_encoded_cpu); }
