#pragma once
/// @file codecs.hpp
/// @brief Internals of device/codecs.hpp: the float and affine format bases the codecs derive from
/// and the shared row encoders (not part of the API).

#include <gnndirect/core/config.hpp>
#include <gnndirect/device/row_codec.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

GNNDIRECT_NAMESPACE_BEGIN
namespace codecs {
namespace detail {

/// Scalar float formats: stored as `Bits`-bit codes, decoded through float.
template <class Derived, int Bits>
struct float_format {
  using meta_type = no_row_meta;             ///< no metadata
  static constexpr int code_bits = Bits;     ///< one value a code
  static constexpr int values_per_code = 1;  ///< scalar
  /// Decodes to float, __half or __nv_bfloat16.  @tparam D the destination element type
  template <class D>
  static constexpr bool decodes_to = is_decoded_type_v<D>;

  /// out[0] = the code's value in D (round to nearest even when D is narrower).
  template <class D>
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE void decode(std::uint32_t code, const meta_type&, std::int64_t,
                                                          D* out) const noexcept
  {
    out[0] = numeric::from_float<D>(Derived::to_value(code));
  }
};

/// First column of `x[0..cols)` that is NaN or infinite, or -1.
inline std::int64_t first_non_finite(const float* x, std::int64_t cols) noexcept
{
  for (std::int64_t c = 0; c < cols; ++c) {
    if (!std::isfinite(x[c])) { return c; }
  }
  return -1;
}

/// The smallest float at or above `wanted` (> 0): a row's scale. Rounding up, never to nearest,
/// keeps x / scale within the format's range, and a scale below fp32's smallest subnormal
/// becomes that subnormal (2^-149) instead of 0, so rows of denormal values keep them (a scale
/// of 0 decoded such a row to its offset or to 0, outside the documented bound).
/// @param wanted the exact scale  @return the float scale
inline float scale_at_least(double wanted) noexcept
{
  auto scale = static_cast<float>(wanted);
  if (static_cast<double>(scale) < wanted) { scale = std::nextafter(scale, std::numeric_limits<float>::infinity()); }
  return scale;
}

/// Per-row affine quantisation to `Levels` + 1 codes of `Bits` bits (int8: 255, 4-bit: 15).
template <int Bits, int Levels>
struct affine_format {
  using meta_type = row_affine;              ///< scale and offset, 8 bytes a row, in HBM
  static constexpr int code_bits = Bits;     ///< 8 or 4
  static constexpr int values_per_code = 1;  ///< scalar
  /// Decodes to float, __half or __nv_bfloat16.  @tparam D the destination element type
  template <class D>
  static constexpr bool decodes_to = is_decoded_type_v<D>;

  /// out[0] = scale * code + offset (one fused multiply-add, so host and device agree).
  template <class D>
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE void decode(std::uint32_t code, const meta_type& meta,
                                                          std::int64_t, D* out) const noexcept
  {
    out[0] = numeric::from_float<D>(fmaf(meta.scale, static_cast<float>(code), meta.offset));
  }

  /// Encodes `cols` finite values into codes (`out`, encoded_payload_bytes bytes) and `meta`.
  /// @returns -1, or the first non-finite column (nothing meaningful written then)
  static std::int64_t encode_row(const float* x, std::int64_t cols, std::uint8_t* out, meta_type& meta)
  {
    meta = meta_type{0.0f, 0.0f};
    if (std::int64_t const bad = first_non_finite(x, cols); bad >= 0) { return bad; }
    if (cols == 0) { return -1; }
    float lo = x[0];
    float hi = x[0];
    for (std::int64_t c = 1; c < cols; ++c) {
      lo = std::min(lo, x[c]);
      hi = std::max(hi, x[c]);
    }
    // The range in double: hi - lo of two finite floats may exceed FLT_MAX. The scale rounds up
    // (scale_at_least: no code needs clamping, a denormal range keeps a non-zero scale), unless
    // the top code would then decode beyond FLT_MAX (hi within one scale ulp of it): then one
    // float below, and the top codes clamp.
    double const range = static_cast<double>(hi) - lo;
    float scale = range > 0 ? scale_at_least(range / Levels) : 0.0f;
    if (!std::isfinite(fmaf(scale, static_cast<float>(Levels), lo))) { scale = std::nextafter(scale, 0.0f); }
    meta = meta_type{scale, lo};
    for (std::int64_t c = 0; c < cols; ++c) {
      double q = scale > 0.0f ? std::nearbyint((static_cast<double>(x[c]) - lo) / scale) : 0.0;
      q = std::clamp(q, 0.0, static_cast<double>(Levels));
      auto const code = static_cast<std::uint8_t>(q);
      if constexpr (Bits == 8) {
        out[c] = code;
      } else {
        std::uint8_t& byte = out[c / 2];
        byte = (c % 2 == 0) ? code : static_cast<std::uint8_t>(byte | (code << 4));
      }
    }
    return -1;
  }
};


/// Encodes a row into 16-bit floating-point codes with `convert` (float -> bits, round to nearest
/// even). @return -1, or the first column that is not finite or whose code has every exponent bit
/// of `exponent_mask` set (it rounded to infinity)
/// @tparam Convert callable float -> std::uint16_t
/// @param x, cols the values  @param out the codes  @param convert the conversion
/// @param exponent_mask the format's exponent bits
template <class Convert>
std::int64_t encode_16bit_row(const float* x, std::int64_t cols, std::uint8_t* out, Convert convert,
                              std::uint16_t exponent_mask)
{
  for (std::int64_t c = 0; c < cols; ++c) {
    std::uint16_t const code = convert(x[c]);
    if (!std::isfinite(x[c]) || (code & exponent_mask) == exponent_mask) { return c; }
    std::memcpy(out + 2 * c, &code, 2);
  }
  return -1;
}

}  // namespace detail
}  // namespace codecs
GNNDIRECT_NAMESPACE_END
