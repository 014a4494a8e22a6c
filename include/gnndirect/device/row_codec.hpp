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
                     std::int64_t cols, D* out);

/// Bit-exact number conversions shared by the host reference and the kernels (host and device).
namespace numeric {

/// The bits of a float.  @param f the float  @return its bits
GNNDIRECT_HOST_DEVICE inline std::uint32_t float_bits(float f) noexcept;
/// The float with these bits.  @param u the bits  @return the float
GNNDIRECT_HOST_DEVICE inline float bits_float(std::uint32_t u) noexcept;

/// IEEE binary16 bits to float (exact).  @param h the bits (low 16)  @return the value
GNNDIRECT_HOST_DEVICE inline float half_to_float(std::uint32_t h) noexcept;

/// float to IEEE binary16 bits, round to nearest even; overflow gives infinity.
/// @param f the value  @return the bits
GNNDIRECT_HOST_DEVICE inline std::uint16_t float_to_half(float f) noexcept;

/// bfloat16 bits to float (exact).  @param b the bits (low 16)  @return the value
GNNDIRECT_HOST_DEVICE inline float bf16_to_float(std::uint32_t b) noexcept { return bits_float(b << 16); }

/// float to bfloat16 bits, round to nearest even (NaN stays NaN).  @param f the value
/// @return the bits
GNNDIRECT_HOST_DEVICE inline std::uint16_t float_to_bf16(float f) noexcept;

/// Largest finite fp8 e4m3 value (OCP "FN" variant: no infinities, S.1111.111 is NaN).
inline constexpr float e4m3_max = 448.0f;

/// fp8 e4m3 bits to float (exact).  @param c the bits (low 8)  @return the value
GNNDIRECT_HOST_DEVICE inline float e4m3_to_float(std::uint32_t c) noexcept;

/// float to fp8 e4m3 bits, round to nearest even, saturating at +-448 (callers reject NaN).
/// @param f the value  @return the bits
GNNDIRECT_HOST_DEVICE inline std::uint8_t float_to_e4m3(float f) noexcept;

/// float to a destination element type (round to nearest even). Host and device give the same
/// bits: the device uses the hardware conversions, which round the same way.
/// @tparam D float, __half or __nv_bfloat16  @param f the value  @return it converted
template <class D>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE D from_float(float f) noexcept;

/// A destination element type's value as float (exact). Host and device.
/// @tparam D float, __half or __nv_bfloat16  @param v the value  @return it as float
template <class D>
GNNDIRECT_HOST_DEVICE inline float to_float(D v) noexcept;

}  // namespace numeric

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/device/row_codec.inl>
