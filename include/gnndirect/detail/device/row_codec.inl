#pragma once
// Definitions of device/row_codec.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class D, class Codec>
void host_decode_row(
  const Codec& codec, const std::uint8_t* codes, const typename Codec::meta_type& meta, std::int64_t cols, D* out)
{
  static_assert(codec_decodes_to_v<Codec, D>, "host_decode_row: this codec cannot produce D");
  if constexpr (codec_copies_bytes_v<Codec, D>) {
    std::memcpy(out, codes, static_cast<std::size_t>(cols) * sizeof(D));
  } else {
    constexpr int k_values = Codec::values_per_code;
    std::int64_t const codes_per_row = (cols + k_values - 1) / k_values;
    for (std::int64_t k = 0; k < codes_per_row; ++k) {
      std::uint32_t code = 0;
      if constexpr (Codec::code_bits == 4) {
        code = (codes[k / 2] >> ((k % 2) * 4)) & 0xfu;
      } else {
        std::memcpy(&code, codes + k * (Codec::code_bits / 8), Codec::code_bits / 8);  // little-endian
      }
      D values[k_values];
      codec.template decode<D>(code, meta, k, values);
      for (int v = 0; v < k_values && k * k_values + v < cols; ++v) { out[k * k_values + v] = values[v]; }
    }
  }
}

namespace numeric {

GNNDIRECT_HOST_DEVICE inline std::uint32_t float_bits(float f) noexcept
{
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

GNNDIRECT_HOST_DEVICE inline float bits_float(std::uint32_t u) noexcept
{
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

GNNDIRECT_HOST_DEVICE inline float half_to_float(std::uint32_t h) noexcept
{
  std::uint32_t const sign = (h & 0x8000u) << 16;
  std::uint32_t const exp = (h >> 10) & 0x1fu;
  std::uint32_t const mant = h & 0x3ffu;
  if (exp == 0) {
    float const magnitude = static_cast<float>(mant) * 5.9604644775390625e-8f;  // mant * 2^-24, exact
    return bits_float(float_bits(magnitude) | sign);
  }
  if (exp == 31) { return bits_float(sign | 0x7f800000u | (mant << 13)); }
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

GNNDIRECT_HOST_DEVICE inline std::uint16_t float_to_half(float f) noexcept
{
  std::uint32_t x = float_bits(f);
  auto const sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) { return static_cast<std::uint16_t>(sign | 0x7c00u | (x > 0x7f800000u ? 0x200u : 0u)); }
  if (x >= 0x477ff000u) { return static_cast<std::uint16_t>(sign | 0x7c00u); }  // >= 65520 rounds to inf
  if (x < 0x38800000u) {  // below 2^-14: a subnormal half, |f| * 2^24 < 1024 exactly
    float const scaled = bits_float(x) * 16777216.0f;
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(rintf(scaled)));
  }
  std::uint32_t adjusted = x - (112u << 23);
  adjusted += 0xfffu + ((adjusted >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | (adjusted >> 13));
}

GNNDIRECT_HOST_DEVICE inline std::uint16_t float_to_bf16(float f) noexcept
{
  std::uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) { return static_cast<std::uint16_t>((x >> 16) | 0x40u); }
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

GNNDIRECT_HOST_DEVICE inline float e4m3_to_float(std::uint32_t c) noexcept
{
  std::uint32_t const sign = (c & 0x80u) << 24;
  std::uint32_t const exp = (c >> 3) & 0xfu;
  std::uint32_t const mant = c & 7u;
  if (exp == 0) { return bits_float(float_bits(static_cast<float>(mant) * 0.001953125f) | sign); }  // * 2^-9
  if (exp == 15 && mant == 7) { return bits_float(sign | 0x7fc00000u); }
  return bits_float(sign | ((exp + 120u) << 23) | (mant << 20));
}

GNNDIRECT_HOST_DEVICE inline std::uint8_t float_to_e4m3(float f) noexcept
{
  std::uint32_t const x = float_bits(f);
  auto const sign = static_cast<std::uint32_t>((x >> 24) & 0x80u);
  std::uint32_t const a = x & 0x7fffffffu;
  if (a >= float_bits(e4m3_max)) { return static_cast<std::uint8_t>(sign | 0x7eu); }
  if (a < 0x3c800000u) {  // below 2^-6: subnormal, |f| * 2^9 < 8 exactly
    float const scaled = bits_float(a) * 512.0f;
    return static_cast<std::uint8_t>(sign | static_cast<std::uint32_t>(rintf(scaled)));
  }
  std::uint32_t adjusted = a - (120u << 23);
  adjusted += 0x7ffffu + ((adjusted >> 20) & 1u);
  std::uint32_t const code = adjusted >> 20;
  return static_cast<std::uint8_t>(sign | (code > 0x7eu ? 0x7eu : code));
}

template <class D>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE D from_float(float f) noexcept
{
  if constexpr (std::is_same_v<D, float>) {
    return f;
  } else if constexpr (std::is_same_v<D, __half>) {
#if defined(__CUDA_ARCH__)
    return __float2half_rn(f);
#else
    __half_raw raw;
    raw.x = float_to_half(f);
    return __half(raw);
#endif
  } else {
    static_assert(std::is_same_v<D, __nv_bfloat16>, "from_float: destination must be float, __half or __nv_bfloat16");
#if defined(__CUDA_ARCH__)
    return __float2bfloat16_rn(f);
#else
    __nv_bfloat16_raw raw;
    raw.x = float_to_bf16(f);
    return __nv_bfloat16(raw);
#endif
  }
}

template <class D>
GNNDIRECT_HOST_DEVICE inline float to_float(D v) noexcept
{
  if constexpr (std::is_same_v<D, float>) {
    return v;
  } else if constexpr (std::is_same_v<D, __half>) {
    return half_to_float(static_cast<__half_raw>(v).x);
  } else {
    return bf16_to_float(static_cast<__nv_bfloat16_raw>(v).x);
  }
}

}  // namespace numeric
GNNDIRECT_NAMESPACE_END
