#pragma once
/// @file encoded_view.hpp
/// @brief Non-owning, trivially copyable view of an encoded (compressed) feature table: rows of
/// codes in any placement plus per-row metadata in device memory (host-compilable).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/table_view.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// rows x cols values encoded with `Codec` (device/row_codec.hpp): row r's codes start at
/// data + r * stride_bytes; its metadata is meta[r] (device memory, null when the codec keeps
/// none). owners/encoded_table.hpp pads stride_bytes to whole 128-byte lines (or 64-byte halves)
/// so that every row is read as whole link lines (docs/design.md, "Row codecs"), and says so in
/// `readable_bytes`: a copy then loads each row in 16-byte vectors up to the padding. A view that
/// cannot vouch for the bytes after a row's codes (a column slice of a plain table, whose last
/// row may end where the mapped or registered memory ends) leaves it 0, and copies load exactly
/// the codes, with narrower vectors where the payload is not a multiple of 16 bytes.
/// @tparam Codec a row codec; `codec` is its value (a user codec may carry pointers, e.g. to a
///         codebook in device memory)
template <class Codec>
struct encoded_view {
  using codec_type = Codec;                        ///< the codec
  using meta_type = typename Codec::meta_type;     ///< per-row metadata

  const std::uint8_t* data{nullptr};  ///< first code of row 0 (device-visible address)
  std::int64_t rows{0};               ///< number of rows
  std::int64_t cols{0};               ///< decoded values per row
  std::int64_t stride_bytes{0};       ///< bytes between the starts of consecutive rows
  memory_kind kind{memory_kind::device};  ///< where the codes live
  const meta_type* meta{nullptr};     ///< rows entries in device memory; null when meta_type is empty
  Codec codec{};                      ///< the codec object
  /// Bytes from each row's start, the last row's included, that lie in memory the view covers
  /// and so may be loaded (codes plus readable padding; the owners: stride_bytes). 0: the codes
  /// only (payload_bytes()).
  std::int64_t readable_bytes{0};

  /// First code of row `r` (no bounds check).  @param r the row  @return its address
  GNNDIRECT_HOST_DEVICE const std::uint8_t* row(std::int64_t r) const noexcept { return data + r * stride_bytes; }
  /// @return bytes of codes per row (whole bytes)
  GNNDIRECT_HOST_DEVICE std::int64_t payload_bytes() const noexcept;
  /// Bytes a copy loads per row: the payload rounded up to 16 bytes when the stride leaves room
  /// and the view says the padding is readable (readable_bytes; padding is loaded, never decoded
  /// into the destination), so the copy keeps 16-byte loads; else the payload itself, so that no
  /// load crosses the end of a row's codes (the vector width then divides the payload).
  /// @return the bytes
  GNNDIRECT_HOST_DEVICE std::int64_t load_bytes() const noexcept;
  /// @return true when the view holds no value
  GNNDIRECT_HOST_DEVICE bool empty() const noexcept { return rows == 0 || cols == 0; }
  /// Metadata of row `r` (the empty value when the codec keeps none; no bounds check). Device
  /// memory: call it in device code.  @param r the row  @return its metadata
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE meta_type row_meta(std::int64_t r) const noexcept;
};

/// A plain table read through a metadata-free codec whose codes are its elements, so a gather
/// converts the values: e.g. encoded_view_of<codecs::fp32>(fp32 table) gathered into __half rows
/// (rounded on the GPU; the link carries fp32), encoded_view_of<codecs::fp16>(fp16 table) into
/// float rows. A table_view cannot say whether the bytes after a row's columns are readable (a
/// column slice's last row may end at the end of its memory), so the copy loads exactly the
/// columns (readable_bytes = the row's bytes). @tparam Codec a codec with empty meta_type and code_bits == 8 * sizeof(T)
/// @tparam T the table's element type  @param table the table  @param codec the codec object
/// @return the view, aliasing the table's memory
template <class Codec, class T>
encoded_view<Codec> encoded_view_of(const table_view<T>& table, Codec codec = {}) noexcept;

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/encoded_view.inl>
