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
#include <gnndirect/detail/pipeline/epoch_order.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Shuffles `ids` in place for `epoch`: Fisher-Yates where swap i (from the back) draws its partner
/// from counter (i, epoch) under key `seed`. The same (ids, seed, epoch) always gives the same
/// order, on any machine; different epochs give independent orders. O(n), no allocation, blocking.
/// @tparam Index id type  @param ids the ids to shuffle  @param seed the key
/// @param epoch the epoch
template <class Index>
void shuffle_epoch(std::vector<Index>& ids, std::uint64_t seed, std::int64_t epoch) noexcept;

/// Sampling seed of batch `batch` of `epoch` derived from the caller's sampling seed. Sampled
/// neighbours are a pure function of (seed, layer, node) (core/sampling_policy.hpp), so without a
/// fresh seed per batch a node would get the same neighbours in every epoch. Pure, noexcept.
/// @param seed the caller's sampling seed  @param epoch, batch which batch
/// @return the batch's seed
inline std::uint64_t batch_sampling_seed(std::uint64_t seed, std::int64_t epoch,
                                         std::int64_t batch) noexcept;

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/pipeline/epoch_order.inl>
