#pragma once
/// @file codec_choice.hpp
/// @brief A run-time choice among the library's row codecs, for run-time boundaries only
/// (host-compilable with the CUDA Toolkit's headers, like device/codecs.hpp).
///
/// The library takes a codec as a type (device/codecs.hpp). Where the choice arrives at run time
/// -- the PyTorch binding's `codec="int8"`, a benchmark's `--codec` flag -- it is mapped onto a
/// type once, at that boundary: codec_kind names the library's codecs, codec_from_name parses
/// the one spelling every boundary accepts, and visit_codec calls a generic lambda with the codec
/// a kind names. Code that knows its codec at compile time should use the type directly.

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/device/codecs.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

/// Names one of the library's row codecs (device/codecs.hpp defines each layout).
enum class codec_kind : std::uint8_t {
  fp32,         ///< codecs::fp32 (no compression)
  fp16,         ///< codecs::fp16
  bf16,         ///< codecs::bf16
  int8_affine,  ///< codecs::int8_affine (short name "int8")
  fp8_e4m3,     ///< codecs::fp8_e4m3 (short name "fp8")
  int4_affine   ///< codecs::int4_affine (short name "int4")
};

/// The library's (canonical) name of a codec kind: "fp32", "fp16", "bf16", "int8_affine",
/// "fp8_e4m3", "int4_affine" ("unknown" for a value outside the enum).
/// @param kind the kind  @return its name
constexpr std::string_view to_string(codec_kind kind) noexcept;

/// The codec a name names: a canonical name (to_string) or one of the short names "int8",
/// "fp8", "int4". Host.
/// @param name the name  @return its kind
/// @throws invalid_argument "unknown codec '<name>'", listing the names accepted.
inline codec_kind codec_from_name(std::string_view name);

/// Calls `f(codec)` with a value of the codec type `kind` names and returns what it returns
/// (every instantiation must return the same type). Host.
/// @tparam F callable taking any library codec by value or const reference
/// @param kind which codec  @param f the callable
/// @return what `f` returns
/// @throws invalid_argument for a value outside the enum; whatever `f` throws.
template <class F>
decltype(auto) visit_codec(codec_kind kind, F&& f);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/codec_choice.inl>
