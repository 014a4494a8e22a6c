#pragma once
/// @file typed_common.hpp
/// @brief Argument checks, the typed_graph_view over per-relation CSC tensors, and the flat
/// output layout shared by the CPU and CUDA kernels of gnndirect::sample_typed_blocks
/// (host-compilable).
///
/// Flat output of the op: [counts] + one node list per node type + (offsets, indices, edge_ids)
/// per layer per relation (layer-major). counts is a CPU int64 [num_node_types, num_layers + 1]
/// tensor: row t holds type t's list length before layer 0, then after each layer, from which
/// every block's dst rows follow (dst_begin = counts[dst][l - 1] or 0, num_dst = counts[dst][l] -
/// dst_begin; see core/sampled_typed_views.hpp).

#include "common.hpp"
#include "sample_common.hpp"

#include <gnndirect/algorithms/typed_blocks_bounds.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/typed_schema.hpp>
#include <gnndirect/core/typed_seeds_view.hpp>
#include <gnndirect/device/samplers.hpp>

#include <ATen/ATen.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gnndirect_torch {

/// The checked arguments of a typed op (names are the Python layer's: here relations and node
/// types are indices, named "relation r" and "node type t" in messages).
struct typed_args {
  std::vector<at::Tensor> indptrs;       ///< per relation: dst count + 1 offsets (contiguous)
  std::vector<at::Tensor> indices;       ///< per relation: src ids (contiguous)
  std::vector<int> src_types;            ///< per relation
  std::vector<int> dst_types;            ///< per relation
  std::vector<std::int64_t> num_nodes;   ///< per node type
  std::vector<std::int64_t> max_degrees; ///< per relation, resolved where fanout -1 needs it
  gnndirect::typed_fanouts fanouts;      ///< [relation][layer]
  int seed_type{-1};                     ///< node type of the seeds (-1: the multi-type op)
  /// per node type its seeds (contiguous, the index dtype; empty where a type has none): the
  /// one-type op puts its seeds at seed_type, the multi-type op one tensor per type
  std::vector<at::Tensor> seeds;

  /// @return the seeds as the library's per-type view (the tensors' data; valid while they live)
  template <class Index>
  gnndirect::typed_seeds_view<Index> seeds_view() const
  {
    gnndirect::typed_seeds_view<Index> v;
    v.num_node_types = static_cast<int>(seeds.size());
    for (std::size_t t = 0; t < seeds.size(); ++t) {
      v.counts[t] = seeds[t].size(0);
      v.seeds[t] = seeds[t].numel() == 0 ? nullptr : data_as<const Index>(seeds[t]);
    }
    return v;
  }
};

/// check_indptr_end for every relation: indptr[num_dst] == the relation's edge count. The ends
/// of CUDA indptrs are read back with one copy (one synchronisation of the current stream per
/// device, not one per relation), host ones directly.
/// @throws c10::ValueError naming the relation and both numbers.
inline void check_indptr_ends(const std::vector<at::Tensor>& indptrs, const std::vector<at::Tensor>& indices)
{
  std::vector<std::int64_t> ends(indptrs.size(), 0);
  std::vector<at::Tensor> device_ends;
  std::vector<std::size_t> device_relations;
  for (std::size_t r = 0; r < indptrs.size(); ++r) {
    at::Tensor const last = indptrs[r].select(0, indptrs[r].size(0) - 1);
    if (last.is_cuda()) {
      device_ends.push_back(last.to(at::kLong));
      device_relations.push_back(r);
    } else {
      ends[r] = last.item<std::int64_t>();
    }
  }
  if (!device_ends.empty()) {
    bool const one_device = std::all_of(device_ends.begin(), device_ends.end(), [&](const at::Tensor& t) {
      return t.device() == device_ends[0].device();
    });
    std::vector<std::int64_t> host(device_ends.size());
    if (one_device) {
      at::Tensor const read = at::stack(device_ends).cpu();
      for (std::size_t i = 0; i < host.size(); ++i) { host[i] = data_as<const std::int64_t>(read)[i]; }
    } else {
      for (std::size_t i = 0; i < host.size(); ++i) { host[i] = device_ends[i].item<std::int64_t>(); }
    }
    for (std::size_t i = 0; i < host.size(); ++i) { ends[device_relations[i]] = host[i]; }
  }
  for (std::size_t r = 0; r < indptrs.size(); ++r) {
    TORCH_CHECK_VALUE(ends[r] == indices[r].size(0), "gnndirect: corrupt CSR graph: relation ", r, ": indptr[",
                      indptrs[r].size(0) - 1, "] = ", ends[r], " but indices has ", indices[r].size(0),
                      " entries (indptr must end at the edge count; is indices truncated?)");
  }
}

/// Checks the graph part of a typed op's arguments: one indptr and one indices tensor per
/// relation (1-D, contiguous, int32/int64, every relation with the same two dtypes), endpoint
/// types within num_nodes' types, indptr of dst count + 1 entries ending at the edge count.
/// @throws c10::ValueError / c10::TypeError naming the relation ("relation r") and the field.
inline typed_args check_typed_graph(const std::vector<at::Tensor>& indptrs, const std::vector<at::Tensor>& indices,
                                    at::IntArrayRef src_types, at::IntArrayRef dst_types,
                                    at::IntArrayRef num_nodes)
{
  auto const relations = static_cast<std::int64_t>(indptrs.size());
  TORCH_CHECK_VALUE(relations >= 1 && relations <= gnndirect::max_relations,
                    "gnndirect: a typed graph needs 1 to ", gnndirect::max_relations, " relations, got ",
                    relations);
  TORCH_CHECK_VALUE(static_cast<std::int64_t>(indices.size()) == relations &&
                      static_cast<std::int64_t>(src_types.size()) == relations &&
                      static_cast<std::int64_t>(dst_types.size()) == relations,
                    "gnndirect: typed graph: ", relations, " indptrs but ", indices.size(), " indices, ",
                    src_types.size(), " src_types and ", dst_types.size(), " dst_types (one each per relation)");
  auto const types = static_cast<std::int64_t>(num_nodes.size());
  TORCH_CHECK_VALUE(types >= 1 && types <= gnndirect::max_node_types, "gnndirect: a typed graph needs 1 to ",
                    gnndirect::max_node_types, " node types, got ", types);
  typed_args a;
  for (std::int64_t t = 0; t < types; ++t) {
    TORCH_CHECK_VALUE(num_nodes[t] >= 0, "gnndirect: typed graph: node type ", t, " has ", num_nodes[t], " nodes");
    a.num_nodes.push_back(num_nodes[t]);
  }
  for (std::int64_t r = 0; r < relations; ++r) {
    std::string const where = "relation " + std::to_string(r);
    check_index_tensor(indptrs[r], (where + " indptr").c_str());
    check_index_tensor(indices[r], (where + " indices").c_str());
    TORCH_CHECK_TYPE(indptrs[r].scalar_type() == indptrs[0].scalar_type() &&
                       indices[r].scalar_type() == indices[0].scalar_type(),
                     "gnndirect: typed graph: ", where, " has indptr ", indptrs[r].scalar_type(), " and indices ",
                     indices[r].scalar_type(), ", relation 0 ", indptrs[0].scalar_type(), " and ",
                     indices[0].scalar_type(), " (every relation needs the same dtypes)");
    TORCH_CHECK_VALUE(indptrs[r].is_contiguous() && indices[r].is_contiguous(), "gnndirect: typed graph: ", where,
                      ": indptr and indices must be contiguous");
    TORCH_CHECK_VALUE(src_types[r] >= 0 && src_types[r] < types && dst_types[r] >= 0 && dst_types[r] < types,
                      "gnndirect: typed graph: ", where, " goes from node type ", src_types[r], " to ",
                      dst_types[r], ", the graph has ", types, " node types");
    std::int64_t const rows = num_nodes[dst_types[r]];
    TORCH_CHECK_VALUE(indptrs[r].numel() == rows + 1, "gnndirect: typed graph: ", where, ": indptr has ",
                      indptrs[r].numel(), " entries, its dst node type ", dst_types[r], " has ", rows,
                      " nodes (indptr needs one more)");
    a.indptrs.push_back(indptrs[r]);
    a.indices.push_back(indices[r]);
    a.src_types.push_back(static_cast<int>(src_types[r]));
    a.dst_types.push_back(static_cast<int>(dst_types[r]));
  }
  check_indptr_ends(a.indptrs, a.indices);
  return a;
}

/// Largest row length of a relation (what fanout -1 samples up to): a reduction over indptr on
/// its device (a CUDA indptr synchronises the current stream).
inline std::int64_t max_row_length(const at::Tensor& indptr)
{
  if (indptr.numel() <= 1) { return 0; }
  return (indptr.slice(0, 1) - indptr.slice(0, 0, indptr.numel() - 1)).max().item<std::int64_t>();
}

/// Checks one seeds tensor of a typed op: an index tensor (1-D) of the graph's index dtype, on
/// CUDA for the CUDA kernel and on the CPU for the CPU kernel.
/// @throws c10::ValueError / c10::TypeError naming `what`.
inline void check_typed_seed_tensor(const typed_args& a, const at::Tensor& seeds, const char* what, bool cuda)
{
  check_index_tensor(seeds, what);
  TORCH_CHECK_TYPE(seeds.scalar_type() == a.indices[0].scalar_type(), "gnndirect: ", what, " (",
                   seeds.scalar_type(), ") must have the dtype of indices (", a.indices[0].scalar_type(), ")");
  if (cuda) {
    TORCH_CHECK_VALUE(seeds.is_cuda(), "gnndirect: ", what, " must be a CUDA tensor for GPU sampling (or pass "
                                       "CPU tensors everywhere for the host sampler)");
  } else {
    TORCH_CHECK_VALUE(!seeds.is_cuda(), "gnndirect: the CPU typed sampler needs CPU seeds (", what, ")");
  }
}

/// Checks the fanouts (flat [relation][layer]) and max degrees of a typed op into `a`.
/// @throws c10::ValueError naming the relation and the layer.
inline void check_typed_fanouts(typed_args& a, at::IntArrayRef fanouts, at::IntArrayRef max_degrees)
{
  auto const relations = static_cast<std::int64_t>(a.indptrs.size());
  auto const count = static_cast<std::int64_t>(fanouts.size());
  TORCH_CHECK_VALUE(count >= relations && count % relations == 0, "gnndirect: ", count, " fanouts for ", relations,
                    " relations (give relations x layers, relation-major)");
  std::int64_t const layers = count / relations;
  TORCH_CHECK_VALUE(layers <= gnndirect::max_typed_layers, "gnndirect: at most ", gnndirect::max_typed_layers,
                    " layers, got ", layers);
  TORCH_CHECK_VALUE(static_cast<std::int64_t>(max_degrees.size()) == relations, "gnndirect: ", max_degrees.size(),
                    " max_degrees for ", relations, " relations (-1: unknown)");
  a.fanouts.per_relation.resize(static_cast<std::size_t>(relations));
  for (std::int64_t r = 0; r < relations; ++r) {
    bool all = false;
    for (std::int64_t l = 0; l < layers; ++l) {
      std::int64_t const f = fanouts[r * layers + l];
      TORCH_CHECK_VALUE(f >= -1 && f <= INT_MAX, "gnndirect: relation ", r, " has fanout ", f, " at layer ", l,
                        " (-1: all neighbours, 0: none, else the draws per node)");
      all = all || f == -1;
      a.fanouts.per_relation[static_cast<std::size_t>(r)].push_back(static_cast<int>(f));
    }
    std::int64_t degree = max_degrees[r];
    TORCH_CHECK_VALUE(degree >= -1, "gnndirect: relation ", r, " has max_degree ", degree, " (-1: unknown)");
    if (degree == -1 && all) { degree = max_row_length(a.indptrs[static_cast<std::size_t>(r)]); }
    a.max_degrees.push_back(degree);
  }
}

/// Checks a typed op's arguments (check_typed_graph, then the seeds, fanouts and max degrees).
/// @param fanouts flat [relation][layer] (relation r's layer l at r * layers + l), -1 = all, 0 = none
/// @param max_degrees per relation, -1 = unknown (computed here where a fanout -1 needs it)
/// @param cuda seeds must be a CUDA tensor (the CUDA kernel)
/// @throws c10::ValueError / c10::TypeError naming what is wrong.
inline typed_args check_typed_args(const std::vector<at::Tensor>& indptrs, const std::vector<at::Tensor>& indices,
                                   at::IntArrayRef src_types, at::IntArrayRef dst_types, at::IntArrayRef num_nodes,
                                   std::int64_t seed_type, const at::Tensor& seeds, at::IntArrayRef fanouts,
                                   at::IntArrayRef max_degrees, bool cuda)
{
  typed_args a = check_typed_graph(indptrs, indices, src_types, dst_types, num_nodes);
  TORCH_CHECK_VALUE(seed_type >= 0 && seed_type < static_cast<std::int64_t>(a.num_nodes.size()),
                    "gnndirect: seed_type ", seed_type, " is no node type (the graph has ", a.num_nodes.size(), ")");
  a.seed_type = static_cast<int>(seed_type);
  check_typed_seed_tensor(a, seeds, "seeds", cuda);
  for (std::size_t t = 0; t < a.num_nodes.size(); ++t) {
    a.seeds.push_back(static_cast<int>(t) == a.seed_type ? seeds.contiguous() : seeds.new_empty({0}));
  }
  check_typed_fanouts(a, fanouts, max_degrees);
  return a;
}

/// Checks the arguments of the multi-type op (seeds per node type: link seeds): as
/// check_typed_args, with one seeds tensor per node type (empty where a type has none), each of
/// the index dtype, all on one device (CUDA for the CUDA kernel, the CPU for the CPU kernel).
/// @throws c10::ValueError / c10::TypeError naming the node type ("seeds of node type t").
inline typed_args check_typed_args_multi(const std::vector<at::Tensor>& indptrs,
                                         const std::vector<at::Tensor>& indices, at::IntArrayRef src_types,
                                         at::IntArrayRef dst_types, at::IntArrayRef num_nodes,
                                         const std::vector<at::Tensor>& seeds, at::IntArrayRef fanouts,
                                         at::IntArrayRef max_degrees, bool cuda)
{
  typed_args a = check_typed_graph(indptrs, indices, src_types, dst_types, num_nodes);
  TORCH_CHECK_VALUE(seeds.size() == a.num_nodes.size(), "gnndirect: seeds for ", seeds.size(),
                    " node types, the graph has ", a.num_nodes.size(),
                    " (one tensor per node type; an empty one where a type has no seeds)");
  for (std::size_t t = 0; t < seeds.size(); ++t) {
    std::string const what = "seeds of node type " + std::to_string(t);
    check_typed_seed_tensor(a, seeds[t], what.c_str(), cuda);
    TORCH_CHECK_VALUE(seeds[t].device() == seeds[0].device(), "gnndirect: ", what, " are on ", seeds[t].device(),
                      ", node type 0's on ", seeds[0].device(), " (every type's seeds on one device)");
    a.seeds.push_back(seeds[t].contiguous());
  }
  check_typed_fanouts(a, fanouts, max_degrees);
  return a;
}

/// The typed_graph_view of checked arguments: CPU tensors as host-readable arrays (`device` < 0,
/// the host reference), else device-visible arrays in their detected placements.
template <class Offset, class Index>
gnndirect::typed_graph_view<Offset, Index> typed_view(const typed_args& a, int device)
{
  gnndirect::typed_graph_view<Offset, Index> g;
  g.num_node_types = static_cast<int>(a.num_nodes.size());
  g.num_relations = static_cast<int>(a.indptrs.size());
  for (std::size_t t = 0; t < a.num_nodes.size(); ++t) { g.num_nodes[t] = a.num_nodes[t]; }
  for (std::size_t r = 0; r < a.indptrs.size(); ++r) {
    auto& rel = g.relations[r];
    rel.csc = device < 0 ? host_csr_view<Offset, Index>(a.indptrs[r], a.indices[r], std::nullopt)
                         : detail::device_csr_view<Offset, Index>(a.indptrs[r], a.indices[r], std::nullopt, device);
    rel.src_type = a.src_types[r];
    rel.dst_type = a.dst_types[r];
    rel.max_degree = a.max_degrees[r];
  }
  return g;
}

/// A new CPU tensor holding a copy of `values` (a contiguous vector of `dtype`'s element type).
template <class Vector>
at::Tensor typed_tensor_from(const Vector& values, at::ScalarType dtype)
{
  at::Tensor out = at::empty({static_cast<std::int64_t>(values.size())}, at::dtype(dtype));
  if (!values.empty()) { std::memcpy(out.data_ptr(), values.data(), values.size() * sizeof(values[0])); }
  return out;
}

/// The CPU counts tensor of the flat output from per-type list lengths ([type][layer + 1]).
inline at::Tensor typed_counts_tensor(const std::vector<std::vector<std::int64_t>>& counts)
{
  auto const types = static_cast<std::int64_t>(counts.size());
  auto const width = types == 0 ? std::int64_t{0} : static_cast<std::int64_t>(counts[0].size());
  at::Tensor out = at::empty({types, width}, at::dtype(at::kLong));
  auto* p = data_as<std::int64_t>(out);
  for (std::int64_t t = 0; t < types; ++t) {
    for (std::int64_t c = 0; c < width; ++c) { p[t * width + c] = counts[static_cast<std::size_t>(t)][static_cast<std::size_t>(c)]; }
  }
  return out;
}

/// The sampler of the typed ops (uniform, with or without replacement), keyed by `seed`.
template <class F>
decltype(auto) visit_typed_sampler(std::int64_t seed, bool replace, F&& f)
{
  auto const key = static_cast<std::uint64_t>(seed);
  if (replace) { return f(gnndirect::uniform_with_replacement_sampler{key}); }
  return f(gnndirect::uniform_sampler{key});
}

}  // namespace gnndirect_torch
