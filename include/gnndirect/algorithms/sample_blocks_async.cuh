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
#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/sample_blocks_async.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/device/temporal_samplers.hpp>

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
                                                      std::int64_t num_nodes = -1);

/// Workspace bytes sample_blocks_async needs for up to `num_seeds` seeds on a graph of
/// `num_nodes` nodes (the same arguments as sample_blocks_bounds). @throws invalid_argument
/// (as sample_blocks_bounds), cuda_error.
/// @param num_seeds, fanouts, num_nodes as sample_blocks_bounds  @return the bytes
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
std::size_t sample_blocks_workspace_bytes(std::int64_t num_seeds, const std::vector<int>& fanouts,
                                          std::int64_t num_nodes);

/// Enqueues a whole multi-layer sample with `sampler` on `stream`; returns at once.
///
/// Layer l's arrays in `out` must hold sample_blocks_bounds(num_seeds, fanouts,
/// csr.num_nodes)[l] entries (arrays sized for more seeds also do), and its capacity must say
/// what they hold (required: a layer without one is refused). Writes, per layer: *num_src,
/// *num_edges, offsets[0, num_dst bound] (entries past num_dst equal num_edges), and only the
/// valid prefixes src_nodes[0, num_src), indices and edge_ids [0, num_edges); nothing else.
/// Never synchronises and never allocates: capturable in a CUDA graph (the seeds are read when
/// the work runs, so a graph replays with new seeds copied into the same array). A seed outside
/// [0, csr.num_nodes) (checked when policy.check_indices) is recorded in `ws` and gets no
/// neighbours, and a sampled neighbour id outside the graph (always checked: it is dropped from
/// the src nodes, its local id left unwritten) is recorded too, as is a faulty sampler (a slot
/// outside [0, fanout) is refused; a count outside [0, fanout] gives the row count 0): call
/// sample_blocks_check afterwards to raise them. Without seed checks a bad seed is undefined behaviour.
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
/// needs_weights, a layer's capacity not given or below its bounds, naming the layer and the
/// field, null, unreachable or misaligned outputs or workspace) before any launch; cuda_error.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Sampler sampler type (a model of the sampler concept, device/samplers.hpp)
template <class Offset, class Index, class Sampler>
void sample_blocks_async(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                         const Index* seeds, std::int64_t num_seeds, const std::vector<int>& fanouts,
                         const Sampler& sampler, const sampling_policy& policy,
                         const sampled_blocks_view<Offset, Index>& out, workspace_view ws);

/// Synchronises `stream` and raises the first error recorded in `ws` by the last
/// sample_blocks_async of `num_layers` layers that used it, layer by layer (a layer's seeds, its
/// corrupt neighbour lists, its sampler's misbehaviour, then its sampled neighbours). Not
/// capturable.
/// @param stream the stream it ran on  @param ws the workspace it used
/// @param num_layers its layers
/// @param num_nodes the graph's node count (for the message)
/// @throws index_out_of_range naming "seeds of layer l"[position] = value, or "sampled neighbours
/// of layer l"[edge position] = value (a corrupt graph); invalid_argument naming the layer, the
/// node whose neighbour list is corrupt (indptr decreasing there, or past the edge array) and its
/// indptr[node + 1], or the count (outside [0, fanout]) or slot (outside [0, fanout)) the
/// sampler gave for a dst row, or a null workspace; cuda_error.
inline void sample_blocks_check(cudaStream_t stream, workspace_view ws, std::size_t num_layers,
                                std::int64_t num_nodes);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/sample_blocks_async.inl>
