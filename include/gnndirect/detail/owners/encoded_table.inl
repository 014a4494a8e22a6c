#pragma once
// Definitions of owners/encoded_table.hpp (included at its end; not part of the API).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/detail/core/bits.hpp>
#include <gnndirect/detail/owners/allocation.hpp>
#include <gnndirect/owners/registration.hpp>
#include <gnndirect/util/parallel.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN

template <class Codec>
template <class In>
encoded_table<Codec>::encoded_table(
  const In* input, std::int64_t rows, std::int64_t cols, memory_kind kind, std::int64_t input_stride, Codec codec,
  resource_ref mr, host_resource_ref host_mr)
  : rows_(rows),
    cols_(cols),
    kind_(kind),
    codec_(codec)
{
  static_assert(is_decoded_type_v<In>, "encoded_table: the input must be float, __half or __nv_bfloat16");
  GNNDIRECT_EXPECTS(rows >= 0 && cols >= 0, "encoded_table: negative shape");
  if (input_stride < 0) { input_stride = cols; }
  GNNDIRECT_EXPECTS(input_stride >= cols, "encoded_table: input_stride < cols");
  GNNDIRECT_EXPECTS(rows == 0 || cols == 0 || input != nullptr, "encoded_table: null input");
  // Every size is checked before anything is allocated: rows * stride wraps for rows near
  // 2^64 / stride (a few bytes allocated for a huge table), and host memory the encoder
  // commits is refused up front, not left to the OOM killer.
  GNNDIRECT_EXPECTS(cols <= std::numeric_limits<std::int64_t>::max() / 64,
                    "encoded_table: cols " + std::to_string(cols) + " overflows the row's bytes");
  payload_ = encoded_payload_bytes<Codec>(cols);
  stride_ = encoded_row_stride(payload_);
  std::size_t const code_bytes = detail::checked_product(static_cast<std::uint64_t>(rows),
                                                         static_cast<std::uint64_t>(stride_),
                                                         "encoded_table: rows * stride bytes");
  GNNDIRECT_EXPECTS(code_bytes <= static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max()),
                    "encoded_table: rows * stride bytes overflows std::int64_t");
  detail::check_host_capacity(host_bytes_to_encode(code_bytes), kind);
  errors_.assign(static_cast<std::size_t>(cols), column_error{});
  if (rows == 0) { return; }

  // Where the host encoder writes: the table itself when it has host addresses, else staging.
  std::uint8_t* codes = nullptr;
  std::vector<std::uint8_t> staging;
  if (kind == memory_kind::registered) {
    owned_host_.reset(static_cast<std::uint8_t*>(std::calloc(code_bytes, 1)));
    if (owned_host_ == nullptr) {
      throw allocation_error(__FILE__, __LINE__, code_bytes, kind, "encoded_table: calloc returned null");
    }
    codes = owned_host_.get();
  } else {
    codes_ = table<std::uint8_t>(rows, stride_, kind, mr, host_mr);
    if (kind == memory_kind::device) {
      staging.assign(code_bytes, 0);
      codes = staging.data();
    } else {
      codes = codes_.host_view().data;
    }
  }
  std::vector<meta_type> meta(static_cast<std::size_t>(rows));
  encode_all(input, input_stride, codes, meta.data());

  if (kind == memory_kind::registered) {
    codes_ = table<std::uint8_t>::adopt_by_registration(owned_host_.get(), rows, stride_);
  } else if (kind == memory_kind::device) {
    detail::copy_to_device_and_wait(codes_.view().data, staging.data(), staging.size());
  }
  if constexpr (!std::is_empty_v<meta_type>) {
    meta_ = buffer<meta_type>(static_cast<std::size_t>(rows), memory_kind::device, mr);
    detail::copy_to_device_and_wait(meta_.data(), meta.data(), meta_.bytes());
  }
}

template <class Codec>
auto encoded_table<Codec>::view() const noexcept -> encoded_view<Codec>
{
  return {codes_.view().data, rows_, cols_, stride_, kind_, meta_.data(), codec_, stride_};
}

template <class Codec>
auto encoded_table<Codec>::bytes_view() const noexcept -> table_view<const std::uint8_t>
{
  return {codes_.view().data, rows_, stride_, stride_, kind_};
}

template <class Codec>
template <class D>
auto encoded_table<Codec>::host_decode(std::int64_t r, D* out) const -> void
{
  GNNDIRECT_EXPECTS(kind_ != memory_kind::device, "encoded_table::host_decode: device table (no host codes)");
  GNNDIRECT_EXPECTS(r >= 0 && r < rows_, "encoded_table::host_decode: row " + std::to_string(r) + " out of range");
  host_decode_row<D>(codec_, codes_.host_view().data + r * stride_, host_meta_[static_cast<std::size_t>(r)], cols_, out);
}

template <class Codec>
auto encoded_table<Codec>::device_bytes() const noexcept -> std::size_t
{
  return meta_.bytes() + (kind_ == memory_kind::device ? static_cast<std::size_t>(rows_ * stride_) : 0);
}

template <class Codec>
auto encoded_table<Codec>::host_bytes() const noexcept -> std::size_t
{
  return kind_ == memory_kind::device ? 0 : static_cast<std::size_t>(rows_ * stride_);
}

template <class Codec>
auto encoded_table<Codec>::host_bytes_to_encode(std::size_t code_bytes) const -> std::size_t
{
  auto const rows = static_cast<std::uint64_t>(rows_);
  auto const cols = static_cast<std::uint64_t>(cols_);
  std::size_t const meta = detail::checked_product(rows, 2 * sizeof(meta_type), "encoded_table: rows * metadata bytes");
  std::size_t const per_thread = detail::checked_product(
    cols, sizeof(column_error) + sizeof(double) + 2 * sizeof(float), "encoded_table: cols * statistics bytes");
  std::size_t const columns = detail::checked_product(
    per_thread, static_cast<std::uint64_t>(host::default_thread_count()) + 1, "encoded_table: statistics bytes");
  return detail::checked_sum(detail::checked_sum(code_bytes, meta, "encoded_table: host bytes"), columns,
                             "encoded_table: host bytes");
}

template <class Codec>
template <class In>
auto encoded_table<Codec>::encode_all(
  const In* input, std::int64_t input_stride, std::uint8_t* codes, meta_type* meta) -> void
{
  int const threads = host::default_thread_count();
  std::vector<std::vector<column_error>> partial(static_cast<std::size_t>(threads),
                                                 std::vector<column_error>(static_cast<std::size_t>(cols_)));
  std::vector<std::vector<double>> column_max(static_cast<std::size_t>(threads),
                                              std::vector<double>(static_cast<std::size_t>(cols_), 0.0));
  host::parallel_for_ranges(
    rows_,
    [&](std::int64_t begin, std::int64_t end, int worker) {
      std::vector<float> x(static_cast<std::size_t>(cols_));
      std::vector<float> decoded(static_cast<std::size_t>(cols_));
      auto& err = partial[static_cast<std::size_t>(worker)];
      auto& peak = column_max[static_cast<std::size_t>(worker)];
      for (std::int64_t r = begin; r < end; ++r) {
        for (std::int64_t c = 0; c < cols_; ++c) { x[c] = numeric::to_float(input[r * input_stride + c]); }
        std::uint8_t* const row = codes + r * stride_;
        std::int64_t const bad = Codec::encode_row(x.data(), cols_, row, meta[r]);
        if (bad >= 0) {
          throw invalid_argument(__FILE__, __LINE__,
                                 "encoded_table: row " + std::to_string(r) + " column " + std::to_string(bad) +
                                   " holds " + std::to_string(x[bad]) +
                                   ", which this codec cannot encode (NaN, infinity or out of its range)");
        }
        host_decode_row<float>(codec_, row, meta[r], cols_, decoded.data());
        for (std::int64_t c = 0; c < cols_; ++c) {
          double const e = std::fabs(static_cast<double>(decoded[c]) - x[c]);
          err[c].max_abs = std::max(err[c].max_abs, e);
          err[c].mean_abs += e;
          peak[c] = std::max(peak[c], std::fabs(static_cast<double>(x[c])));
        }
      }
    },
    threads);
  for (std::int64_t c = 0; c < cols_; ++c) {
    double peak = 0;
    for (std::size_t w = 0; w < partial.size(); ++w) {
      errors_[c].max_abs = std::max(errors_[c].max_abs, partial[w][c].max_abs);
      errors_[c].mean_abs += partial[w][c].mean_abs;
      peak = std::max(peak, column_max[w][c]);
    }
    errors_[c].mean_abs /= static_cast<double>(rows_);
    errors_[c].relative = peak > 0 ? errors_[c].max_abs / peak : 0.0;
  }
  host_meta_.assign(meta, meta + rows_);
}

GNNDIRECT_NAMESPACE_END
