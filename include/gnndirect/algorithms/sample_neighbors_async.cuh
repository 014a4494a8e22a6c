#pragma once
/// @file sample_neighbors_async.cuh
/// @brief Bulk GPU neighbour sampling into caller-owned outputs: one layer, a batch of seeds
/// (needs nvcc; includes no owners).
///
/// Output layout: fixed-stride slots (seed i owns slots [i * fanout, (i + 1) * fanout), of which
/// the first counts[i] are written), per-seed counts, and their scan offsets[0..num_seeds]
/// (cub::DeviceScan) so that the slots can be compacted into CSR arrays. Results equal the host
/// reference (reference/sample_reference.hpp) bit for bit; semantics in device/samplers.hpp.
/// Every call is a template on the sampler (any model of the sampler concept): only that
/// sampler's kernel is compiled. The csr_view holds device-visible addresses in any placement
/// (device, pinned, registered, managed_host); placement only changes speed.
/// algorithms/sample_neighbors.cuh adds the synchronous call that returns owners.

#include <gnndirect/core/sampled_refs.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/sample_kernels.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>

#include <cub/device/device_scan.cuh>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

namespace detail {

/// Slices of a sampling workspace: the two error records first (bad seeds, corrupt neighbour
/// lists; so checks find them without sizes), then CUB's scan storage. The sizing pass and the
/// operation share this carving.
struct sample_workspace {
  error_flag_ref flag;
  error_flag_ref graph_flag;
  void* scan_storage{nullptr};
  std::size_t scan_bytes{0};
  std::size_t total{0};
};

/// Carves (or, with a null workspace, sizes) the slices for `num_seeds` seeds.
/// @throws invalid_argument when a non-null workspace is too small; cuda_error.
inline sample_workspace carve_sample_workspace(workspace_view ws, std::int64_t num_seeds)
{
  sample_workspace slices;
  workspace_carver carver(ws);
  slices.flag.record = carver.take<error_record>(2 * sizeof(error_record));
  slices.graph_flag.record = slices.flag.record == nullptr ? nullptr : slices.flag.record + 1;
  GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveSum(nullptr, slices.scan_bytes,
                                                     static_cast<const std::int64_t*>(nullptr),
                                                     static_cast<std::int64_t*>(nullptr), num_seeds));
  slices.scan_storage = carver.take<void>(slices.scan_bytes);
  slices.total = carver.used();
  return slices;
}

/// The seed error record of a sampling workspace (its first slice; needs no sizes).
inline error_flag_ref sample_flag(workspace_view ws) noexcept
{
  return error_flag_ref{static_cast<error_record*>(ws.data)};
}

/// The corrupt-list record of a sampling workspace (the second slice).
inline error_flag_ref sample_graph_flag(workspace_view ws) noexcept
{
  return error_flag_ref{static_cast<error_record*>(ws.data) + 1};
}

/// The seed array and where the graph's arrays live (one cudaPointerGetAttributes per array).
template <class Offset, class Index>
void check_sample_inputs(const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds)
{
  GNNDIRECT_EXPECTS(num_seeds >= 0, "sample_neighbors: num_seeds must be >= 0");
  GNNDIRECT_EXPECTS(num_seeds == 0 || seeds != nullptr, "sample_neighbors: null seeds");
  check_device_accessible(seeds, static_cast<std::size_t>(num_seeds) * sizeof(Index), alignof(Index), "seeds");
  check_device_accessible(csr.indptr, 0, alignof(Offset), "indptr");
  check_device_accessible(csr.indices, 0, alignof(Index), "csr indices");
  if (csr.weights != nullptr) { check_device_accessible(csr.weights, 0, alignof(float), "weights"); }
  if (csr.edge_ids != nullptr) { check_device_accessible(csr.edge_ids, 0, alignof(Offset), "edge_ids"); }
}

/// Argument checks shared by the async and synchronous calls (before any launch).
template <class Sampler, class Offset, class Index>
void check_sample_arguments(const csr_view<Offset, Index>& csr, const Index* seeds,
                            std::int64_t num_seeds, int fanout, const Sampler& sampler,
                            const sampling_policy& policy)
{
  static_assert(is_sampler_v<Sampler>,
                "gnndirect sampling: the sampler must model the sampler concept "
                "(device/samplers.hpp): needs_weights, scratch_bytes(fanout, tile_size), "
                "sample(tile, csr, edges, fanout, layer, scratch, out), trivially copyable");
  validate(sampler, policy, csr, fanout);
  check_sample_inputs(csr, seeds, num_seeds);
}

}  // namespace detail

/// Workspace bytes sample_neighbors_async needs for `num_seeds` seeds (error record and scan
/// storage). @param num_seeds seed count  @return the bytes  @throws cuda_error.
inline std::size_t sample_neighbors_workspace_bytes(std::int64_t num_seeds)
{
  return detail::carve_sample_workspace(workspace_view{}, num_seeds).total;
}

namespace detail {

/// The body of sample_neighbors_async: output and workspace checks, error records reset,
/// offsets[0] = 0, then `launch(flag, graph_flag)` enqueues the sampling kernel, then the value
/// captures of the checks and the scan of the counts.
template <class Offset, class Index, class Launch>
void enqueue_sample_neighbors(cudaStream_t stream, const Offset* indptr, const Index* seeds,
                              std::int64_t num_seeds, int fanout, bool check_indices,
                              const sampled_slots_ref<Offset, Index>& out, workspace_view ws,
                              Launch&& launch)
{
  GNNDIRECT_EXPECTS(out.offsets != nullptr && (num_seeds == 0 || out.counts != nullptr),
                    "sample_neighbors_async: null counts or offsets");
  GNNDIRECT_EXPECTS(num_seeds == 0 || fanout == 0 || out.neighbors != nullptr,
                    "sample_neighbors_async: null neighbour slots");
  GNNDIRECT_EXPECTS(ws.data != nullptr,
                    "sample_neighbors_async: null workspace (size it with "
                    "sample_neighbors_workspace_bytes)");
  GNNDIRECT_EXPECTS(out.seed_capacity < 0 || out.seed_capacity >= num_seeds,
                    "sample_neighbors_async: counts hold " + std::to_string(out.seed_capacity) +
                      " seeds, the call has " + std::to_string(num_seeds));
  GNNDIRECT_EXPECTS(out.slot_capacity < 0 || out.slot_capacity >= num_seeds * fanout,
                    "sample_neighbors_async: neighbors hold " + std::to_string(out.slot_capacity) +
                      " slots, the call needs " + std::to_string(num_seeds * fanout));
  check_device_accessible(out.counts, static_cast<std::size_t>(num_seeds) * 8, 8, "counts");
  check_device_accessible(out.offsets, static_cast<std::size_t>(num_seeds + 1) * 8, 8, "offsets");
  check_device_accessible(out.neighbors, 0, alignof(Index), "neighbors");
  check_device_accessible(out.edge_ids, 0, alignof(Offset), "edge_ids");
  check_device_accessible(ws.data, ws.bytes, workspace_alignment, "workspace");
  sample_workspace const slices = carve_sample_workspace(ws, num_seeds);
  slices.flag.reset_async(stream);
  slices.graph_flag.reset_async(stream);
  GNNDIRECT_CUDA_TRY(cudaMemsetAsync(out.offsets, 0, sizeof(std::int64_t), stream));
  if (num_seeds == 0) { return; }
  launch(slices.flag, slices.graph_flag);
  if (check_indices) { slices.flag.capture_value_async(stream, seeds); }
  capture_list_end_async(stream, slices.graph_flag, indptr);
  std::size_t scan_bytes = slices.scan_bytes;
  GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveSum(slices.scan_storage, scan_bytes, out.counts,
                                                     out.offsets + 1, num_seeds, stream));
}

}  // namespace detail

/// Enqueues sampling of up to `fanout` neighbours of each seed with `sampler` on `stream`;
/// returns at once.
///
/// Writes out.counts, out.offsets and the first counts[i] slots of each seed. With
/// policy.check_indices, a seed outside [0, csr.num_nodes) gets count 0 and is recorded in `ws`;
/// a seed whose neighbour list is corrupt (indptr decreasing there, or past the edge array:
/// always checked, one comparison per seed) gets count 0 and is recorded too; call
/// sample_neighbors_check(stream, ws, csr.num_nodes) afterwards to raise them. Nothing is read
/// or written out of bounds. Capturable in a CUDA graph (no allocation, no synchronisation).
/// @tparam Sampler any model of the sampler concept (device/samplers.hpp); the kernel is
/// instantiated for it alone
/// @param stream stream to enqueue on  @param csr device-visible graph
/// @param seeds device-visible array of node ids  @param num_seeds their number
/// @param fanout k >= 0  @param layer random counter layer (hop index)
/// @param sampler what to draw (with its seed and data)
/// @param policy tile_size, max_blocks and check_indices
/// @param out caller-owned output (slots sized num_seeds * fanout)
/// @param ws workspace of at least sample_neighbors_workspace_bytes(num_seeds) bytes
/// @throws invalid_argument (policy, graph, sizes, workspace; weights missing for a sampler with
/// needs_weights) before any launch; cuda_error.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index, class Sampler>
void sample_neighbors_async(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                            const Index* seeds, std::int64_t num_seeds, int fanout, int layer,
                            const Sampler& sampler, const sampling_policy& policy,
                            const sampled_slots_ref<Offset, Index>& out, workspace_view ws)
{
  detail::check_sample_arguments(csr, seeds, num_seeds, fanout, sampler, policy);
  detail::enqueue_sample_neighbors(
    stream, csr.indptr, seeds, num_seeds, fanout, policy.check_indices, out, ws,
    [&](detail::error_flag_ref flag, detail::error_flag_ref graph_flag) {
      detail::launch_sample_neighbors(stream, csr, seeds, num_seeds, nullptr, fanout, layer, sampler,
                                      policy, out.neighbors, out.edge_ids, out.counts, flag, graph_flag);
    });
}

/// Synchronises `stream` and raises the error recorded in `ws` by the last
/// sample_neighbors_async that used it: a bad seed first, then a corrupt neighbour list.
/// @param stream the stream it ran on  @param ws the workspace it used
/// @param num_nodes the graph's node count (for the message)
/// @throws index_out_of_range naming seeds[position] = value; invalid_argument naming the node
/// whose neighbour list is corrupt and its indptr[node + 1]; cuda_error. Not capturable.
inline void sample_neighbors_check(cudaStream_t stream, workspace_view ws, std::int64_t num_nodes)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, "sample_neighbors_check: null workspace");
  detail::check_device_accessible(ws.data, 0, workspace_alignment, "workspace");
  detail::sample_flag(ws).throw_if_set(stream, "seeds", num_nodes);
  detail::throw_if_corrupt_list(stream, detail::sample_graph_flag(ws), "sample_neighbors");
}

/// Enqueues the compaction of sampled slots into CSR arrays: neighbors[offsets[i] + j] =
/// slots.neighbors[i * fanout + j] for j < counts[i] (likewise edge ids when both are given).
/// `neighbors`/`edge_ids` need room for offsets[num_seeds] entries (num_seeds * fanout always
/// suffices). Capturable. @throws cuda_error.
/// @param stream stream to enqueue on  @param slots sample_neighbors_async's output
/// @param num_seeds seed count  @param fanout the fanout it sampled with
/// @param neighbors, edge_ids device-visible outputs (edge_ids may be null)
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
void compact_sampled_async(cudaStream_t stream, const sampled_slots_ref<Offset, Index>& slots,
                           std::int64_t num_seeds, int fanout, Index* neighbors, Offset* edge_ids)
{
  detail::launch_compact_slots(stream, slots.neighbors, slots.edge_ids, slots.offsets, num_seeds,
                               fanout, neighbors, slots.edge_ids == nullptr ? nullptr : edge_ids);
}

GNNDIRECT_NAMESPACE_END
