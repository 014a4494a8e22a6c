#pragma once
/// @file typed_temporal_common.hpp
/// @brief Argument checks of sample_typed_temporal_blocks, shared by its CPU and CUDA kernels
/// (host-compilable): the typed checks of typed_common.hpp, then the seeds' query times per node
/// type and the times per relation.

#include "common.hpp"
#include "typed_common.hpp"

#include <gnndirect/device/temporal_samplers.hpp>

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gnndirect_torch {

/// The checked arguments of sample_typed_temporal_blocks.
struct typed_temporal_args {
  typed_args typed;                   ///< graph, seeds per node type, fanouts (check_typed_args_multi)
  std::vector<at::Tensor> seed_times; ///< per node type: int64, one per seed (contiguous)
  std::vector<at::Tensor> times;      ///< per relation: its edge times or its src type's node times
  bool node_form{false};              ///< time_form 'node'
  bool last{false};                   ///< strategy 'last'
};

/// Checks sample_typed_temporal_blocks' arguments: those of sample_typed_blocks_multi, the
/// strings ('edge' / 'node', 'uniform' / 'last'), per node type int64 1-D seed times with one
/// entry per seed on the seeds' device, per relation int64 1-D contiguous times with one entry
/// per edge of the relation ('edge': CSC position order) or per node of its src type ('node').
/// @param cuda the CUDA kernel: seeds (and their times) must be CUDA tensors
/// @throws c10::ValueError / c10::TypeError naming the node type ("node type t") or relation
/// ("relation r") and both lengths.
inline typed_temporal_args check_typed_temporal_args(
  const std::vector<at::Tensor>& indptrs, const std::vector<at::Tensor>& indices, at::IntArrayRef src_types,
  at::IntArrayRef dst_types, at::IntArrayRef num_nodes, const std::vector<at::Tensor>& seeds,
  const std::vector<at::Tensor>& seed_times, at::IntArrayRef fanouts, at::IntArrayRef max_degrees,
  const std::vector<at::Tensor>& times, const std::string& time_form, const std::string& strategy, bool cuda)
{
  TORCH_CHECK_VALUE(time_form == "edge" || time_form == "node",
                    "gnndirect: sample_typed_temporal_blocks: time_form must be 'edge' or 'node', got '", time_form,
                    "'");
  TORCH_CHECK_VALUE(strategy == "uniform" || strategy == "last",
                    "gnndirect: sample_typed_temporal_blocks: strategy must be 'uniform' or 'last', got '", strategy,
                    "'");
  typed_temporal_args out;
  out.typed = check_typed_args_multi(indptrs, indices, src_types, dst_types, num_nodes, seeds, fanouts, max_degrees,
                                     cuda);
  out.node_form = time_form == "node";
  out.last = strategy == "last";
  typed_args const& a = out.typed;
  auto const int64_vector = [](const at::Tensor& t, const std::string& what) {
    TORCH_CHECK_TYPE(t.scalar_type() == at::kLong, "gnndirect: sample_typed_temporal_blocks: ", what,
                     " must be int64, got ", t.scalar_type());
    TORCH_CHECK_VALUE(t.dim() == 1, "gnndirect: sample_typed_temporal_blocks: ", what, " must be 1-D, got shape ",
                      t.sizes());
  };
  TORCH_CHECK_VALUE(seed_times.size() == a.num_nodes.size(), "gnndirect: sample_typed_temporal_blocks: seed_times for ",
                    seed_times.size(), " node types, the graph has ", a.num_nodes.size(),
                    " (one tensor per node type; an empty one where a type has no seeds)");
  for (std::size_t t = 0; t < seed_times.size(); ++t) {
    std::string const what = "seed_times of node type " + std::to_string(t);
    int64_vector(seed_times[t], what);
    TORCH_CHECK_VALUE(seed_times[t].numel() == a.seeds[t].numel(), "gnndirect: sample_typed_temporal_blocks: ", what,
                      " has ", seed_times[t].numel(), " entries for ", a.seeds[t].numel(),
                      " seeds (one query time per seed)");
    TORCH_CHECK_VALUE(seed_times[t].numel() == 0 || seed_times[t].device() == a.seeds[t].device(),
                      "gnndirect: sample_typed_temporal_blocks: ", what, " must be on the seeds' device (",
                      a.seeds[t].device(), ")");
    out.seed_times.push_back(seed_times[t].contiguous());
  }
  TORCH_CHECK_VALUE(times.size() == a.indptrs.size(), "gnndirect: sample_typed_temporal_blocks: times for ",
                    times.size(), " relations, the graph has ", a.indptrs.size(), " (one tensor per relation: its ",
                    out.node_form ? "src type's node times" : "edge times", ")");
  for (std::size_t r = 0; r < times.size(); ++r) {
    std::string const what = "times of relation " + std::to_string(r);
    int64_vector(times[r], what);
    TORCH_CHECK_VALUE(times[r].is_contiguous(), "gnndirect: sample_typed_temporal_blocks: ", what,
                      " must be contiguous");
    std::int64_t const expected = out.node_form ? a.num_nodes[static_cast<std::size_t>(a.src_types[r])]
                                                : a.indices[r].numel();
    TORCH_CHECK_VALUE(times[r].numel() == expected, "gnndirect: sample_typed_temporal_blocks: ", what, " has ",
                      times[r].numel(), " entries, the relation has ", expected,
                      out.node_form ? " src nodes (time_form 'node': one time per node of its src type)"
                                    : " edges (time_form 'edge': one time per edge, in CSC position order)");
    TORCH_CHECK_VALUE(cuda || !times[r].is_cuda(), "gnndirect: the CPU typed temporal sampler needs CPU times (",
                      what, ")");
    out.times.push_back(times[r]);
  }
  return out;
}

/// Calls body(sampler) with a temporal_sampler<Strategy, TimeForm> of the checked choice, keyed
/// by `seed`, its times unset (each relation's are set by the caller).
template <class Body>
decltype(auto) visit_typed_temporal_sampler(const typed_temporal_args& t, std::int64_t seed, Body&& body)
{
  auto const make = [&](auto strategy_tag, auto form_tag) {
    gnndirect::temporal_sampler<decltype(strategy_tag), decltype(form_tag)> s;
    s.seed = static_cast<std::uint64_t>(seed);
    return s;
  };
  if (t.last) {
    return t.node_form ? body(make(gnndirect::temporal_last{}, gnndirect::node_time{}))
                       : body(make(gnndirect::temporal_last{}, gnndirect::edge_time{}));
  }
  return t.node_form ? body(make(gnndirect::temporal_uniform{}, gnndirect::node_time{}))
                     : body(make(gnndirect::temporal_uniform{}, gnndirect::edge_time{}));
}

}  // namespace gnndirect_torch
