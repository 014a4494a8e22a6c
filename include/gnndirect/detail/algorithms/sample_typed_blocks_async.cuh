#pragma once
/// @file sample_typed_blocks_async.cuh
/// @brief Internals of algorithms/sample_typed_blocks_async.cuh: workspace carving, output
/// checks, the frontier copy and the typed relabelling (not part of the API).
///
/// Why a typed relabelling and not relabel_async as it stands: relabel_async's src list starts
/// with its dst rows, because in a homogeneous block the rows are the prefix. In a typed layer
/// the prefix of a src type's list is that type's whole list so far, while the rows sampled from
/// belong to the relations' dst types, and one src type collects the slots of several relations
/// of different fanouts. The method is relabel_async's (detail/algorithms/relabel.cuh), reusing
/// its scratch, its CUB sizing and its head-marking kernel: (id, position) occurrences over the
/// whole bound (the prefix at positions [0, prefix bound), then each relation's slots at its
/// base), unused ones and ids outside the type set to the sentinel num_nodes, a stable radix
/// sort, run heads by a max-scan, and first appearances of new ids ranked by a sum-scan over slot
/// positions (order of first appearance: relation by relation in schema order, row by row, draw
/// by draw: the reference's loop order).

#include <gnndirect/algorithms/typed_blocks_bounds.hpp>
#include <gnndirect/core/config.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/sampled_typed_views.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/relabel.cuh>
#include <gnndirect/detail/algorithms/csr_rules.hpp>
#include <gnndirect/detail/algorithms/sample_kernels.cuh>
#include <gnndirect/detail/algorithms/validate_kernels.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/detail/core/workspace.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Error records of a typed sample: [0, max_node_types) the seeds of each node type (record t:
/// type t's first bad seed), then per layer per relation five: its rows' seeds (unused: the
/// seeds records cover them), its corrupt lists, its bad neighbour ids, its sampler's bad counts,
/// its sampler's bad slots (sample_neighbors_kernel's sampler_flags).
inline constexpr std::size_t typed_records_per_relation = 5;

/// Number of seed records at the front (one per possible node type).
inline constexpr std::size_t typed_seed_records = static_cast<std::size_t>(max_node_types);

/// Index of record `which` of relation `r` at layer `l` (see typed_records_per_relation).
inline std::size_t typed_record(std::size_t l, std::size_t r, std::size_t relations, std::size_t which)
{
  return typed_seed_records + typed_records_per_relation * (l * relations + r) + which;
}

/// Slices of a sample_typed_blocks workspace (sized for the largest layer; layers reuse them).
template <class Offset, class Index>
struct typed_workspace {
  error_record* records{nullptr};
  std::vector<Index*> frontier;                 ///< per type: the layer's dst rows
  std::int64_t* frontier_counts{nullptr};       ///< per type: their count (device)
  std::vector<std::int64_t*> counts;            ///< per relation: sampled count per row
  std::vector<Index*> slot_neighbors;           ///< per relation: fixed-stride slots
  std::vector<Offset*> slot_edge_ids;           ///< per relation
  std::int64_t* local_of{nullptr};              ///< per slot of one src type: its local id
  relabel_scratch<Index> relabel;
  std::size_t total{0};
};

/// Carves (or, with a null workspace, sizes) the slices for `b`.
/// @throws invalid_argument when a non-null workspace is too small; cuda_error.
template <class Offset, class Index>
typed_workspace<Offset, Index> carve_typed_workspace(workspace_view ws, const typed_blocks_bounds& b,
                                                     const std::vector<int>& src_types)
{
  std::size_t const types = b.nodes.size();
  std::size_t const relations = src_types.size();
  std::vector<std::int64_t> frontier(types, 0);
  std::vector<std::int64_t> rows(relations, 0);
  std::vector<std::int64_t> slots(relations, 0);
  std::int64_t type_slots = 0;
  std::int64_t items = 0;
  std::int64_t max_rows = 0;
  // The list's bound before each layer: the seeds at layer 0, then (conservatively) the final one.
  std::vector<std::int64_t> prefix(types, 0);
  if (!b.frontier.empty()) {
    for (std::size_t t = 0; t < types; ++t) { prefix[t] = b.frontier[0][t]; }
  }
  for (std::size_t l = 0; l < b.num_layers(); ++l) {
    std::vector<std::int64_t> per_type(types, 0);
    for (std::size_t t = 0; t < types; ++t) { frontier[t] = std::max(frontier[t], b.frontier[l][t]); }
    for (std::size_t r = 0; r < relations; ++r) {
      rows[r] = std::max(rows[r], b.layers[l][r].num_dst);
      slots[r] = std::max(slots[r], b.layers[l][r].num_edges);
      max_rows = std::max(max_rows, b.layers[l][r].num_dst);
      per_type[static_cast<std::size_t>(src_types[r])] += b.layers[l][r].num_edges;
    }
    for (std::size_t t = 0; t < types; ++t) {
      type_slots = std::max(type_slots, per_type[t]);
      items = std::max(items, prefix[t] + per_type[t]);
      prefix[t] = b.nodes[t];  // conservative: the final bound covers every layer's prefix
    }
  }
  std::size_t const cub = relabel_cub_bytes<Index>(items, type_slots, max_rows);
  auto const n = [](std::int64_t count, std::size_t size) { return static_cast<std::size_t>(count) * size; };
  workspace_carver carver(ws);
  typed_workspace<Offset, Index> w;
  w.records = carver.take<error_record>(sizeof(error_record) * typed_record(b.num_layers(), 0, relations, 0));
  w.frontier_counts = carver.take<std::int64_t>(n(static_cast<std::int64_t>(types), 8));
  for (std::size_t t = 0; t < types; ++t) { w.frontier.push_back(carver.take<Index>(n(frontier[t], sizeof(Index)))); }
  for (std::size_t r = 0; r < relations; ++r) {
    w.counts.push_back(carver.take<std::int64_t>(n(rows[r], 8)));
    w.slot_neighbors.push_back(carver.take<Index>(n(slots[r], sizeof(Index))));
    w.slot_edge_ids.push_back(carver.take<Offset>(n(slots[r], sizeof(Offset))));
  }
  w.local_of = carver.take<std::int64_t>(n(type_slots, 8));
  w.relabel = carve_relabel_scratch<Index>(carver, items, type_slots, cub);
  w.total = carver.used();
  return w;
}

/// Writes *count = value (capturable: no host memory in the graph). A template, as every kernel
/// in a header (one definition per program without inline).
template <class Count>
GNNDIRECT_KERNEL void typed_set_count_kernel(Count* count, Count value)
{
  *count = value;
}

/// counts[l + 1] = counts[l] for a type that gains no nodes at layer l.
template <class Count>
GNNDIRECT_KERNEL void typed_keep_count_kernel(Count* counts, int l)
{
  counts[l + 1] = counts[l];
}

/// Copies type t's frontier at layer l, nodes[begin, counts[l]) with begin = counts[l - 1] (0 at
/// layer 0), into out[0, bound) and its length (capped at bound) into *out_count (unless null).
/// Index is also int64 when it copies the rows' query times of a temporal sample.
template <class Index>
GNNDIRECT_KERNEL void typed_frontier_kernel(const Index* nodes, const std::int64_t* counts, int l,
                                            std::int64_t bound, Index* out, std::int64_t* out_count)
{
  std::int64_t const begin = l == 0 ? 0 : counts[l - 1];
  std::int64_t n = counts[l] - begin;
  n = n < bound ? n : bound;
  if (out_count != nullptr && blockIdx.x == 0 && threadIdx.x == 0) { *out_count = n; }
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
    out[i] = nodes[begin + i];
  }
}

/// Occurrences of the prefix: position p holds nodes[p] for p < *prefix_count, else the sentinel.
template <class Index>
GNNDIRECT_KERNEL void typed_fill_prefix_kernel(const Index* nodes, const std::int64_t* prefix_count,
                                               std::int64_t bound, std::int64_t num_nodes,
                                               Index* ids, std::int64_t* positions)
{
  std::int64_t const count = *prefix_count;
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t p = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; p < bound; p += stride) {
    positions[p] = p;
    ids[p] = valid_or_sentinel(p < count ? nodes[p] : Index{0}, p < count, num_nodes);
  }
}

/// Occurrences of one relation's slots at positions base + s; marks every slot's local id unset
/// (-1) and reports a used slot whose id lies outside the src type.
template <class Index>
GNNDIRECT_KERNEL void typed_fill_slots_kernel(const Index* slots, const std::int64_t* counts,
                                              const std::int64_t* rows, std::int64_t slot_bound,
                                              int fanout, std::int64_t base, std::int64_t local_base,
                                              std::int64_t num_nodes, error_flag_ref bad,
                                              Index* ids, std::int64_t* positions, std::int64_t* local_of)
{
  std::int64_t const num_rows = *rows;
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t s = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; s < slot_bound; s += stride) {
    std::int64_t const i = s / fanout;
    std::int64_t const j = s - i * fanout;
    bool const used = i < num_rows && j < counts[i];
    Index const id = valid_or_sentinel(used ? slots[s] : Index{0}, used, num_nodes);
    if (used && id == static_cast<Index>(num_nodes)) { bad.report(s); }
    ids[base + s] = id;
    positions[base + s] = base + s;
    local_of[local_base + s] = -1;
  }
}

/// Local ids of every slot occurrence, and the new nodes appended to the list at their rank.
template <class Index>
GNNDIRECT_KERNEL void typed_assign_kernel(const Index* ids, const std::int64_t* positions,
                                          const std::int64_t* head_of, const std::int64_t* new_rank,
                                          std::int64_t n, std::int64_t prefix_bound,
                                          const std::int64_t* prefix_count, Index sentinel,
                                          Index* nodes, std::int64_t* local_of)
{
  std::int64_t const prefix = *prefix_count;
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; t < n; t += stride) {
    Index const id = ids[t];
    if (id == sentinel) { continue; }  // sentinels sort last
    std::int64_t const position = positions[t];
    if (position < prefix_bound) { continue; }  // already in the list
    std::int64_t const head = head_of[t];
    std::int64_t const first = positions[head];
    std::int64_t const local = first < prefix_bound ? first : prefix + new_rank[first - prefix_bound] - 1;
    local_of[position - prefix_bound] = local;
    if (head == t) { nodes[local] = id; }
  }
}

/// counts[l + 1] = prefix + new nodes.
template <class Count>
GNNDIRECT_KERNEL void typed_new_count_kernel(Count* counts, int l, const Count* new_rank, std::int64_t slots)
{
  counts[l + 1] = counts[l] + (slots > 0 ? new_rank[slots - 1] : 0);
}

/// Moves one relation's local ids (and edge ids) from its slots to CSR order; *num_edges =
/// offsets[row bound].
template <class Offset, class Index>
GNNDIRECT_KERNEL void typed_scatter_kernel(const std::int64_t* local_of, const Offset* slot_edge_ids,
                                           const std::int64_t* offsets, std::int64_t row_bound,
                                           int fanout, Index* indices, Offset* edge_ids,
                                           std::int64_t* num_edges)
{
  std::int64_t const slots = row_bound * fanout;
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  if (blockIdx.x == 0 && threadIdx.x == 0) { *num_edges = offsets[row_bound]; }
  for (std::int64_t s = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; s < slots; s += stride) {
    std::int64_t const i = s / fanout;
    std::int64_t const j = s - i * fanout;
    std::int64_t const begin = offsets[i];
    if (j >= offsets[i + 1] - begin) { continue; }
    std::int64_t const local = local_of[s];
    if (local >= 0) { indices[begin + j] = static_cast<Index>(local); }
    if (edge_ids != nullptr) { edge_ids[begin + j] = slot_edge_ids[s]; }
  }
}

/// Checks the capacities and reachability of the outputs against the bounds (before any launch).
/// @throws invalid_argument naming the node type or the layer and relation, and the field.
template <class Offset, class Index>
void check_typed_outputs(const sampled_typed_blocks_view<Offset, Index>& out, const typed_blocks_bounds& b,
                         const std::string& call = "sample_typed_blocks_async")
{
  GNNDIRECT_EXPECTS(out.node_types.size() == b.nodes.size(),
                    call + ": out has " + std::to_string(out.node_types.size()) + " node types, the graph " +
                      std::to_string(b.nodes.size()));
  GNNDIRECT_EXPECTS(out.layers.size() == b.num_layers(),
                    call + ": out has " + std::to_string(out.layers.size()) + " layers, the fanouts " +
                      std::to_string(b.num_layers()));
  constexpr const char* hint = " (size outputs with sample_typed_blocks_bounds)";
  auto const bytes = [](std::int64_t n, std::size_t size) { return static_cast<std::size_t>(n) * size; };
  for (std::size_t t = 0; t < b.nodes.size(); ++t) {
    auto const& x = out.node_types[t];
    std::string const where = call + ": node type " + std::to_string(t);
    check_capacity(x.capacity, b.nodes[t], where, "out.node_types[" + std::to_string(t) + "].capacity", "nodes", hint);
    GNNDIRECT_EXPECTS(x.counts != nullptr, where + ": null counts");
    GNNDIRECT_EXPECTS(b.nodes[t] == 0 || x.nodes != nullptr, where + ": null nodes");
    check_device_accessible(x.nodes, bytes(b.nodes[t], sizeof(Index)), alignof(Index), "nodes");
    check_device_accessible(x.counts, bytes(static_cast<std::int64_t>(b.num_layers()) + 1, 8), 8, "counts");
  }
  for (std::size_t l = 0; l < b.num_layers(); ++l) {
    GNNDIRECT_EXPECTS(out.layers[l].size() == b.layers[l].size(),
                      call + ": out.layers[" + std::to_string(l) + "] has " + std::to_string(out.layers[l].size()) +
                        " relations, the graph " + std::to_string(b.layers[l].size()));
    for (std::size_t r = 0; r < b.layers[l].size(); ++r) {
      auto const& x = out.layers[l][r];
      relation_bounds const& need = b.layers[l][r];
      std::string const where = call + ": layer " + std::to_string(l) + " relation " + std::to_string(r);
      std::string const field = "out.layers[" + std::to_string(l) + "][" + std::to_string(r) + "].capacity";
      check_capacity(x.capacity.num_dst, need.num_dst, where, field + ".num_dst", "offsets (num_dst + 1)", hint);
      check_capacity(x.capacity.num_edges, need.num_edges, where, field + ".num_edges", "indices/edge_ids", hint);
      GNNDIRECT_EXPECTS(x.offsets != nullptr && x.num_edges != nullptr, where + ": null offsets or num_edges");
      GNNDIRECT_EXPECTS(need.num_edges == 0 || x.indices != nullptr, where + ": null indices");
      check_device_accessible(x.offsets, bytes(need.num_dst + 1, 8), 8, "offsets");
      check_device_accessible(x.indices, bytes(need.num_edges, sizeof(Index)), alignof(Index), "indices");
      if (x.edge_ids != nullptr) {
        check_device_accessible(x.edge_ids, bytes(need.num_edges, sizeof(Offset)), alignof(Offset), "edge_ids");
      }
      check_device_accessible(x.num_edges, 8, 8, "num_edges");
    }
  }
}

/// Enqueues the typed relabelling of src type s at layer l over the slots of its relations
/// `rels` (schema order). Capturable. @throws cuda_error.
template <class Offset, class Index>
void typed_relabel_async(cudaStream_t stream, const typed_graph_view<Offset, Index>& graph,
                         const typed_blocks_bounds& b, std::size_t l, int s, const std::vector<int>& rels,
                         const sampled_typed_blocks_view<Offset, Index>& out,
                         const typed_workspace<Offset, Index>& w)
{
  auto const& list = out.node_types[static_cast<std::size_t>(s)];
  std::int64_t const num_nodes = graph.num_nodes[s];
  auto const sentinel = static_cast<Index>(num_nodes);
  // The list's bound before layer l: the type's seeds plus the new-node bounds of the earlier
  // layers, capped by its final bound (which the workspace was sized with).
  std::int64_t prefix = b.frontier[0][static_cast<std::size_t>(s)];
  for (std::size_t k = 0; k < l; ++k) { prefix += b.new_nodes[k][static_cast<std::size_t>(s)]; }
  prefix = std::min(prefix, b.nodes[static_cast<std::size_t>(s)]);
  std::int64_t slots = 0;
  for (int r : rels) { slots += b.layers[l][static_cast<std::size_t>(r)].num_edges; }
  std::int64_t const items = prefix + slots;
  relabel_scratch<Index> const& tmp = w.relabel;
  const std::int64_t* const prefix_count = list.counts + l;
  if (prefix > 0) {
    typed_fill_prefix_kernel<Index><<<elementwise_blocks(prefix), 256, 0, stream>>>(
      list.nodes, prefix_count, prefix, num_nodes, tmp.ids_in, tmp.positions_in);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
  }
  std::int64_t base = 0;
  for (int r : rels) {
    relation_bounds const& rb = b.layers[l][static_cast<std::size_t>(r)];
    if (rb.num_edges == 0) { continue; }
    int const fanout = b.fanouts[l][static_cast<std::size_t>(r)];
    int const dst = graph.relations[r].dst_type;
    error_flag_ref const bad{w.records + typed_record(l, static_cast<std::size_t>(r), b.layers[l].size(), 2)};
    typed_fill_slots_kernel<Index><<<elementwise_blocks(rb.num_edges), 256, 0, stream>>>(
      w.slot_neighbors[static_cast<std::size_t>(r)], w.counts[static_cast<std::size_t>(r)],
      w.frontier_counts + dst, rb.num_edges, fanout, prefix + base, base, num_nodes, bad, tmp.ids_in,
      tmp.positions_in, w.local_of);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
    capture_slot_value_kernel<Index><<<1, 1, 0, stream>>>(
      bad.record, w.slot_neighbors[static_cast<std::size_t>(r)], out.layers[l][static_cast<std::size_t>(r)].offsets, fanout);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
    base += rb.num_edges;
  }
  int const blocks = elementwise_blocks(items);
  std::size_t bytes = tmp.cub_bytes;
  GNNDIRECT_CUDA_TRY(::cub::DeviceRadixSort::SortPairs(tmp.cub_storage, bytes, tmp.ids_in, tmp.ids_sorted,
                                                       tmp.positions_in, tmp.positions_sorted, items, 0,
                                                       relabel_key_bits(num_nodes), stream));
  std::int64_t* const head_source = tmp.positions_in;  // free after the sort
  mark_heads_kernel<Index><<<blocks, 256, 0, stream>>>(tmp.ids_sorted, tmp.positions_sorted, items, prefix,
                                                       sentinel, head_source, tmp.first_seen);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  bytes = tmp.cub_bytes;
  GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveScan(tmp.cub_storage, bytes, head_source, tmp.head_of,
                                                      max_op{}, items, stream));
  bytes = tmp.cub_bytes;
  GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveSum(tmp.cub_storage, bytes, tmp.first_seen, tmp.new_rank,
                                                     slots, stream));
  typed_assign_kernel<Index><<<blocks, 256, 0, stream>>>(tmp.ids_sorted, tmp.positions_sorted, tmp.head_of,
                                                         tmp.new_rank, items, prefix, prefix_count,
                                                         sentinel, list.nodes, w.local_of);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  typed_new_count_kernel<std::int64_t><<<1, 1, 0, stream>>>(list.counts, static_cast<int>(l), tmp.new_rank, slots);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  base = 0;
  for (int r : rels) {
    relation_bounds const& rb = b.layers[l][static_cast<std::size_t>(r)];
    if (rb.num_edges == 0) { continue; }
    auto const& o = out.layers[l][static_cast<std::size_t>(r)];
    typed_scatter_kernel<Offset, Index><<<elementwise_blocks(rb.num_edges), 256, 0, stream>>>(
      w.local_of + base, w.slot_edge_ids[static_cast<std::size_t>(r)], o.offsets, rb.num_dst,
      b.fanouts[l][static_cast<std::size_t>(r)], o.indices, o.edge_ids, o.num_edges);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
    base += rb.num_edges;
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
