#pragma once
// Definitions of device/decode_row.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <int V, int W, int Rows, class D, class Codec, class Tile>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE void decode_rows(
  const Tile& tile, const Codec& codec, const encoded_copy<typename Codec::meta_type> (&rows)[Rows],
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

template <int V, int W, class D, bool Align128, class Codec, class Tile>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE void decode_row(
  const Tile& tile, const Codec& codec, const std::uint8_t* src, const typename Codec::meta_type& meta, D* dst,
  std::size_t src_bytes, std::size_t dst_bytes, const void* remote) noexcept
{
  encoded_copy<typename Codec::meta_type> const rows[1] = {encoded_copy<typename Codec::meta_type>{
    src, reinterpret_cast<std::byte*>(dst), line_head<Align128>(remote, src_bytes), meta}};
  decode_rows<V, W, 1, D>(tile, codec, rows, src_bytes, dst_bytes);
}

GNNDIRECT_NAMESPACE_END
