#pragma once
// Definitions of algorithms/codec_choice.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

constexpr std::string_view to_string(codec_kind kind) noexcept
{
  switch (kind) {
    case codec_kind::fp32: return "fp32";
    case codec_kind::fp16: return "fp16";
    case codec_kind::bf16: return "bf16";
    case codec_kind::int8_affine: return "int8_affine";
    case codec_kind::fp8_e4m3: return "fp8_e4m3";
    case codec_kind::int4_affine: return "int4_affine";
  }
  return "unknown";
}

inline codec_kind codec_from_name(std::string_view name)
{
  if (name == "int8") { return codec_kind::int8_affine; }
  if (name == "fp8") { return codec_kind::fp8_e4m3; }
  if (name == "int4") { return codec_kind::int4_affine; }
  for (codec_kind kind : {codec_kind::fp32, codec_kind::fp16, codec_kind::bf16, codec_kind::int8_affine,
                          codec_kind::fp8_e4m3, codec_kind::int4_affine}) {
    if (name == to_string(kind)) { return kind; }
  }
  throw invalid_argument(__FILE__, __LINE__,
                         "unknown codec '" + std::string(name) +
                           "' (known: fp32, fp16, bf16, int8_affine (int8), fp8_e4m3 (fp8), "
                           "int4_affine (int4))");
}

template <class F>
decltype(auto) visit_codec(codec_kind kind, F&& f)
{
  switch (kind) {
    case codec_kind::fp32: return std::forward<F>(f)(codecs::fp32{});
    case codec_kind::fp16: return std::forward<F>(f)(codecs::fp16{});
    case codec_kind::bf16: return std::forward<F>(f)(codecs::bf16{});
    case codec_kind::int8_affine: return std::forward<F>(f)(codecs::int8_affine{});
    case codec_kind::fp8_e4m3: return std::forward<F>(f)(codecs::fp8_e4m3{});
    case codec_kind::int4_affine: return std::forward<F>(f)(codecs::int4_affine{});
  }
  throw invalid_argument(__FILE__, __LINE__,
                         "visit_codec: unknown codec_kind " + std::to_string(static_cast<int>(kind)));
}

GNNDIRECT_NAMESPACE_END
