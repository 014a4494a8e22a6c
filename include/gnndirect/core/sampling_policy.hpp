#pragma once
/// @file sampling_policy.hpp
/// @brief How sampling runs: tile size, block budget, checks (tuning only; host-compilable).
///
/// What is sampled is the sampler's business: a sampler is a type (device/samplers.hpp) that
/// carries its behaviour and data (its random seed included), and every sampling entry point is a
/// template on it. sampling_policy holds only the values that change speed or checking, never the
/// result: the library's samplers give the same neighbours for any tile size or block budget.

#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>

#include <cstdint>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN

/// True for a valid tile size: a power of two from 1 to 32 (a tile is part of one warp).
/// @param tile_size the size to check  @return whether it is valid
constexpr bool is_valid_tile_size(int tile_size) noexcept;

/// Tuning of a sampling call: on how many threads, with how many blocks, with which checks.
/// Trivially copyable; passed by value to kernels.
struct sampling_policy {
  int tile_size{32};        ///< threads that sample one seed node together (power of 2, <= 32)
  int max_blocks{0};        ///< at most this many thread blocks (0: no limit), to share the GPU
  bool check_indices{true};  ///< check 0 <= seed < num_nodes on the device (index_out_of_range)
};

/// Compile-time policy: builds a sampling_policy whose tile size is checked by static_assert.
/// @tparam TileSize threads per seed (power of two, 1..32)
/// @return the policy, other fields at their defaults
template <int TileSize = 32>
constexpr sampling_policy make_sampling_policy() noexcept;

/// Default policy for a fanout and a graph's mean degree: the smallest power-of-two tile that
/// covers min(fanout, mean degree) draws or reads in one step, at least 8 lanes (so a sector of
/// neighbour ids is read at once) and at most a warp. Pure, noexcept.
/// @param fanout draws per node  @param mean_degree num_edges / num_nodes of the graph (>= 0)
/// @return the policy
constexpr sampling_policy select_sampling_policy(int fanout, double mean_degree) noexcept;

/// Checks a sampler and a policy against a graph and a fanout before any work is enqueued (every
/// sampling entry point calls it, for any sampler type).
/// @tparam Sampler a model of the sampler concept (only its needs_weights is read here)
/// @tparam Offset, Index the graph's offset and node id types
/// @param policy the policy (the sampler argument is unnamed: only its type is used)
/// @param csr the graph  @param fanout draws per node
/// @throws invalid_argument when fanout < 0, the tile size is not a power of two in [1, 32], the
/// block budget is negative, a sampler with needs_weights meets a graph without weights, or the
/// graph's sizes or arrays are missing.
template <class Sampler, class Offset, class Index>
void validate(const Sampler& /*sampler*/, const sampling_policy& policy,
              const csr_view<Offset, Index>& csr, int fanout);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/sampling_policy.inl>
