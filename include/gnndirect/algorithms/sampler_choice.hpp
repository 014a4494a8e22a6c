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
constexpr std::string_view to_string(sampling_kind kind) noexcept;

/// Calls `f(sampler)` with the library sampler that `kind` names, keyed by `seed`, and returns
/// what it returns (every instantiation must return the same type). Host.
/// @tparam F callable taking any library sampler by value or const reference
/// @param kind which sampler  @param seed its key  @param f the callable
/// @return what `f` returns
/// @throws invalid_argument for a value outside the enum; whatever `f` throws.
template <class F>
decltype(auto) visit_sampler(sampling_kind kind, std::uint64_t seed, F&& f);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/sampler_choice.inl>
