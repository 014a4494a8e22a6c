#pragma once
/// @file decode_row.cuh
/// @brief Device primitive: copy encoded rows with a tile of threads and decode them in registers
/// (device/row_codec.hpp), keeping copy_rows' properties: 16-byte loads of the *encoded* row, the
/// remote side's accesses starting on its 128-byte line, several rows in flight. Each lane loads
/// V encoded bytes at encoded offset o and stores the decoded values at o * expansion of the
/// destination row, so the host link carries encoded bytes and HBM receives decoded ones. Inline it
/// in any kernel; the bulk gather (algorithms/gather.cuh) and the tiered gather are built from it.
///
/// @code
///   auto tile = cg::tiled_partition<8>(cg::this_thread_block());
///   gnndirect::encoded_copy<gnndirect::row_affine> rows[1] = {{enc.row(r), out_row, 0, enc.meta[r]}};
///   gnndirect::decode_rows<16, 16, 1, float>(tile, enc.codec, rows, enc.load_bytes(), cols * 4);
/// @endcode

#include <gnndirect/core/config.hpp>
#include <gnndirect/device/copy_row.cuh>
#include <gnndirect/device/row_codec.hpp>
#include <gnndirect/detail/device/decode_row.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// One encoded row to copy and decode: `src` null zero-fills the destination row (a rejected
/// index); `dst` null means nothing to do. `head` = line_head() of the remote address (of the
/// encoded row). `meta` = the row's metadata (read from HBM by the caller, by row id).
/// @tparam Meta the codec's meta_type
template <class Meta>
struct encoded_copy {
  const std::uint8_t* src{nullptr};  ///< encoded row start (any device-visible memory)
  std::byte* dst{nullptr};           ///< decoded row start; null = inactive
  std::int64_t head{0};              ///< bytes before the remote row start within its 128-B line
  Meta meta{};                       ///< the row's metadata
};

/// Decoded bytes per encoded byte of codec `C` into `D` (may be below 1: fp32 into fp16), as the
/// bytes one V-byte load of codes decodes to.
/// @tparam C the codec  @tparam D the destination element type  @tparam V bytes per load of codes
template <class C, class D, int V>
inline constexpr int decoded_bytes_per_load = V * 8 / C::code_bits * C::values_per_code * static_cast<int>(sizeof(D));

/// Copies `Rows` encoded rows at once with one tile and decodes them with `codec` into `D`
/// elements: every thread first issues the loads of `Rows` rows x (4 / Rows) steps, then decodes
/// and stores (as copy_rows). When decoding is a byte copy (codec_copies_bytes_v) this is
/// copy_rows itself.
///
/// @tparam V encoded vector bytes (16, 8, 4, 2, 1; at least one code): divides every encoded row
///         address and `src_bytes`
/// @tparam W destination vector bytes: divides every destination row address and
///         decoded_bytes_per_load<Codec, D, V>; at least sizeof(D)
/// @tparam Rows rows in flight (1, 2 or 4)  @tparam D destination element type (static_assert when
///         the codec cannot produce it)
/// @tparam Codec the codec  @tparam Tile a tile type (dynamic_tile or a cooperative-groups tile)
/// @param tile the calling tile  @param codec the codec object
/// @param rows the rows (inactive ones have dst null)
/// @param src_bytes encoded bytes loaded per row (a multiple of V; may include padding)
/// @param dst_bytes decoded bytes per row (cols * sizeof(D)): nothing past it is written
/// No synchronisation, no bounds checks beyond the rows themselves.
template <int V, int W, int Rows, class D, class Codec, class Tile>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE void decode_rows(const Tile& tile, const Codec& codec,
                                                        const encoded_copy<typename Codec::meta_type> (&rows)[Rows],
                                                        std::size_t src_bytes, std::size_t dst_bytes) noexcept
{
  static_assert(is_row_codec_v<Codec>, "decode_rows: Codec must model the row-codec concept (device/row_codec.hpp)");
  static_assert(codec_decodes_to_v<Codec, D>,
                "decode_rows: this codec cannot produce the destination element type D "
                "(the library's codecs decode to float, __half or __nv_bfloat16)");
  static_assert(V == 16 || V == 8 || V == 4 || V == 2 || V == 1, "decode_rows: V must be 16, 8, 4, 2 or 1 bytes");
  static_assert(Rows == 1 || Rows == 2 || Rows == 4, "decode_rows: Rows must be 1, 2 or 4");
  if constexpr (codec_copies_bytes_v<Codec, D>) {
    row_copy copies[Rows];
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      copies[r] = row_copy{reinterpret_cast<const std::byte*>(rows[r].src), rows[r].dst, rows[r].head};
    }
    copy_rows<V, Rows>(tile, copies, dst_bytes);
  } else {
    static_assert(Codec::code_bits <= 32 && V * 8 >= Codec::code_bits,
                  "decode_rows: a load of V bytes must hold whole codes of at most 32 bits");
    constexpr int codes = V * 8 / Codec::code_bits;
    constexpr int values = codes * Codec::values_per_code;
    constexpr int out_bytes = values * static_cast<int>(sizeof(D));
    static_assert(W >= static_cast<int>(sizeof(D)) && out_bytes % W == 0,
                  "decode_rows: W must be a multiple of sizeof(D) dividing the decoded bytes of one load");
    using vec = typename detail::vector_of<V>::type;
    auto const decoded_bytes = static_cast<std::int64_t>(dst_bytes);
    detail::for_each_row_vector<V, Rows>(
      tile, rows, static_cast<std::int64_t>(src_bytes), [&](int r, std::int64_t offset, const vec& loaded) {
        std::int64_t const first_code = offset * 8 / Codec::code_bits;
        std::int64_t const dst_offset = first_code * Codec::values_per_code * static_cast<std::int64_t>(sizeof(D));
        if (dst_offset >= decoded_bytes) { return; }  // padding codes past the row's values
        alignas(16) D decoded[values];
        if (rows[r].src != nullptr) {
#pragma unroll
          for (int k = 0; k < codes; ++k) {
            codec.template decode<D>(detail::code_at<Codec::code_bits, V>(loaded, k), rows[r].meta, first_code + k,
                                     decoded + k * Codec::values_per_code);
          }
        } else {
#pragma unroll
          for (int k = 0; k < values; ++k) { decoded[k] = numeric::from_float<D>(0.0f); }
        }
        detail::store_decoded<W, out_bytes>(rows[r].dst, dst_offset, decoded_bytes, decoded);
      });
  }
}

/// Copies and decodes one encoded row with the calling tile (every thread of the tile calls it
/// with the same arguments). Parameters as decode_rows; `remote` is the encoded row's address when
/// it lies in host memory (its accesses then start on its 128-byte line), else null.
/// @tparam V, W, D, Codec, Tile as decode_rows  @tparam Align128 as copy_row
/// @param tile the calling tile  @param codec the codec object  @param src the row's codes
/// @param meta its metadata  @param dst its decoded destination
/// @param src_bytes, dst_bytes as decode_rows
/// @param remote the host-resident side's address, or null
template <int V, int W, class D, bool Align128 = true, class Codec, class Tile>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE void decode_row(const Tile& tile, const Codec& codec, const std::uint8_t* src,
                                                       const typename Codec::meta_type& meta, D* dst,
                                                       std::size_t src_bytes, std::size_t dst_bytes,
                                                       const void* remote) noexcept
{
  encoded_copy<typename Codec::meta_type> const rows[1] = {encoded_copy<typename Codec::meta_type>{
    src, reinterpret_cast<std::byte*>(dst), line_head<Align128>(remote, src_bytes), meta}};
  decode_rows<V, W, 1, D>(tile, codec, rows, src_bytes, dst_bytes);
}

GNNDIRECT_NAMESPACE_END
