#pragma once
/// @file encoded_table.hpp
/// @brief encoded_table<Codec>: owner of a feature table encoded with a row codec (compressed
/// rows in any placement, per-row metadata in device memory), encoded from fp32/fp16/bf16 on all
/// host cores, with the encoder's per-column error report. Gather from its view decodes inside
/// the copy (algorithms/gather.cuh); a tier of its rows: cache/tiered_table.cuh.

#include <gnndirect/core/encoded_view.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/device/row_codec.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/table.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
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
                host_resource_ref host_mr = {});

  /// @return view for kernels and the bulk API (device-visible addresses); every row, the last
  /// included, owns its whole stride, so copies may load its padding (readable_bytes = stride)
  encoded_view<Codec> view() const noexcept;
  /// The codes as a byte table (rows x stride_bytes), e.g. to build a tiered_table<std::uint8_t>
  /// over them (cache/tiered_table.cuh).  @return the view
  table_view<const std::uint8_t> bytes_view() const noexcept;
  /// Decodes row `r` on the host into `out` (cols values), from the host copy of the codes kept by
  /// host-resident placements (the reference for tests). @throws invalid_argument for a device
  /// table or a bad row.
  /// @tparam D a decoded type of the codec  @param r the row  @param out cols values written
  template <class D>
  void host_decode(std::int64_t r, D* out) const;
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
  std::size_t device_bytes() const noexcept;
  /// @return host memory held by the codes (0 for device tables)
  std::size_t host_bytes() const noexcept;

 private:
  /// Frees the registered placement's codes (std::calloc'ed).
  struct free_deleter {
    void operator()(std::uint8_t* p) const noexcept { std::free(p); }
  };

  /// Host bytes the constructor commits for `code_bytes` of codes: the codes themselves (host
  /// placements) or their staging copy (device), the metadata twice (the encoder's output and
  /// host_meta()), and the per-thread column statistics. @throws invalid_argument "overflows".
  std::size_t host_bytes_to_encode(std::size_t code_bytes) const;

  /// Encodes every row on all cores into `codes` / `meta` and accumulates the column errors.
  template <class In>
  void encode_all(const In* input, std::int64_t input_stride, std::uint8_t* codes, meta_type* meta);

  /// Rows of the table.
  std::int64_t rows_{0};
  /// Decoded values per row.
  std::int64_t cols_{0};
  /// Code bytes per row (the codec's payload for cols values).
  std::int64_t payload_{0};
  /// Bytes between encoded rows (encoded_row_stride(payload_)).
  std::int64_t stride_{64};
  /// Placement of the codes.
  memory_kind kind_{memory_kind::device};
  /// The codec object.
  Codec codec_{};
  /// Registered placement: the codes' host memory (declared before codes_, freed after it).
  std::unique_ptr<std::uint8_t, free_deleter> owned_host_;
  /// The codes, rows x stride_ bytes.
  table<std::uint8_t> codes_;
  /// The per-row metadata in device memory, and as the host keeps it.
  buffer<meta_type> meta_;
  std::vector<meta_type> host_meta_;
  /// Per-column encoding error.
  std::vector<column_error> errors_;
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/owners/encoded_table.inl>
