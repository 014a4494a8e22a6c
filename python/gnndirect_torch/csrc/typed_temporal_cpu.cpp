/// @file typed_temporal_cpu.cpp
/// @brief Schema and CPU kernel of sample_typed_temporal_blocks: temporal sampling through a
/// typed graph, written on the host from the definitions in
/// algorithms/sample_typed_temporal_blocks_async.cuh (per relation the temporal draw of
/// temporal_host.hpp with the counter layer typed_random_layer(l, r); per node type one list with
/// one query time per entry), which the CUDA kernel (typed_temporal_cuda.cpp, the library's
/// sample_typed_temporal_blocks_async) equals bit for bit.
///
/// Op (namespace torch.ops.gnndirect):
/// - sample_typed_temporal_blocks(indptrs, indices, src_types, dst_types, num_nodes, seeds,
///   seed_times, fanouts, max_degrees, times, time_form='edge', strategy='uniform', seed=0,
///   check=True) -> Tensor[]: sample_typed_blocks_multi's arguments and flat output
///   (typed_common.hpp), plus per node type the seeds' query times and per relation its times
///   (edge times in CSC position order, or its src type's node times). Only neighbours at or
///   before the row's time are drawn ('uniform', or the 'last' = most recent ones); a node new
///   at layer l is expanded at l + 1 with the earliest time of the rows that sampled it.

#include "common.hpp"
#include "temporal_host.hpp"
#include "typed_common.hpp"
#include "typed_temporal_common.hpp"

#include <gnndirect/algorithms/typed_blocks_bounds.hpp>
#include <gnndirect/core/error.hpp>

#include <torch/library.h>

#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

namespace gnndirect_torch {
namespace {

/// The node lists of a typed temporal sample on the host: per type its ids, the query time of
/// each entry and the local id of each id.
template <class Index>
struct typed_lists {
  std::vector<std::vector<Index>> nodes;
  std::vector<std::vector<std::int64_t>> times;
  std::vector<std::unordered_map<std::int64_t, Index>> local;
  std::vector<std::vector<std::int64_t>> counts;  ///< per type: list length before layer 0, then after each
};

/// The seeds as each type's first entries (a repeated seed maps to its first row).
/// @throws gnndirect::index_out_of_range naming "seeds (node type t)".
template <class Index>
typed_lists<Index> seed_lists(const typed_temporal_args& t)
{
  typed_args const& a = t.typed;
  typed_lists<Index> l;
  std::size_t const types = a.num_nodes.size();
  l.nodes.resize(types);
  l.times.resize(types);
  l.local.resize(types);
  l.counts.resize(types);
  for (std::size_t type = 0; type < types; ++type) {
    Index const* const ids = a.seeds[type].numel() == 0 ? nullptr : data_as<const Index>(a.seeds[type]);
    std::int64_t const* const when = t.seed_times[type].numel() == 0 ? nullptr
                                                                      : data_as<const std::int64_t>(t.seed_times[type]);
    for (std::int64_t i = 0; i < a.seeds[type].numel(); ++i) {
      auto const id = static_cast<std::int64_t>(ids[i]);
      if (id < 0 || id >= a.num_nodes[type]) {
        throw gnndirect::index_out_of_range(__FILE__, __LINE__, "seeds (node type " + std::to_string(type) + ")", i,
                                            id, a.num_nodes[type]);
      }
      l.nodes[type].push_back(ids[i]);
      l.times[type].push_back(when[i]);
      l.local[type].emplace(id, static_cast<Index>(i));
    }
    l.counts[type].push_back(static_cast<std::int64_t>(l.nodes[type].size()));
  }
  return l;
}

template <class Offset, class Index, class Sampler>
std::vector<at::Tensor> typed_temporal_on_host(const typed_temporal_args& t, const Sampler& first)
{
  typed_args const& a = t.typed;
  auto const graph = typed_view<Offset, Index>(a, -1);
  gnndirect::typed_blocks_bounds const bounds =
    gnndirect::sample_typed_blocks_bounds(graph, a.seeds_view<Index>(), a.fanouts);
  std::vector<Sampler> samplers;
  for (std::size_t r = 0; r < t.times.size(); ++r) {
    Sampler s = first;
    s.times = t.times[r].numel() == 0 ? nullptr : data_as<const std::int64_t>(t.times[r]);
    s.num_times = t.times[r].numel();
    samplers.push_back(s);
  }
  typed_lists<Index> lists = seed_lists<Index>(t);
  std::size_t const types = a.num_nodes.size();
  std::vector<std::int64_t> begin(types, 0);
  std::vector<at::Tensor> blocks;
  std::vector<std::int64_t> eligible, picked;
  for (std::size_t l = 0; l < bounds.num_layers(); ++l) {
    // The layer's rows and times as they are before it samples anything.
    std::vector<std::vector<Index>> rows(types);
    std::vector<std::vector<std::int64_t>> row_time(types);
    for (std::size_t type = 0; type < types; ++type) {
      auto const b = static_cast<std::ptrdiff_t>(begin[type]);
      rows[type].assign(lists.nodes[type].begin() + b, lists.nodes[type].end());
      row_time[type].assign(lists.times[type].begin() + b, lists.times[type].end());
    }
    for (int r = 0; r < graph.num_relations; ++r) {
      auto const& rel = graph.relations[r];
      auto const dst = static_cast<std::size_t>(rel.dst_type);
      auto const src = static_cast<std::size_t>(rel.src_type);
      int const fanout = bounds.fanouts[l][static_cast<std::size_t>(r)];
      std::vector<std::int64_t> offsets{0};
      std::vector<Index> local_ids;
      std::vector<Offset> edge_ids;
      for (std::size_t i = 0; i < rows[dst].size(); ++i) {
        auto const node = static_cast<std::int64_t>(rows[dst][i]);
        temporal_positions(rel.csc, samplers[static_cast<std::size_t>(r)], node, row_time[dst][i], fanout,
                           gnndirect::typed_random_layer(static_cast<int>(l), r), eligible, picked);
        auto const first_edge = static_cast<std::int64_t>(rel.csc.indptr[node]);
        for (std::int64_t p : picked) {
          std::int64_t const e = first_edge + p;
          auto const id = static_cast<std::int64_t>(rel.csc.indices[e]);
          if (id < 0 || id >= a.num_nodes[src]) {
            throw gnndirect::index_out_of_range(__FILE__, __LINE__,
                                                "sampled neighbour ids of relation " + std::to_string(r) +
                                                  " at layer " + std::to_string(l),
                                                e, id, a.num_nodes[src]);
          }
          auto const inserted = lists.local[src].emplace(id, static_cast<Index>(lists.nodes[src].size()));
          if (inserted.second) {
            lists.nodes[src].push_back(static_cast<Index>(id));
            lists.times[src].push_back(std::numeric_limits<std::int64_t>::max());
          }
          auto const at = static_cast<std::size_t>(inserted.first->second);
          lists.times[src][at] = std::min(lists.times[src][at], row_time[dst][i]);
          local_ids.push_back(inserted.first->second);
          edge_ids.push_back(static_cast<Offset>(e));
        }
        offsets.push_back(static_cast<std::int64_t>(local_ids.size()));
      }
      blocks.push_back(typed_tensor_from(offsets, at::kLong));
      blocks.push_back(typed_tensor_from(local_ids, a.indices[0].scalar_type()));
      blocks.push_back(typed_tensor_from(edge_ids, a.indptrs[0].scalar_type()));
    }
    for (std::size_t type = 0; type < types; ++type) {
      begin[type] = lists.counts[type].back();
      lists.counts[type].push_back(static_cast<std::int64_t>(lists.nodes[type].size()));
    }
  }
  std::vector<at::Tensor> out{typed_counts_tensor(lists.counts)};
  for (auto const& nodes : lists.nodes) { out.push_back(typed_tensor_from(nodes, a.indices[0].scalar_type())); }
  out.insert(out.end(), blocks.begin(), blocks.end());
  return out;
}

std::vector<at::Tensor> sample_typed_temporal_blocks_cpu(
  const std::vector<at::Tensor>& indptrs, const std::vector<at::Tensor>& indices, at::IntArrayRef src_types,
  at::IntArrayRef dst_types, at::IntArrayRef num_nodes, const std::vector<at::Tensor>& seeds,
  const std::vector<at::Tensor>& seed_times, at::IntArrayRef fanouts, at::IntArrayRef max_degrees,
  const std::vector<at::Tensor>& times, c10::string_view time_form, c10::string_view strategy, std::int64_t seed,
  bool /*check: always on the host*/)
{
  typed_temporal_args const t =
    check_typed_temporal_args(indptrs, indices, src_types, dst_types, num_nodes, seeds, seed_times, fanouts,
                              max_degrees, times, std::string(time_form), std::string(strategy), false);
  for (std::size_t r = 0; r < t.typed.indptrs.size(); ++r) {
    TORCH_CHECK_VALUE(!t.typed.indptrs[r].is_cuda() && !t.typed.indices[r].is_cuda(),
                      "gnndirect: sample_typed_temporal_blocks: relation ", r,
                      " has CUDA tensors; the CPU kernel needs CPU tensors (pass CUDA seeds for the GPU)");
  }
  return translate_errors([&] {
    return dispatch_csr(t.typed.indptrs[0], t.typed.indices[0], [&](auto offset_tag, auto index_tag) {
      return visit_typed_temporal_sampler(t, seed, [&](const auto& sampler) {
        return typed_temporal_on_host<decltype(offset_tag), decltype(index_tag)>(t, sampler);
      });
    });
  });
}

}  // namespace
}  // namespace gnndirect_torch

TORCH_LIBRARY_FRAGMENT(gnndirect, m)
{
  m.def("sample_typed_temporal_blocks(Tensor[] indptrs, Tensor[] indices, int[] src_types, int[] dst_types, "
        "int[] num_nodes, Tensor[] seeds, Tensor[] seed_times, int[] fanouts, int[] max_degrees, Tensor[] times, "
        "str time_form='edge', str strategy='uniform', int seed=0, bool check=True) -> Tensor[]");
}

TORCH_LIBRARY_IMPL(gnndirect, CPU, m)
{
  m.impl("sample_typed_temporal_blocks", &gnndirect_torch::sample_typed_temporal_blocks_cpu);
}
