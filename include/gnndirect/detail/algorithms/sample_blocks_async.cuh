#pragma once
/// @file sample_blocks_async.cuh
/// @brief Internals of algorithms/sample_blocks_async.cuh: the carving of a sample_blocks
/// workspace, the argument and output (capacity) checks, and the sampling and relabelling of one
/// layer (not part of the API).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/bounded_count.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/core/workspace.hpp>
#include <gnndirect/detail/algorithms/relabel.cuh>
#include <gnndirect/detail/algorithms/sample_kernels.cuh>
#include <gnndirect/detail/algorithms/sample_neighbors_async.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/device/samplers.hpp>

#include <cub/device/device_scan.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Error records per layer at the start of a sample_blocks workspace: its seeds, its sampled
/// neighbours, its corrupt neighbour lists, its sampler's bad counts, its sampler's bad slots.
inline constexpr int block_records = 5;

/// Slices of a sample_blocks workspace: block_records error records per layer first (so the
/// check finds them from the layer count alone), then the temporaries of one layer sized for the largest layer (layers run one after
/// another on the stream and reuse them).
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
  w.records = carver.take<error_record>(n(block_records * static_cast<std::int64_t>(bounds.size()), sizeof(error_record)));
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
  for (int fanout : fanouts) {
    validate(sampler, policy, csr, fanout);
    check_sample_shared_memory(sampler, policy, fanout);  // every layer's, before layer 0 is enqueued
  }
  check_sample_inputs(csr, seeds, num_seeds);  // once, not per layer
  GNNDIRECT_EXPECTS(csr.num_nodes < std::int64_t{std::numeric_limits<Index>::max()},
                    "sample_blocks: num_nodes must be below the largest Index (the relabelling's "
                    "sentinel id is num_nodes)");
}

/// Checks a layer's capacities (required) against the bounds the call writes up to, then that
/// its output arrays exist wherever those bounds need them.
template <class Offset, class Index>
void check_layer_output(const sampled_block_view<Offset, Index>& out, const block_bounds& b,
                        std::size_t l)
{
  std::string const layer = std::to_string(l);
  check_block_capacity(out, b, "sample_blocks_async: layer " + layer, "out.layers[" + layer + "]",
                       " (size outputs with sample_blocks_bounds for at least this many seeds)");
  std::string const where = "sample_blocks_async: layer " + layer + ": null ";
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
                        bounded_count num_dst, int fanout, int l, const Sampler& sampler,
                        const sampling_policy& policy,
                        const sampled_block_view<Offset, Index>& out,
                        const blocks_workspace<Offset, Index>& w)
{
  error_record* const records = w.records + block_records * l;
  error_flag_ref const flag{records};
  error_flag_ref const graph_flag{records + 2};
  sampler_flags const sampler_records{{records + 3}, {records + 4}};
  std::int64_t const dst_bound = num_dst.bound;
  Offset* const slot_edge_ids = out.edge_ids == nullptr ? nullptr : w.slot_edge_ids;
  GNNDIRECT_CUDA_TRY(cudaMemsetAsync(out.offsets, 0, sizeof(std::int64_t), stream));
  if (dst_bound > 0) {
    // Also with fanout 0: the kernel is where seeds are checked (a bad one would otherwise pass
    // unreported and leave its src row unwritten), and it writes the counts the scan reads.
    // Seeds past the device-side count get count 0 and are not read.
    launch_sample_neighbors(stream, csr, dst, dst_bound, num_dst.value, fanout, l, sampler, policy,
                            w.slot_neighbors, slot_edge_ids, w.counts, flag, graph_flag, sampler_records);
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
  in.bad_neighbors = error_flag_ref{records + 1};
  // bad_dst and bad_counts stay null: the sampling kernel checked the seeds (later layers' dst are
  // this call's own src nodes) and the counts, and the scan of those counts gave the offsets.
  relabel_output<Offset, Index> const result{out.src_nodes, out.indices, out.edge_ids, out.num_src,
                                             out.num_edges};
  relabel_async(stream, in, result, w.relabel);
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
