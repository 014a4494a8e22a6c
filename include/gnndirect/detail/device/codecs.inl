#pragma once
// Definitions of device/codecs.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

namespace codecs {

inline auto fp32::encode_row(const float* x, std::int64_t cols, std::uint8_t* out, no_row_meta&) -> std::int64_t
{
  if (std::int64_t const bad = detail::first_non_finite(x, cols); bad >= 0) { return bad; }
  std::memcpy(out, x, static_cast<std::size_t>(cols) * sizeof(float));
  return -1;
}

inline auto fp16::encode_row(const float* x, std::int64_t cols, std::uint8_t* out, no_row_meta&) -> std::int64_t
{
  return detail::encode_16bit_row(x, cols, out, [](float v) { return numeric::float_to_half(v); }, 0x7c00u);
}

inline auto bf16::encode_row(const float* x, std::int64_t cols, std::uint8_t* out, no_row_meta&) -> std::int64_t
{
  return detail::encode_16bit_row(x, cols, out, [](float v) { return numeric::float_to_bf16(v); }, 0x7f80u);
}

template <class D>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE auto fp8_e4m3::decode(
  std::uint32_t code, const meta_type& meta, std::int64_t, D* out) const noexcept -> void
{
  out[0] = numeric::from_float<D>(numeric::e4m3_to_float(code) * meta.scale);
}

inline auto fp8_e4m3::encode_row(const float* x, std::int64_t cols, std::uint8_t* out, meta_type& meta) -> std::int64_t
{
  meta = meta_type{0.0f};
  if (std::int64_t const bad = detail::first_non_finite(x, cols); bad >= 0) { return bad; }
  float amax = 0.0f;
  for (std::int64_t c = 0; c < cols; ++c) { amax = std::max(amax, std::fabs(x[c])); }
  float scale = amax > 0.0f ? detail::scale_at_least(static_cast<double>(amax) / numeric::e4m3_max) : 0.0f;
  if (!std::isfinite(scale * numeric::e4m3_max)) { scale = std::nextafter(scale, 0.0f); }
  meta.scale = scale;
  for (std::int64_t c = 0; c < cols; ++c) {
    out[c] = scale > 0.0f ? numeric::float_to_e4m3(x[c] / scale) : std::uint8_t{0};
  }
  return -1;
}

}  // namespace codecs

GNNDIRECT_NAMESPACE_END
