#pragma once
/// @file sample_blocks_async.cuh
/// @brief Multi-layer GPU sampling with relabelling to local ids (message-flow blocks) into
/// caller-owned outputs (needs nvcc; includes no owners: algorithms/sample_blocks.cuh adds them).
///
/// Layer l samples from its dst nodes (layer 0: the seeds; layer l > 0: layer l-1's src nodes)
/// with fanouts[l], the caller's sampler (a type, device/samplers.hpp) and random counter layer
/// l, then relabels with the code of the public relabel_async (algorithms/relabel.cuh): src
/// nodes are the dst nodes (same order) followed by the other sampled neighbours in order of
/// first appearance. With the library's samplers the result equals
/// host::sample_blocks_reference bit for bit. DGL lists blocks input side first: DGL's
/// blocks[i] is layers[L - 1 - i] here.
///
/// Two entry points:
/// - sample_blocks_async writes into caller-owned arrays sized by upper bounds
///   (sample_blocks_bounds), keeps every size in device memory (num_src and num_edges per layer)
///   and needs a caller workspace: it never synchronises and never allocates, so a whole batch is
///   one stream of work that can be captured in a CUDA graph and replayed per batch. Bad seeds
///   are recorded in the workspace; sample_blocks_check raises them. sample_blocks_buffers owns
///   a reusable set of such arrays and workspace.
/// - sample_blocks is the synchronous convenience built on it: it reads all counts back once
///   (one host round trip per call, not per layer) and returns exactly-sized owners.
///
/// Why the bounds are exact enough: the sampled slots are fixed-stride (dst i owns fanout slots),
/// and relabelling sorts the whole bound with a sentinel id for every unused row or slot, so no
/// kernel's size depends on a count the host has not seen.

#include <gnndirect/algorithms/relabel.cuh>
#include <gnndirect/algorithms/sample_neighbors_async.cuh>
#include <gnndirect/core/sampled_refs.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/relabel.cuh>
#include <gnndirect/detail/algorithms/sample_kernels.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>

#include <cub/device/device_scan.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Upper bounds per layer for `num_seeds` seeds: num_dst_0 = num_seeds, edges_l = num_dst_l *
/// fanouts[l], num_src_l = num_dst_l + edges_l, num_dst_{l+1} = num_src_l. With num_nodes >= 0
/// the new nodes of a layer are also capped by the graph (num_src_l <= num_seeds + num_nodes: src
/// nodes are the seeds followed by distinct other nodes), which keeps deep samples of small graphs
/// small. Pure host function.
/// @param num_seeds seed count  @param fanouts one per layer  @param num_nodes graph size, or -1
/// @return one entry per layer
/// @throws invalid_argument for num_seeds < 0, empty fanouts, a negative fanout, or a bound
/// beyond int64.
inline std::vector<block_bounds> sample_blocks_bounds(std::int64_t num_seeds,
                                                      const std::vector<int>& fanouts,
                                                      std::int64_t num_nodes = -1)
{
  GNNDIRECT_EXPECTS(num_seeds >= 0, "sample_blocks_bounds: num_seeds must be >= 0");
  GNNDIRECT_EXPECTS(!fanouts.empty(), "sample_blocks: at least one fanout is needed");
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max() / 2;
  std::vector<block_bounds> bounds(fanouts.size());
  std::int64_t dst = num_seeds;
  for (std::size_t l = 0; l < fanouts.size(); ++l) {
    GNNDIRECT_EXPECTS(fanouts[l] >= 0, "sampling: fanout must be >= 0, got " + std::to_string(fanouts[l]));
    GNNDIRECT_EXPECTS(fanouts[l] == 0 || dst <= max / fanouts[l],
                      "sample_blocks_bounds: layer " + std::to_string(l) + " bound overflows int64");
    block_bounds& b = bounds[l];
    b.num_dst = dst;
    b.num_edges = dst * fanouts[l];
    b.num_src = dst + b.num_edges;
    if (num_nodes >= 0) { b.num_src = std::min(b.num_src, num_seeds + num_nodes); }
    dst = b.num_src;
  }
  return bounds;
}

namespace detail {

/// Slices of a sample_blocks workspace: three error records per layer first (its seeds, its
/// sampled neighbours, its corrupt neighbour lists;
/// neighbours; so the check finds them from the layer count alone), then the temporaries of one layer sized for the largest
/// layer (layers run one after another on the stream and reuse them).
template <class Offset, class Index>
struct blocks_workspace {
  error_record* records{nullptr};
  std::int64_t* counts{nullptr};
  Index* slot_neighbors{nullptr};
  Offset* slot_edge_ids{nullptr};
  relabel_scratch<Index> relabel;
  std::size_t total{0};
};

/// Carves (or, with a null workspace, sizes) the slices for the given bounds.
/// @throws invalid_argument when a non-null workspace is too small; cuda_error.
template <class Offset, class Index>
blocks_workspace<Offset, Index> carve_blocks_workspace(workspace_view ws,
                                                       const std::vector<block_bounds>& bounds)
{
  std::int64_t dst = 0;
  std::int64_t slots = 0;
  std::int64_t items = 0;
  std::size_t cub = 1;
  for (block_bounds const& b : bounds) {
    dst = std::max(dst, b.num_dst);
    slots = std::max(slots, b.num_edges);
    items = std::max(items, b.num_dst + b.num_edges);
    cub = std::max(cub, relabel_cub_bytes<Index>(b.num_dst + b.num_edges, b.num_edges, b.num_dst));
  }
  auto const n = [](std::int64_t count, std::size_t size) { return static_cast<std::size_t>(count) * size; };
  workspace_carver carver(ws);
  blocks_workspace<Offset, Index> w;
  w.records = carver.take<error_record>(n(3 * static_cast<std::int64_t>(bounds.size()), sizeof(error_record)));
  w.counts = carver.take<std::int64_t>(n(dst, sizeof(std::int64_t)));
  w.slot_neighbors = carver.take<Index>(n(slots, sizeof(Index)));
  w.slot_edge_ids = carver.take<Offset>(n(slots, sizeof(Offset)));
  w.relabel = carve_relabel_scratch<Index>(carver, items, slots, cub);
  w.total = carver.used();
  return w;
}

/// Argument checks of sample_blocks_async (before any launch).
template <class Sampler, class Offset, class Index>
void check_blocks_arguments(const csr_view<Offset, Index>& csr, const Index* seeds,
                            std::int64_t num_seeds, const std::vector<int>& fanouts,
                            const Sampler& sampler, const sampling_policy& policy)
{
  static_assert(is_sampler_v<Sampler>,
                "gnndirect sample_blocks: the sampler must model the sampler concept "
                "(device/samplers.hpp): needs_weights, scratch_bytes(fanout, tile_size), "
                "sample(tile, csr, edges, fanout, layer, scratch, out), trivially copyable");
  GNNDIRECT_EXPECTS(!fanouts.empty(), "sample_blocks: at least one fanout is needed");
  for (int fanout : fanouts) { validate(sampler, policy, csr, fanout); }
  check_sample_inputs(csr, seeds, num_seeds);  // once, not per layer
  GNNDIRECT_EXPECTS(csr.num_nodes < std::int64_t{std::numeric_limits<Index>::max()},
                    "sample_blocks: num_nodes must be below the largest Index (the relabelling's "
                    "sentinel id is num_nodes)");
}

/// Checks a layer's capacities (when given) against the bounds the call will write up to.
/// @throws invalid_argument naming `where`, the array, its capacity and the bound.
inline void check_capacity(const block_bounds& capacity, const block_bounds& b, const std::string& where)
{
  auto const fits = [&](std::int64_t have, std::int64_t need, const char* array) {
    GNNDIRECT_EXPECTS(have < 0 || have >= need,
                      where + ": " + array + " holds " + std::to_string(have) + " entries, the call " +
                        "may write " + std::to_string(need) + " (size outputs with sample_blocks_bounds " +
                        "for at least this many seeds)");
  };
  fits(capacity.num_src, b.num_src, "src_nodes");
  fits(capacity.num_dst, b.num_dst, "offsets (num_dst + 1)");
  fits(capacity.num_edges, b.num_edges, "indices/edge_ids");
}

/// Checks that a layer's output arrays exist wherever its bounds need them.
template <class Offset, class Index>
void check_layer_output(const sampled_block_ref<Offset, Index>& out, const block_bounds& b,
                        std::size_t l)
{
  std::string const where = "sample_blocks_async: layer " + std::to_string(l) + ": null ";
  check_capacity(out.capacity, b, "sample_blocks_async: layer " + std::to_string(l));
  GNNDIRECT_EXPECTS(out.offsets != nullptr, where + "offsets");
  GNNDIRECT_EXPECTS(out.num_src != nullptr && out.num_edges != nullptr, where + "num_src/num_edges");
  GNNDIRECT_EXPECTS(b.num_src == 0 || out.src_nodes != nullptr, where + "src_nodes");
  GNNDIRECT_EXPECTS(b.num_edges == 0 || out.indices != nullptr, where + "indices");
  auto const bytes = [](std::int64_t n, std::size_t size) { return static_cast<std::size_t>(n) * size; };
  check_device_accessible(out.src_nodes, bytes(b.num_src, sizeof(Index)), alignof(Index), "src_nodes");
  check_device_accessible(out.offsets, bytes(b.num_dst + 1, 8), 8, "offsets");
  check_device_accessible(out.indices, bytes(b.num_edges, sizeof(Index)), alignof(Index), "indices");
  if (out.edge_ids != nullptr) {
    check_device_accessible(out.edge_ids, bytes(b.num_edges, sizeof(Offset)), alignof(Offset), "edge_ids");
  }
  check_device_accessible(out.num_src, 8, 8, "num_src");
  check_device_accessible(out.num_edges, 8, 8, "num_edges");
}

/// Samples and relabels layer l whose dst nodes are dst[0, num_dst) (num_dst on the device for
/// l > 0). Capturable.
template <class Sampler, class Offset, class Index>
void sample_block_async(cudaStream_t stream, const csr_view<Offset, Index>& csr, const Index* dst,
                        device_count num_dst, int fanout, int l, const Sampler& sampler,
                        const sampling_policy& policy,
                        const sampled_block_ref<Offset, Index>& out,
                        const blocks_workspace<Offset, Index>& w)
{
  error_flag_ref const flag{w.records + 3 * l};
  error_flag_ref const graph_flag{w.records + 3 * l + 2};
  std::int64_t const dst_bound = num_dst.bound;
  Offset* const slot_edge_ids = out.edge_ids == nullptr ? nullptr : w.slot_edge_ids;
  GNNDIRECT_CUDA_TRY(cudaMemsetAsync(out.offsets, 0, sizeof(std::int64_t), stream));
  if (dst_bound > 0) {
    // Also with fanout 0: the kernel is where seeds are checked (a bad one would otherwise pass
    // unreported and leave its src row unwritten), and it writes the counts the scan reads.
    // Seeds past the device-side count get count 0 and are not read.
    launch_sample_neighbors(stream, csr, dst, dst_bound, num_dst.value, fanout, l, sampler, policy,
                            w.slot_neighbors, slot_edge_ids, w.counts, flag, graph_flag);
    if (policy.check_indices) { flag.capture_value_async(stream, dst); }
    capture_list_end_async(stream, graph_flag, csr.indptr);
    std::size_t bytes = w.relabel.cub_bytes;
    GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveSum(w.relabel.cub_storage, bytes, w.counts,
                                                       out.offsets + 1, dst_bound, stream));
  }
  relabel_input<Offset, Index> in;
  in.dst = dst;
  in.num_dst = num_dst;
  in.slot_neighbors = w.slot_neighbors;
  in.slot_edge_ids = slot_edge_ids;
  in.counts = w.counts;
  in.offsets = out.offsets;
  in.fanout = fanout;
  in.num_nodes = csr.num_nodes;
  in.bad_neighbors = error_flag_ref{w.records + 3 * l + 1};
  relabel_output<Offset, Index> const result{out.src_nodes, out.indices, out.edge_ids, out.num_src,
                                             out.num_edges};
  relabel_async(stream, in, result, w.relabel);
}

}  // namespace detail

/// Workspace bytes sample_blocks_async needs for up to `num_seeds` seeds on a graph of
/// `num_nodes` nodes (the same arguments as sample_blocks_bounds). @throws invalid_argument
/// (as sample_blocks_bounds), cuda_error.
/// @param num_seeds, fanouts, num_nodes as sample_blocks_bounds  @return the bytes
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
std::size_t sample_blocks_workspace_bytes(std::int64_t num_seeds, const std::vector<int>& fanouts,
                                          std::int64_t num_nodes)
{
  return detail::carve_blocks_workspace<Offset, Index>(
           workspace_view{}, sample_blocks_bounds(num_seeds, fanouts, num_nodes))
    .total;
}

/// Enqueues a whole multi-layer sample with `sampler` on `stream`; returns at once.
///
/// Layer l's arrays in `out` must hold sample_blocks_bounds(num_seeds, fanouts,
/// csr.num_nodes)[l] entries (arrays sized for more seeds also do). Writes, per layer: *num_src,
/// *num_edges, offsets[0, num_dst bound] (entries past num_dst equal num_edges), and only the
/// valid prefixes src_nodes[0, num_src), indices and edge_ids [0, num_edges); nothing else.
/// Never synchronises and never allocates: capturable in a CUDA graph (the seeds are read when
/// the work runs, so a graph replays with new seeds copied into the same array). A seed outside
/// [0, csr.num_nodes) (checked when policy.check_indices) is recorded in `ws` and gets no
/// neighbours, and a sampled neighbour id outside the graph (always checked: it is dropped from
/// the src nodes, its local id left unwritten) is recorded too: call sample_blocks_check
/// afterwards to raise them. Without seed checks a bad seed is undefined behaviour.
/// @param stream stream to enqueue on
/// @param csr device-visible graph (any placement); its neighbour ids should lie in
/// [0, num_nodes) (check untrusted graphs with validate())
/// @param seeds device-visible array of node ids (repeats allowed: separate dst rows)
/// @param num_seeds their number
/// @param fanouts one fanout (>= 0) per layer
/// @param sampler what to draw (any model of the sampler concept, device/samplers.hpp; the
/// kernel is instantiated for it alone)  @param policy tile, budget, checks
/// @param out caller-owned outputs, one entry per fanout
/// @param ws workspace of at least sample_blocks_workspace_bytes<Offset, Index>(num_seeds,
/// fanouts, csr.num_nodes) bytes; reusable once the enqueued work (and the check) has run
/// @throws invalid_argument (policy, graph, sizes, weights missing for a sampler with
/// needs_weights, null, unreachable or misaligned outputs or workspace) before any launch;
/// cuda_error.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Sampler sampler type (a model of the sampler concept, device/samplers.hpp)
template <class Offset, class Index, class Sampler>
void sample_blocks_async(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                         const Index* seeds, std::int64_t num_seeds, const std::vector<int>& fanouts,
                         const Sampler& sampler, const sampling_policy& policy,
                         const sampled_blocks_ref<Offset, Index>& out, workspace_view ws)
{
  detail::check_blocks_arguments(csr, seeds, num_seeds, fanouts, sampler, policy);
  GNNDIRECT_EXPECTS(out.layers.size() == fanouts.size(),
                    "sample_blocks_async: out has " + std::to_string(out.layers.size()) +
                      " layers for " + std::to_string(fanouts.size()) + " fanouts");
  GNNDIRECT_EXPECTS(ws.data != nullptr, "sample_blocks_async: null workspace (size it with "
                                        "sample_blocks_workspace_bytes)");
  detail::check_device_accessible(ws.data, ws.bytes, workspace_alignment, "workspace");
  std::vector<block_bounds> const bounds = sample_blocks_bounds(num_seeds, fanouts, csr.num_nodes);
  for (std::size_t l = 0; l < bounds.size(); ++l) { detail::check_layer_output(out.layers[l], bounds[l], l); }
  auto const w = detail::carve_blocks_workspace<Offset, Index>(ws, bounds);
  GNNDIRECT_CUDA_TRY(
    cudaMemsetAsync(w.records, 0xFF, 3 * sizeof(detail::error_record) * bounds.size(), stream));
  for (std::size_t l = 0; l < bounds.size(); ++l) {
    const Index* const dst = l == 0 ? seeds : out.layers[l - 1].src_nodes;
    detail::device_count const num_dst{l == 0 ? nullptr : out.layers[l - 1].num_src, bounds[l].num_dst};
    detail::sample_block_async(stream, csr, dst, num_dst, fanouts[l], static_cast<int>(l), sampler,
                               policy, out.layers[l], w);
  }
}

/// Synchronises `stream` and raises the first error recorded in `ws` by the last
/// sample_blocks_async of `num_layers` layers that used it, layer by layer (a layer's seeds, its
/// corrupt neighbour lists, then its sampled neighbours). Not capturable.
/// @param stream the stream it ran on  @param ws the workspace it used
/// @param num_layers its layers
/// @param num_nodes the graph's node count (for the message)
/// @throws index_out_of_range naming "seeds of layer l"[position] = value, or "sampled neighbours
/// of layer l"[edge position] = value (a corrupt graph); invalid_argument naming the layer, the
/// node whose neighbour list is corrupt (indptr decreasing there, or past the edge array) and its
/// indptr[node + 1], or a null workspace; cuda_error.
inline void sample_blocks_check(cudaStream_t stream, workspace_view ws, std::size_t num_layers,
                                std::int64_t num_nodes)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, "sample_blocks_check: null workspace");
  detail::check_device_accessible(ws.data, 0, workspace_alignment, "workspace");
  std::vector<detail::error_record> records(3 * num_layers);
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(records.data(), ws.data, sizeof(detail::error_record) * records.size(),
                                     cudaMemcpyDefault, stream));
  detail::synchronize(stream);
  for (std::size_t l = 0; l < num_layers; ++l) {
    for (std::size_t r : {3 * l, 3 * l + 2, 3 * l + 1}) {  // seeds, lists, sampled neighbours
      detail::error_record const& record = records[r];
      if (record.position == detail::no_bad_position) { continue; }
      auto const position = static_cast<std::int64_t>(record.position);
      auto const value = static_cast<std::int64_t>(record.value);
      std::string const layer = "layer " + std::to_string(l);
      if (r == 3 * l + 2) {
        throw invalid_argument(__FILE__, __LINE__,
                               "sample_blocks: corrupt graph (" + layer + "): node " +
                                 std::to_string(position) + "'s neighbour list ends at indptr[" +
                                 std::to_string(position) + " + 1] = " + std::to_string(value) +
                                 ", before it starts or past the edge array (nothing was read "
                                 "there; check untrusted graphs with validate())");
      }
      std::string const what = (r == 3 * l ? "seeds of " : "sampled neighbours of ") + layer;
      throw index_out_of_range(__FILE__, __LINE__, what, position, value, num_nodes);
    }
  }
}

GNNDIRECT_NAMESPACE_END
