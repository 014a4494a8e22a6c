#pragma once
/// @file epoch_order.hpp
/// @brief Seeded per-epoch shuffling of training ids and per-batch sampling seeds
/// (host-compilable).
///
/// Both are pure functions of their seeds (Philox4x32-10, counter-based), so an epoch's order and
/// every batch's samples can be reproduced anywhere: by the GPU pipeline, by a CPU-centric loader
/// feeding the host reference, and by tests.

#include <gnndirect/core/version.hpp>
#include <gnndirect/core/philox.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Tags word 3 of the counter so that batch seeds and shuffle draws never share a counter, even
/// if the caller uses one seed for both.
inline constexpr std::uint32_t batch_seed_tag = 0xB5EEDu << 8;

/// 64 random bits for (key, a, b): Philox4x32-10 with counter {a lo, a hi, b lo, b hi ^ tag}.
inline std::uint64_t counter_bits(std::uint64_t key, std::uint64_t a, std::uint64_t b,
                                  std::uint32_t tag) noexcept
{
  philox_block const counter{{static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(a >> 32),
                              static_cast<std::uint32_t>(b),
                              static_cast<std::uint32_t>(b >> 32) ^ tag}};
  philox_key const k{static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)};
  return random_bits64(philox4x32_10(counter, k));
}

}  // namespace detail

/// Shuffles `ids` in place for `epoch`: Fisher-Yates where swap i (from the back) draws its partner
/// from counter (i, epoch) under key `seed`. The same (ids, seed, epoch) always gives the same
/// order, on any machine; different epochs give independent orders. O(n), no allocation, blocking.
/// @tparam Index id type  @param ids the ids to shuffle  @param seed the key
/// @param epoch the epoch
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

/// Sampling seed of batch `batch` of `epoch` derived from the caller's sampling seed. Sampled
/// neighbours are a pure function of (seed, layer, node) (core/sampling_policy.hpp), so without a
/// fresh seed per batch a node would get the same neighbours in every epoch. Pure, noexcept.
/// @param seed the caller's sampling seed  @param epoch, batch which batch
/// @return the batch's seed
inline std::uint64_t batch_sampling_seed(std::uint64_t seed, std::int64_t epoch,
                                         std::int64_t batch) noexcept
{
  return detail::counter_bits(seed, static_cast<std::uint64_t>(batch),
                              static_cast<std::uint64_t>(epoch), detail::batch_seed_tag);
}

GNNDIRECT_NAMESPACE_END
