#pragma once
/// @file typed_samplers.hpp
/// @brief Which sampler each relation of a typed graph draws with: one sampler type for all
/// relations (pass the sampler itself), or a per-relation choice among a list of sampler types
/// (per_relation_samplers) (host-compilable).
///
/// Samplers stay types (device/samplers.hpp): the typed calls instantiate their kernels for
/// every type in the list and pick relation r's at the host boundary of each launch, so a
/// framework's own sampler can serve some relations and the library's others.

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/device/samplers.hpp>

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// A list of sampler types and, per relation, which of them it uses, e.g.
/// `per_relation_samplers<uniform_sampler, weighted_sampler>{{}, {0, 1, 0}}`: relations 0 and 2
/// draw uniformly, relation 1 by edge weight. choice needs one entry per relation of the graph.
/// A host-side value (it holds a std::vector): only the chosen sampler reaches a kernel.
/// @tparam Samplers models of the sampler concept (device/samplers.hpp)
template <class... Samplers>
struct per_relation_samplers {
  static_assert(sizeof...(Samplers) >= 1, "per_relation_samplers: at least one sampler type");
  static_assert((is_sampler_v<Samplers> && ...),
                "per_relation_samplers: every type must model the sampler concept (device/samplers.hpp)");
  std::tuple<Samplers...> samplers;  ///< one sampler of each type
  std::vector<int> choice;           ///< choice[r]: index into `samplers` of relation r's sampler
};

/// True for per_relation_samplers.  @tparam T the type to test
template <class T>
struct is_per_relation_samplers : std::false_type {};
/// The per_relation_samplers case.  @tparam S the sampler types
template <class... S>
struct is_per_relation_samplers<per_relation_samplers<S...>> : std::true_type {};

/// Calls `f(sampler)` with relation r's sampler: `samplers` itself when it is one sampler,
/// else the choice[r]-th of the list (each type's call is compiled; the index selects one).
/// The typed samplers (sample_typed_blocks_async, the typed preparer) dispatch through it; a
/// caller needs it only to run its own per-relation code with the same choice. Host-side.
/// @param samplers a sampler or a per_relation_samplers  @param r the relation index
/// @param f callable taking any of the sampler types
/// f is called exactly once, with a const reference to the chosen sampler.
/// @throws invalid_argument when a per_relation_samplers has no valid choice for r (f is not
/// called then).
/// @tparam Samplers a sampler type or per_relation_samplers  @tparam F the callable
template <class Samplers, class F>
void with_relation_sampler(const Samplers& samplers, int r, F&& f);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/typed_samplers.inl>
