#pragma once
/// @file sampler_choice.hpp
/// @brief A run-time choice among the library's samplers, for run-time boundaries only
/// (host-compilable).
///
/// The library's sampling API takes the sampler as a type (device/samplers.hpp). Where the choice
/// arrives at run time -- the PyTorch binding's arguments, a command-line flag -- it has to be
/// mapped onto a type once, at that boundary: sampling_kind names the library's three samplers
/// and visit_sampler calls a generic lambda with the one a kind names. Code that knows its
/// sampler at compile time should use the type directly (and compiles only that sampler's
/// kernels); visit_sampler instantiates the caller's lambda for all three.

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/device/samplers.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

/// Names one of the library's samplers (device/samplers.hpp defines what each draws).
enum class sampling_kind : std::uint8_t {
  uniform_without_replacement,  ///< uniform_sampler
  uniform_with_replacement,     ///< uniform_with_replacement_sampler
  weighted_without_replacement  ///< weighted_sampler
};

/// Stable lower-case name of a sampling kind ("unknown" for a value outside the enum).
/// @param kind the kind  @return its name
constexpr std::string_view to_string(sampling_kind kind) noexcept
{
  switch (kind) {
    case sampling_kind::uniform_without_replacement: return "uniform_without_replacement";
    case sampling_kind::uniform_with_replacement: return "uniform_with_replacement";
    case sampling_kind::weighted_without_replacement: return "weighted_without_replacement";
  }
  return "unknown";
}

/// Calls `f(sampler)` with the library sampler that `kind` names, keyed by `seed`, and returns
/// what it returns (every instantiation must return the same type). Host.
/// @tparam F callable taking any library sampler by value or const reference
/// @param kind which sampler  @param seed its key  @param f the callable
/// @return what `f` returns
/// @throws invalid_argument for a value outside the enum; whatever `f` throws.
template <class F>
decltype(auto) visit_sampler(sampling_kind kind, std::uint64_t seed, F&& f)
{
  switch (kind) {
    case sampling_kind::uniform_without_replacement: return std::forward<F>(f)(uniform_sampler{seed});
    case sampling_kind::uniform_with_replacement:
      return std::forward<F>(f)(uniform_with_replacement_sampler{seed});
    case sampling_kind::weighted_without_replacement: return std::forward<F>(f)(weighted_sampler{seed});
  }
  throw invalid_argument(__FILE__, __LINE__,
                         "visit_sampler: unknown sampling_kind " +
                           std::to_string(static_cast<int>(kind)));
}

GNNDIRECT_NAMESPACE_END
