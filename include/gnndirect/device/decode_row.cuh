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
                                                        std::size_t src_bytes, std::size_t dst_bytes) noexcept;

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
                                                       const void* remote) noexcept;

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/device/decode_row.inl>
