#pragma once
// Definitions of algorithms/sampler_choice.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

constexpr std::string_view to_string(sampling_kind kind) noexcept
{
  switch (kind) {
    case sampling_kind::uniform_without_replacement: return "uniform_without_replacement";
    case sampling_kind::uniform_with_replacement: return "uniform_with_replacement";
    case sampling_kind::weighted_without_replacement: return "weighted_without_replacement";
  }
  return "unknown";
}

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
