#pragma once
// Definitions of pipeline/epoch_order.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Index>
void shuffle_epoch(std::vector<Index>& ids, std::uint64_t seed, std::int64_t epoch) noexcept
{
  auto const round = static_cast<std::uint64_t>(epoch);
  for (std::size_t i = ids.size(); i > 1; --i) {
    std::size_t const last = i - 1;
    auto const partner = static_cast<std::size_t>(
      uniform_below(detail::counter_bits(seed, last, round, 0), static_cast<std::uint64_t>(i)));
    std::swap(ids[last], ids[partner]);
  }
}

inline std::uint64_t batch_sampling_seed(std::uint64_t seed, std::int64_t epoch, std::int64_t batch) noexcept
{
  return detail::counter_bits(seed, static_cast<std::uint64_t>(batch),
                              static_cast<std::uint64_t>(epoch), detail::batch_seed_tag);
}

GNNDIRECT_NAMESPACE_END
