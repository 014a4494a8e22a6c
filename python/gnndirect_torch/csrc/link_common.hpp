#pragma once
/// @file link_common.hpp
/// @brief Argument checks and run-time-to-type mapping shared by the CPU and CUDA link-prediction
/// ops (sample_negatives, sample_temporal_blocks; host-compilable). The op strings ('binary' /
/// 'triplet', 'uniform' / 'last', 'edge' / 'node') are the binding's run-time boundary: each is
/// mapped once onto the library's type (binary_negatives, temporal_sampler<Strategy, TimeForm>).

#include "common.hpp"
#include "sample_common.hpp"

#include <gnndirect/algorithms/negative_sampling.hpp>
#include <gnndirect/device/temporal_samplers.hpp>

#include <ATen/ATen.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace gnndirect_torch {

/// Checks sample_negatives' arguments: the CSR tensors (as check_csr_tensors, src as the seeds),
/// dst like src, max_attempts >= 1, num_dst >= 0 or -1 (the CSR's node count). `cuda`: src must
/// be a CUDA tensor. @throws c10::TypeError, c10::ValueError.
inline void check_negative_args(const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& src,
                                const at::Tensor& dst, const std::string& mode, std::int64_t max_attempts,
                                std::int64_t num_dst, bool cuda)
{
  TORCH_CHECK_VALUE(num_dst >= -1, "gnndirect: sample_negatives: num_dst must be >= 0 or -1, got ", num_dst);
  check_csr_tensors(indptr, indices, src, std::nullopt, cuda);
  check_index_tensor(dst, "dst");
  TORCH_CHECK_TYPE(dst.scalar_type() == src.scalar_type(), "gnndirect: sample_negatives: dst (",
                   dst.scalar_type(), ") must have the dtype of src (", src.scalar_type(), ")");
  TORCH_CHECK_VALUE(src.numel() == dst.numel(), "gnndirect: sample_negatives: src has ", src.numel(),
                    " positives and dst ", dst.numel());
  TORCH_CHECK_VALUE(src.device() == dst.device(), "gnndirect: sample_negatives: src and dst on different devices");
  TORCH_CHECK_VALUE(mode == "binary" || mode == "triplet",
                    "gnndirect: sample_negatives: mode must be 'binary' or 'triplet', got '", mode, "'");
  TORCH_CHECK_VALUE(max_attempts >= 1 && max_attempts <= 1 << 20,
                    "gnndirect: sample_negatives: max_attempts must be in [1, 2^20], got ", max_attempts);
}

/// The library's negative options of the op's arguments (num_dst: the destination range, -1:
/// the CSR's node count).
inline gnndirect::negative_options negative_options_of(std::int64_t seed, std::int64_t batch, bool strict,
                                                       std::int64_t max_attempts, std::int64_t num_dst)
{
  gnndirect::negative_options options;
  options.num_dst_nodes = num_dst;
  options.seed = static_cast<std::uint64_t>(seed);
  options.batch = batch;
  options.strict = strict;
  options.max_attempts = static_cast<int>(max_attempts);
  return options;
}

/// Calls body(mode) with binary_negatives{amount} or triplet_negatives{amount} (mode already
/// checked). @throws c10::ValueError for a triplet amount that is not a whole number >= 1, or a
/// binary amount <= 0 or not finite.
template <class Body>
decltype(auto) visit_negative_mode(const std::string& mode, double amount, Body&& body)
{
  if (mode == "triplet") {
    TORCH_CHECK_VALUE(std::isfinite(amount) && amount >= 1.0 && amount == std::floor(amount) && amount < 9.0e15,
                      "gnndirect: sample_negatives: a triplet amount (destinations per positive) must be a "
                      "whole number >= 1, got ", amount);
    return body(gnndirect::triplet_negatives{static_cast<std::int64_t>(amount)});
  }
  TORCH_CHECK_VALUE(std::isfinite(amount) && amount > 0.0,
                    "gnndirect: sample_negatives: a binary amount (negatives per positive) must be > 0, got ",
                    amount);
  return body(gnndirect::binary_negatives{amount});
}

/// Checks sample_temporal_blocks' time arguments: seed_times int64 1-D, one per seed, on the
/// seeds' device; times int64 1-D contiguous with num_edges (time_form 'edge') or num_nodes
/// ('node') entries; excluded (when given) int64 1-D contiguous; the strings known.
/// @throws c10::TypeError, c10::ValueError naming the argument and both lengths.
inline void check_temporal_args(const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& seeds,
                                const at::Tensor& seed_times, const at::Tensor& times,
                                const std::string& time_form, const std::string& strategy,
                                const std::optional<at::Tensor>& excluded)
{
  TORCH_CHECK_VALUE(time_form == "edge" || time_form == "node",
                    "gnndirect: sample_temporal_blocks: time_form must be 'edge' or 'node', got '", time_form, "'");
  TORCH_CHECK_VALUE(strategy == "uniform" || strategy == "last",
                    "gnndirect: sample_temporal_blocks: strategy must be 'uniform' or 'last', got '", strategy, "'");
  auto const int64_vector = [](const at::Tensor& t, const char* what) {
    TORCH_CHECK_TYPE(t.scalar_type() == at::kLong, "gnndirect: sample_temporal_blocks: ", what,
                     " must be int64, got ", t.scalar_type());
    TORCH_CHECK_VALUE(t.dim() == 1, "gnndirect: sample_temporal_blocks: ", what, " must be 1-D, got shape ",
                      t.sizes());
  };
  int64_vector(seed_times, "seed_times");
  TORCH_CHECK_VALUE(seed_times.numel() == seeds.numel(), "gnndirect: sample_temporal_blocks: seed_times has ",
                    seed_times.numel(), " entries for ", seeds.numel(), " seeds (one time per seed)");
  TORCH_CHECK_VALUE(seed_times.device() == seeds.device(),
                    "gnndirect: sample_temporal_blocks: seed_times must be on the seeds' device");
  int64_vector(times, "times");
  TORCH_CHECK_VALUE(times.is_contiguous(), "gnndirect: sample_temporal_blocks: times must be contiguous");
  std::int64_t const expected = time_form == "edge" ? indices.numel() : indptr.numel() - 1;
  TORCH_CHECK_VALUE(times.numel() == expected, "gnndirect: sample_temporal_blocks: times has ", times.numel(),
                    " entries, the graph has ", expected, time_form == "edge" ? " edges" : " nodes",
                    " (time_form '", time_form, "': one time per ", time_form, ")");
  if (excluded.has_value()) {
    int64_vector(*excluded, "excluded");
    TORCH_CHECK_VALUE(excluded->is_contiguous(), "gnndirect: sample_temporal_blocks: excluded must be contiguous");
  }
}

/// Calls body(sampler) with temporal_sampler<Strategy, TimeForm> for the op's strings (checked),
/// keyed by `seed`, its times and excluded edges set from the given pointers (query times are set
/// per layer by the callee).
template <class Body>
decltype(auto) visit_temporal_sampler(const std::string& strategy, const std::string& time_form, std::int64_t seed,
                                      const std::int64_t* times, std::int64_t num_times,
                                      const std::int64_t* excluded, std::int64_t num_excluded, Body&& body)
{
  auto const make = [&](auto strategy_tag, auto form_tag) {
    gnndirect::temporal_sampler<decltype(strategy_tag), decltype(form_tag)> s;
    s.seed = static_cast<std::uint64_t>(seed);
    s.times = times;
    s.num_times = num_times;
    s.excluded_edges = excluded;
    s.num_excluded = num_excluded;
    return s;
  };
  bool const last = strategy == "last";
  bool const node = time_form == "node";
  if (last) {
    return node ? body(make(gnndirect::temporal_last{}, gnndirect::node_time{}))
                : body(make(gnndirect::temporal_last{}, gnndirect::edge_time{}));
  }
  return node ? body(make(gnndirect::temporal_uniform{}, gnndirect::node_time{}))
              : body(make(gnndirect::temporal_uniform{}, gnndirect::edge_time{}));
}

}  // namespace gnndirect_torch
