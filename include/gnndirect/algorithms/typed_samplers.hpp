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

/// A list of sampler types and, per relation, which of them it uses.
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
/// @param samplers a sampler or a per_relation_samplers  @param r the relation index
/// @param f callable taking any of the sampler types
/// @throws invalid_argument when a per_relation_samplers has no valid choice for r.
/// @tparam Samplers a sampler type or per_relation_samplers  @tparam F the callable
template <class Samplers, class F>
void with_relation_sampler(const Samplers& samplers, int r, F&& f)
{
  if constexpr (is_per_relation_samplers<Samplers>::value) {
    constexpr std::size_t count = std::tuple_size_v<decltype(samplers.samplers)>;
    GNNDIRECT_EXPECTS(r >= 0 && static_cast<std::size_t>(r) < samplers.choice.size(),
                      "typed sampling: per_relation_samplers has no choice for relation " +
                        std::to_string(r) + " (choice holds " +
                        std::to_string(samplers.choice.size()) + " entries)");
    int const c = samplers.choice[static_cast<std::size_t>(r)];
    GNNDIRECT_EXPECTS(c >= 0 && static_cast<std::size_t>(c) < count,
                      "typed sampling: relation " + std::to_string(r) + " chooses sampler " +
                        std::to_string(c) + " of " + std::to_string(count));
    std::apply(
      [&](auto const&... s) {
        std::size_t i = 0;
        ((i++ == static_cast<std::size_t>(c) ? (void)f(s) : (void)0), ...);
      },
      samplers.samplers);
  } else {
    static_assert(is_sampler_v<Samplers>,
                  "typed sampling: pass a sampler (device/samplers.hpp) or per_relation_samplers");
    (void)r;
    f(samplers);
  }
}

GNNDIRECT_NAMESPACE_END
