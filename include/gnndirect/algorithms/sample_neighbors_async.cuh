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

#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/bounded_count.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/sample_kernels.cuh>
#include <gnndirect/detail/algorithms/sample_neighbors_async.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

/// Workspace bytes sample_neighbors_async needs for `num_seeds` seeds (error record and scan
/// storage). @param num_seeds seed count  @return the bytes  @throws cuda_error.
inline std::size_t sample_neighbors_workspace_bytes(std::int64_t num_seeds);

/// Enqueues sampling of up to `fanout` neighbours of each seed with `sampler` on `stream`;
/// returns at once.
///
/// Writes out.counts, out.offsets and the first counts[i] slots of each seed. With
/// policy.check_indices, a seed outside [0, csr.num_nodes) gets count 0 and is recorded in `ws`;
/// a seed whose neighbour list is corrupt (indptr decreasing there, or past the edge array:
/// always checked, one comparison per seed) gets count 0 and is recorded too; call
/// sample_neighbors_check(stream, ws, csr.num_nodes) afterwards to raise them. Nothing is read
/// or written out of bounds, also with a faulty sampler: an emitted slot outside [0, fanout) is
/// refused and a returned count outside [0, fanout] gives the seed count 0, both recorded too.
/// Capturable in a CUDA graph (no allocation, no synchronisation).
/// @tparam Sampler any model of the sampler concept (device/samplers.hpp); the kernel is
/// instantiated for it alone
/// @param stream stream to enqueue on  @param csr device-visible graph
/// @param seeds device-visible array of node ids  @param num_seeds their number
/// @param fanout k >= 0  @param layer random counter layer (hop index)
/// @param sampler what to draw (with its seed and data)
/// @param policy tile_size, max_blocks and check_indices
/// @param out caller-owned output (slots sized num_seeds * fanout) with its capacities
/// @param ws workspace of at least sample_neighbors_workspace_bytes(num_seeds) bytes
/// @throws invalid_argument (policy, graph, sizes, workspace; weights missing for a sampler with
/// needs_weights; an out capacity not given or too small, naming the field, also when
/// num_seeds is 0) before any launch; cuda_error.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index, class Sampler>
void sample_neighbors_async(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                            const Index* seeds, std::int64_t num_seeds, int fanout, int layer,
                            const Sampler& sampler, const sampling_policy& policy,
                            const sampled_slots_view<Offset, Index>& out, workspace_view ws);

/// The same with the seed count on the device (e.g. the previous hop's relabel_async
/// out.num_src, with the previous hop's src nodes as seeds): the first num_seeds.get() seeds are
/// sampled, read when the work runs, and the others up to num_seeds.bound get count 0 (so
/// out.offsets[bound] is the edge count), which lets composed hops stay on the device and be
/// captured in one CUDA graph. Every host check, the launch and the workspace use
/// num_seeds.bound. Capturable.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Sampler any model of the sampler concept (device/samplers.hpp)
/// @param stream stream to enqueue on  @param csr device-visible graph
/// @param seeds device-visible node ids (num_seeds.bound of room)
/// @param num_seeds the seed count on the device and its bound
/// @param fanout, layer, sampler, policy as the host-count form
/// @param out, ws as the host-count form, sized for num_seeds.bound seeds
/// @throws as the host-count form (before any launch); cuda_error.
template <class Offset, class Index, class Sampler>
void sample_neighbors_async(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                            const Index* seeds, bounded_count num_seeds, int fanout, int layer,
                            const Sampler& sampler, const sampling_policy& policy,
                            const sampled_slots_view<Offset, Index>& out, workspace_view ws);

/// Synchronises `stream` and raises the error recorded in `ws` by the last
/// sample_neighbors_async that used it: a bad seed first, then a corrupt neighbour list, then a
/// faulty sampler (a returned count outside [0, fanout], then an emitted slot outside
/// [0, fanout)).
/// @param stream the stream it ran on  @param ws the workspace it used
/// @param num_nodes the graph's node count (for the message)
/// @throws index_out_of_range naming seeds[position] = value; invalid_argument naming the node
/// whose neighbour list is corrupt and its indptr[node + 1], or the sampler's count or slot and
/// the seed position; cuda_error. Not capturable.
inline void sample_neighbors_check(cudaStream_t stream, workspace_view ws, std::int64_t num_nodes);

/// Enqueues the compaction of sampled slots into CSR arrays: neighbors[offsets[i] + j] =
/// slots.neighbors[i * fanout + j] for j < counts[i] (likewise edge ids when both are given).
/// `neighbors`/`edge_ids` need room for offsets[num_seeds] entries (num_seeds * fanout always
/// suffices). Capturable. @throws invalid_argument (negative sizes; a capacity of `slots` not
/// given or below num_seeds / num_seeds * fanout, naming the field) before any launch;
/// cuda_error.
/// @param stream stream to enqueue on  @param slots sample_neighbors_async's output
/// @param num_seeds seed count  @param fanout the fanout it sampled with
/// @param neighbors, edge_ids device-visible outputs (edge_ids may be null)
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
void compact_sampled_async(cudaStream_t stream, const sampled_slots_view<Offset, Index>& slots,
                           std::int64_t num_seeds, int fanout, Index* neighbors, Offset* edge_ids);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/sample_neighbors_async.inl>
