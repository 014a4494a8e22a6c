#pragma once
// Definitions of algorithms/typed_samplers.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

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
