#pragma once
/// @file encoded_table.hpp
/// @brief encoded_table<Codec>: owner of a feature table encoded with a row codec (compressed
/// rows in any placement, per-row metadata in device memory), encoded from fp32/fp16/bf16 on all
/// host cores, with the encoder's per-column error report. Gather from its view decodes inside
/// the copy (algorithms/gather.cuh); a tier of its rows: cache/tiered_table.cuh.

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/encoded_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/device/row_codec.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/registration.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/util/parallel.hpp>
#include <gnndirect/detail/core/bits.hpp>
#include <gnndirect/detail/owners/allocation.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Encoding error of one column (decoded to fp32 against the input).
struct column_error {
  double max_abs{0};   ///< largest |decoded - input|
  double mean_abs{0};  ///< mean |decoded - input| over the rows
  double relative{0};  ///< max_abs / the column's largest |input| (0 for an all-zero column)
};

/// Encoded row stride for `payload` bytes of codes: 64 bytes when they fit (two rows a 128-byte
/// line), else whole 128-byte lines (100 int8 features -> 128, 602 -> 640). Rows then never share
/// or straddle lines, so a row costs the link exactly its lines (docs/design.md, "Row codecs").
/// @param payload code bytes per row  @return the stride in bytes
constexpr std::int64_t encoded_row_stride(std::int64_t payload) noexcept
{
  if (payload <= 64) { return 64; }
  return (payload + 127) / 128 * 128;
}

/// Owner of `rows` x `cols` values encoded with `Codec`: the codes (rows of encoded_row_stride
/// bytes) in a placement, the per-row metadata in device memory, and the encoder's error report.
/// Move-only. @tparam Codec a row codec with a host encoder
///   (`static std::int64_t encode_row(const float*, std::int64_t cols, std::uint8_t*, meta_type&)`)
template <class Codec>
class encoded_table {
  static_assert(is_row_codec_v<Codec>, "encoded_table: Codec must model the row-codec concept (device/row_codec.hpp)");

 public:
  using codec_type = Codec;                     ///< the codec
  using meta_type = typename Codec::meta_type;  ///< per-row metadata

  /// Empty table.
  encoded_table() = default;

  /// Encodes `rows` x `cols` input values (row r at input + r * input_stride elements; -1 =
  /// cols) on host_threads() cores into `kind` (device, pinned, managed_host or registered:
  /// codes encoded into host memory the table owns, then pinned in place), and measures the
  /// per-column error. Blocks until done.
  /// @tparam In float, __half or __nv_bfloat16 (host memory)
  /// @param input first value  @param rows, cols shape  @param kind placement of the codes
  /// @param input_stride elements between input rows (-1: cols)  @param codec the codec object
  /// @param mr, host_mr resources of the device and pinned memory
  /// @throws invalid_argument naming the row and column of a value the codec cannot encode (NaN,
  /// infinity, beyond fp16's range), for a negative shape or a null input, "overflows" for a
  /// shape whose bytes exceed std::size_t (checked before anything is allocated);
  /// allocation_error when the host memory the encoding commits (the codes in host memory or
  /// their staging copy for `device`, and the per-row metadata) exceeds what the host can give
  /// (owners/host_memory.hpp), refused before anything is committed; cuda_error.
  ///
  /// Device codes and the per-row metadata (device memory) come from `mr`, pinned codes from
  /// `host_mr` (defaults: the device's default pool, cudaHostAlloc), as table's; both must
  /// outlive the table.
  template <class In>
  encoded_table(const In* input, std::int64_t rows, std::int64_t cols, memory_kind kind,
                std::int64_t input_stride = -1, Codec codec = {}, resource_ref mr = {},
                host_resource_ref host_mr = {})
    : rows_(rows), cols_(cols), kind_(kind), codec_(codec)
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

  /// @return view for kernels and the bulk API (device-visible addresses); every row, the last
  /// included, owns its whole stride, so copies may load its padding (readable_bytes = stride)
  encoded_view<Codec> view() const noexcept
  {
    return {codes_.view().data, rows_, cols_, stride_, kind_, meta_.data(), codec_, stride_};
  }
  /// The codes as a byte table (rows x stride_bytes), e.g. to build a tiered_table<std::uint8_t>
  /// over them (cache/tiered_table.cuh).  @return the view
  table_view<const std::uint8_t> bytes_view() const noexcept
  {
    return {codes_.view().data, rows_, stride_, stride_, kind_};
  }
  /// Decodes row `r` on the host into `out` (cols values), from the host copy of the codes kept by
  /// host-resident placements (the reference for tests). @throws invalid_argument for a device
  /// table or a bad row.
  /// @tparam D a decoded type of the codec  @param r the row  @param out cols values written
  template <class D>
  void host_decode(std::int64_t r, D* out) const
  {
    GNNDIRECT_EXPECTS(kind_ != memory_kind::device, "encoded_table::host_decode: device table (no host codes)");
    GNNDIRECT_EXPECTS(r >= 0 && r < rows_, "encoded_table::host_decode: row " + std::to_string(r) + " out of range");
    host_decode_row<D>(codec_, codes_.host_view().data + r * stride_, host_meta_[static_cast<std::size_t>(r)], cols_, out);
  }
  /// @return the per-row metadata as the host keeps it (rows entries)
  const std::vector<meta_type>& host_meta() const noexcept { return host_meta_; }

  /// @return per-column encoding error (cols entries; fp32 decode against the input)
  const std::vector<column_error>& errors() const noexcept { return errors_; }
  /// @return rows
  std::int64_t rows() const noexcept { return rows_; }
  /// @return decoded values per row
  std::int64_t cols() const noexcept { return cols_; }
  /// @return bytes between encoded rows (encoded_row_stride of the codes' bytes)
  std::int64_t stride_bytes() const noexcept { return stride_; }
  /// @return placement of the codes
  memory_kind kind() const noexcept { return kind_; }
  /// @return device memory held: the metadata, plus the codes when they are device-resident
  std::size_t device_bytes() const noexcept
  {
    return meta_.bytes() + (kind_ == memory_kind::device ? static_cast<std::size_t>(rows_ * stride_) : 0);
  }
  /// @return host memory held by the codes (0 for device tables)
  std::size_t host_bytes() const noexcept
  {
    return kind_ == memory_kind::device ? 0 : static_cast<std::size_t>(rows_ * stride_);
  }

 private:
  struct free_deleter {
    void operator()(std::uint8_t* p) const noexcept { std::free(p); }
  };

  /// Host bytes the constructor commits for `code_bytes` of codes: the codes themselves (host
  /// placements) or their staging copy (device), the metadata twice (the encoder's output and
  /// host_meta()), and the per-thread column statistics. @throws invalid_argument "overflows".
  std::size_t host_bytes_to_encode(std::size_t code_bytes) const
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

  /// Encodes every row on all cores into `codes` / `meta` and accumulates the column errors.
  template <class In>
  void encode_all(const In* input, std::int64_t input_stride, std::uint8_t* codes, meta_type* meta)
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

  std::int64_t rows_{0};
  std::int64_t cols_{0};
  std::int64_t payload_{0};
  std::int64_t stride_{64};
  memory_kind kind_{memory_kind::device};
  Codec codec_{};
  std::unique_ptr<std::uint8_t, free_deleter> owned_host_;  // registered: the codes (declared before codes_)
  table<std::uint8_t> codes_;
  buffer<meta_type> meta_;
  std::vector<meta_type> host_meta_;
  std::vector<column_error> errors_;
};

GNNDIRECT_NAMESPACE_END
