#pragma once
/// @file codecs.hpp
/// @brief The library's row codecs (device/row_codec.hpp concept): identity, fp32, fp16, bf16,
/// int8 per-row affine, fp8 e4m3 per-row scale, 4-bit per-row affine. Each decodes (host and
/// device, bit-identical) to fp32, fp16 or bf16 and encodes one row on the host
/// (owners/encoded_table.hpp runs the encoder on all cores).
///
/// Encoders take a row of finite floats and return -1, or the first column whose value they
/// cannot encode (NaN, infinity, or beyond the format's range for fp16/bf16); the caller names the
/// row. Error bounds of the fp32 decode, for every finite input, denormals included (per value x
/// of a row with minimum lo, maximum hi, max |x| amax, M = max(|lo|, |hi|)):
/// - fp16: |x| * 2^-11 + 2^-25 (round to nearest even; fp16 subnormals are multiples of 2^-24,
///   so values below 2^-25, fp32 denormals among them, become 0);
/// - bf16: |x| * 2^-8 + 2^-134 (fp32's exponent range; bf16 subnormals are multiples of 2^-133);
/// - int8: (hi - lo) / 510 + M * 2^-22 + 2^-149; 4-bit: (hi - lo) / 30 + M * 2^-22 + 2^-149
///   (the second and third terms are fp32's own rounding of the scale and of the decoded value,
///   relative and subnormal: a row of denormals keeps them, its scale never flushes to 0);
/// - fp8 e4m3: |x| / 16 + amax * 2^-18 + 2^-149 (amax * 2^-18: e4m3 subnormals; 2^-149: fp32's).
/// A row whose values are all equal decodes exactly with the affine codecs (scale 0: no division
/// by zero); so does an all-zero row with fp8.

#include <gnndirect/device/row_codec.hpp>
#include <gnndirect/detail/device/codecs.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN
namespace codecs {

/// Byte copy of elements of type T (the gather of today: decodes only to T itself).
/// @tparam T the stored and destination element type
template <class T>
struct identity {
  using meta_type = no_row_meta;                                      ///< no metadata
  static constexpr int code_bits = static_cast<int>(8 * sizeof(T));  ///< one element a code
  static constexpr int values_per_code = 1;                          ///< scalar
  /// Decodes only to T.  @tparam D the destination element type
  template <class D>
  static constexpr bool decodes_to = std::is_same_v<D, T>;
  /// Always a byte copy.  @tparam D the destination element type
  template <class D>
  static constexpr bool copies_bytes = std::is_same_v<D, T>;
};

/// Stored fp32: a byte copy to fp32 destinations, rounded to nearest even for fp16/bf16 ones.
struct fp32 : detail::float_format<fp32, 32> {
  /// A byte copy into float rows.  @tparam D the destination element type
  template <class D>
  static constexpr bool copies_bytes = std::is_same_v<D, float>;
  /// The stored value.  @param code the code  @return its value
  GNNDIRECT_HOST_DEVICE static float to_value(std::uint32_t code) noexcept { return numeric::bits_float(code); }
  /// Encodes a row (a copy). @returns -1 or the first non-finite column
  /// @param x, cols the values  @param out the codes (the metadata argument is unnamed: none kept)
  static std::int64_t encode_row(const float* x, std::int64_t cols, std::uint8_t* out, no_row_meta&);
};

/// Stored IEEE fp16 (2 bytes a value, no metadata).
struct fp16 : detail::float_format<fp16, 16> {
  /// A byte copy into __half rows.  @tparam D the destination element type
  template <class D>
  static constexpr bool copies_bytes = std::is_same_v<D, __half>;
  /// The stored value as float (exact).  @param code the code  @return its value
  GNNDIRECT_HOST_DEVICE static float to_value(std::uint32_t code) noexcept { return numeric::half_to_float(code); }
  /// Encodes a row (round to nearest even). @returns -1 or the first column that is not finite
  /// or whose magnitude rounds beyond fp16's 65504
  /// @param x, cols the values  @param out the codes (the metadata argument is unnamed: none kept)
  static std::int64_t encode_row(const float* x, std::int64_t cols, std::uint8_t* out, no_row_meta&);
};

/// Stored bfloat16 (2 bytes a value, fp32's range, no metadata).
struct bf16 : detail::float_format<bf16, 16> {
  /// A byte copy into __nv_bfloat16 rows.  @tparam D the destination element type
  template <class D>
  static constexpr bool copies_bytes = std::is_same_v<D, __nv_bfloat16>;
  /// The stored value as float (exact).  @param code the code  @return its value
  GNNDIRECT_HOST_DEVICE static float to_value(std::uint32_t code) noexcept { return numeric::bf16_to_float(code); }
  /// Encodes a row (round to nearest even). @returns -1 or the first column that is not finite
  /// or rounds to infinity
  /// @param x, cols the values  @param out the codes (the metadata argument is unnamed: none kept)
  static std::int64_t encode_row(const float* x, std::int64_t cols, std::uint8_t* out, no_row_meta&);
};

/// int8 per-row affine: 1 byte a value, scale and offset per row in HBM (row_affine, 8 bytes).
/// A row of 100 features is 100 bytes (a 128-byte line once padded): 4x fewer link bytes than fp32.
struct int8_affine : detail::affine_format<8, 255> {};

/// 4-bit per-row affine: two values a byte (low nibble first), row_affine per row in HBM.
struct int4_affine : detail::affine_format<4, 15> {};

/// fp8 e4m3 (OCP FN) with a per-row scale in HBM (row_scale, 4 bytes): value = scale * e4m3(code),
/// scale = the row's max |x| / 448, so every row uses the format's whole range.
struct fp8_e4m3 {
  using meta_type = row_scale;               ///< 4 bytes a row, in HBM
  static constexpr int code_bits = 8;        ///< one byte a value
  static constexpr int values_per_code = 1;  ///< scalar
  /// Decodes to float, __half or __nv_bfloat16.  @tparam D the destination element type
  template <class D>
  static constexpr bool decodes_to = is_decoded_type_v<D>;

  /// out[0] = scale * e4m3(code) (one rounding).
  /// @tparam D the destination element type  @param code the code  @param meta the row's scale
  /// @param out one value written (the column argument is unnamed: unused)
  template <class D>
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE void decode(std::uint32_t code, const meta_type& meta,
                                                          std::int64_t, D* out) const noexcept;

  /// Encodes a row. @returns -1 or the first non-finite column. An all-zero row gets scale 0.
  /// The scale is amax / 448 rounded up (a row of denormals keeps a non-zero scale, at least
  /// 2^-149), one float lower when 448 x scale would overflow (amax near FLT_MAX; the top codes
  /// then saturate at 448).
  /// @param x, cols the values  @param out the codes  @param meta the row's scale
  static std::int64_t encode_row(const float* x, std::int64_t cols, std::uint8_t* out, meta_type& meta);
};

}  // namespace codecs

static_assert(is_row_codec_v<codecs::fp32> && is_row_codec_v<codecs::fp16> && is_row_codec_v<codecs::bf16> &&
              is_row_codec_v<codecs::int8_affine> && is_row_codec_v<codecs::int4_affine> &&
              is_row_codec_v<codecs::fp8_e4m3> && is_row_codec_v<codecs::identity<float>>);
static_assert(sizeof(row_affine) == 8, "per-row metadata is 8 bytes a row");

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/device/codecs.inl>
