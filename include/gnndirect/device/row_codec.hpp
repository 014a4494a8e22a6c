#pragma once
/// @file row_codec.hpp
/// @brief The row-codec concept: how the stored (encoded) elements of a row become the values a
/// gather writes, as a type. A codec decodes in registers, after the copy's 16-byte loads of the
/// encoded row, so the host link carries encoded bytes and HBM receives decoded ones
/// (device/decode_row.cuh). Host and device; needs the CUDA Toolkit's include path (cuda_fp16.h,
/// cuda_bf16.h for the destination types) but compiles with a host compiler.
///
/// A type `C` is a row codec when it is trivially copyable (it travels to kernels inside the row
/// source) and has:
/// @code
///   using meta_type = M;                      // per-row metadata, kept in HBM and indexed by row
///                                             //   id (no_row_meta: none; row_affine: 8 bytes)
///   static constexpr int code_bits = B;       // bits of one code: 4, 8, 16, 32 (64: byte copies)
///   static constexpr int values_per_code = K; // values one code decodes to (1: scalar codecs;
///                                             //   K > 1: e.g. a codebook of K-value sub-rows)
///   template <class D> static constexpr bool decodes_to = ...;  // destination types it produces
///   template <class D> __host__ __device__
///   void decode(std::uint32_t code, const M& meta, std::int64_t code_index, D* out) const;
///                                             // out[0..K) = the values of code number code_index
///                                             //   of the row (codes packed little-endian, the
///                                             //   low nibble first for 4-bit codes)
/// @endcode
/// Optional: `template <class D> static constexpr bool copies_bytes` (true when decoding to `D` is
/// a plain byte copy: the copy then is exactly copy_rows). The library's codecs live in
/// device/codecs.hpp; test/gpu/test_codecs.cu has a user codec (a codebook lookup).

#include <gnndirect/core/config.hpp>
#include <gnndirect/detail/device/row_codec.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

/// Metadata of codecs that keep none per row.
struct no_row_meta {};

/// Per-row affine metadata (8 bytes, in HBM): value = scale * code + offset.
struct row_affine {
  float scale;   ///< step between consecutive codes (0 for a row whose values are all equal)
  float offset;  ///< value of code 0 (the row's minimum)
};

/// Per-row scale (4 bytes, in HBM): value = scale * decode(code).
struct row_scale {
  float scale;  ///< the row's max |value| / the format's largest finite value (0: all-zero row)
};

/// True for the destination element types a library codec can write (fp32, fp16, bf16).
/// @tparam D the type to test
template <class D>
inline constexpr bool is_decoded_type_v =
  std::is_same_v<D, float> || std::is_same_v<D, __half> || std::is_same_v<D, __nv_bfloat16>;

/// True when `C` models the row-codec concept (see the file comment).
/// @tparam C the type to test
template <class C, class = void>
struct is_row_codec : std::false_type {};

/// The case where every member exists: their values are checked too.  @tparam C the type to test
template <class C>
struct is_row_codec<C, std::void_t<typename C::meta_type, decltype(C::code_bits), decltype(C::values_per_code)>>
  : std::bool_constant<std::is_trivially_copyable_v<C> &&
                       (C::code_bits == 4 || C::code_bits == 8 || C::code_bits == 16 || C::code_bits == 32 ||
                        C::code_bits == 64) &&
                       C::values_per_code >= 1> {};

/// Shorthand for is_row_codec<C>::value.  @tparam C the type to test
template <class C>
inline constexpr bool is_row_codec_v = is_row_codec<C>::value;

/// True when codec `C` can write destination elements of type `D` (C::decodes_to<D>).
/// @tparam C the codec  @tparam D the destination element type (const ignored)
template <class C, class D>
inline constexpr bool codec_decodes_to_v = C::template decodes_to<std::remove_const_t<D>>;

/// True when decoding `C` to `D` is a byte copy (identity): the copy then is copy_rows itself.
/// @tparam C the codec  @tparam D the destination element type (const ignored)
template <class C, class D>
inline constexpr bool codec_copies_bytes_v = detail::copies_bytes<C, std::remove_const_t<D>>::value;

/// Encoded bytes holding `cols` decoded values of codec `C` (whole bytes; 4-bit rows round up).
/// @tparam C the codec  @param cols decoded values per row  @return the bytes
template <class C>
GNNDIRECT_HOST_DEVICE constexpr std::int64_t encoded_payload_bytes(std::int64_t cols) noexcept
{
  std::int64_t const codes = (cols + C::values_per_code - 1) / C::values_per_code;
  return (codes * C::code_bits + 7) / 8;
}

/// Decodes one encoded row on the host into `cols` values of D (the reference the kernels are
/// compared with bit for bit: the same codec.decode, the same conversions). Host only.
/// @tparam D the decoded type  @tparam Codec the codec
/// @param codec the codec object  @param codes the row's codes  @param meta its metadata
/// @param cols values to decode  @param out cols values written
template <class D, class Codec>
void host_decode_row(const Codec& codec, const std::uint8_t* codes, const typename Codec::meta_type& meta,
                     std::int64_t cols, D* out)
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

/// Bit-exact number conversions shared by the host reference and the kernels (host and device).
namespace numeric {

/// The bits of a float.  @param f the float  @return its bits
GNNDIRECT_HOST_DEVICE inline std::uint32_t float_bits(float f) noexcept
{
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
/// The float with these bits.  @param u the bits  @return the float
GNNDIRECT_HOST_DEVICE inline float bits_float(std::uint32_t u) noexcept
{
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// IEEE binary16 bits to float (exact).  @param h the bits (low 16)  @return the value
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

/// float to IEEE binary16 bits, round to nearest even; overflow gives infinity.
/// @param f the value  @return the bits
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

/// bfloat16 bits to float (exact).  @param b the bits (low 16)  @return the value
GNNDIRECT_HOST_DEVICE inline float bf16_to_float(std::uint32_t b) noexcept { return bits_float(b << 16); }

/// float to bfloat16 bits, round to nearest even (NaN stays NaN).  @param f the value
/// @return the bits
GNNDIRECT_HOST_DEVICE inline std::uint16_t float_to_bf16(float f) noexcept
{
  std::uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) { return static_cast<std::uint16_t>((x >> 16) | 0x40u); }
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

/// Largest finite fp8 e4m3 value (OCP "FN" variant: no infinities, S.1111.111 is NaN).
inline constexpr float e4m3_max = 448.0f;

/// fp8 e4m3 bits to float (exact).  @param c the bits (low 8)  @return the value
GNNDIRECT_HOST_DEVICE inline float e4m3_to_float(std::uint32_t c) noexcept
{
  std::uint32_t const sign = (c & 0x80u) << 24;
  std::uint32_t const exp = (c >> 3) & 0xfu;
  std::uint32_t const mant = c & 7u;
  if (exp == 0) { return bits_float(float_bits(static_cast<float>(mant) * 0.001953125f) | sign); }  // * 2^-9
  if (exp == 15 && mant == 7) { return bits_float(sign | 0x7fc00000u); }
  return bits_float(sign | ((exp + 120u) << 23) | (mant << 20));
}

/// float to fp8 e4m3 bits, round to nearest even, saturating at +-448 (callers reject NaN).
/// @param f the value  @return the bits
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

/// float to a destination element type (round to nearest even). Host and device give the same
/// bits: the device uses the hardware conversions, which round the same way.
/// @tparam D float, __half or __nv_bfloat16  @param f the value  @return it converted
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

/// A destination element type's value as float (exact). Host and device.
/// @tparam D float, __half or __nv_bfloat16  @param v the value  @return it as float
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
