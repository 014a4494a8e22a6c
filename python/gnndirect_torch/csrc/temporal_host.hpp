#pragma once
/// @file temporal_host.hpp
/// @brief The host form of one temporal draw (device/temporal_samplers.hpp's definitions: the
/// same eligibility, Philox draws and 'last' order), shared by the CPU kernels of
/// sample_temporal_blocks (link_cpu.cpp) and sample_typed_temporal_blocks
/// (typed_temporal_cpu.cpp), which the CUDA kernels equal bit for bit (host-compilable).

#include <gnndirect/core/philox.hpp>
#include <gnndirect/device/temporal_samplers.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace gnndirect_torch {

/// The host temporal sample of one row (node `node` at query time `limit`): positions relative
/// to the list's first edge, in stored order (device/temporal_samplers.hpp's definitions).
template <class Csr, class Sampler>
void temporal_positions(const Csr& csr, const Sampler& s, std::int64_t node, std::int64_t limit, int fanout,
                        int layer, std::vector<std::int64_t>& eligible, std::vector<std::int64_t>& picked)
{
  constexpr bool node_times = std::is_same_v<typename Sampler::time_form, gnndirect::node_time>;
  constexpr bool last = std::is_same_v<typename Sampler::strategy, gnndirect::temporal_last>;
  auto const first = static_cast<std::int64_t>(csr.indptr[node]);
  auto const degree = static_cast<std::int64_t>(csr.indptr[node + 1]) - first;
  auto const time_of = [&](std::int64_t p) {
    return node_times ? s.times[static_cast<std::int64_t>(csr.indices[first + p])] : s.times[first + p];
  };
  eligible.clear();
  picked.clear();
  for (std::int64_t p = 0; p < degree; ++p) {
    if constexpr (node_times) {  // a neighbour id without a time is never eligible (as on the GPU)
      auto const v = static_cast<std::int64_t>(csr.indices[first + p]);
      if (v < 0 || v >= s.num_times) { continue; }
    }
    if (time_of(p) > limit) { continue; }
    if (s.num_excluded > 0 && std::binary_search(s.excluded_edges, s.excluded_edges + s.num_excluded, first + p)) {
      continue;
    }
    eligible.push_back(p);
  }
  auto const n = static_cast<std::int64_t>(eligible.size());
  if (n <= fanout) {
    picked = eligible;
    return;
  }
  if constexpr (last) {
    // Time descending, equal times: the later stored position first; the first `fanout`.
    std::partial_sort(eligible.begin(), eligible.begin() + fanout, eligible.end(), [&](std::int64_t a, std::int64_t b) {
      return time_of(a) != time_of(b) ? time_of(a) > time_of(b) : a > b;
    });
    picked.assign(eligible.begin(), eligible.begin() + fanout);
  } else {
    // Floyd over the ranks [0, n): draw j uniform in [0, n - fanout + j]; on a collision the top.
    std::vector<std::int64_t> ranks;
    ranks.reserve(static_cast<std::size_t>(fanout));
    for (std::int64_t j = 0; j < fanout; ++j) {
      auto const bound = static_cast<std::uint64_t>(n - fanout + j + 1);
      auto const block = gnndirect::sampling_random(s.seed, static_cast<std::uint32_t>(layer),
                                                    static_cast<std::uint64_t>(node), static_cast<std::uint32_t>(j));
      auto const candidate = static_cast<std::int64_t>(gnndirect::uniform_below(gnndirect::random_bits64(block), bound));
      bool const taken = std::find(ranks.begin(), ranks.end(), candidate) != ranks.end();
      ranks.push_back(taken ? n - fanout + j : candidate);
    }
    for (std::int64_t r : ranks) { picked.push_back(eligible[static_cast<std::size_t>(r)]); }
  }
  std::sort(picked.begin(), picked.end());
}

}  // namespace gnndirect_torch
