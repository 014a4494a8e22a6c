#pragma once
/// @file sample_reference.hpp
/// @brief Host reference of neighbour sampling and message-flow blocks (host-compilable); the
/// result types are in reference_blocks.hpp.
///
/// Same semantics and same random numbers as the GPU sampler with the library's samplers
/// (device/samplers.hpp defines them; they are given as types, as to every sampling entry point),
/// computed with plain C++ threads: GPU tests compare against it bit for bit and
/// benchmarks use it as the CPU-centric baseline. The csr_view must hold host addresses.

#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/reference/sample_reference.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/reference/reference_blocks.hpp>
#include <gnndirect/util/parallel.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

/// Samples up to `fanout` neighbours of each seed on the host, with all cores.
///
/// Two passes over the seeds (count, then fill at the final offsets) so that no thread-local
/// output is copied. Blocking; deterministic for any thread count.
/// @param csr graph with host-readable arrays  @param seeds host array of node ids
/// @param num_seeds their number
/// @param fanout draws per seed (>= 0)  @param layer random counter layer (hop index)
/// @tparam Sampler uniform_sampler, uniform_with_replacement_sampler or weighted_sampler (other
/// types do not compile)
/// @param sampler what to draw, with its seed (the tuning of sampling_policy does not apply)
/// @param threads worker threads (default: all cores)
/// @throws invalid_argument for a bad fanout or graph (weights missing for weighted_sampler);
/// index_out_of_range naming "seeds" and the first bad position when a seed is outside
/// [0, num_nodes) (always checked on the host).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @return the sampled edges, seed by seed
template <class Offset, class Index, class Sampler>
reference_neighbors<Offset, Index> sample_neighbors_reference(const csr_view<Offset, Index>& csr,
                                                              const Index* seeds,
                                                              std::int64_t num_seeds, int fanout,
                                                              int layer, const Sampler& sampler,
                                                              int threads = default_thread_count());

/// Multi-layer sampling with relabelling to local ids (message-flow blocks), on the host.
///
/// Layer l samples from its dst nodes (layer 0: `seeds`; layer l > 0: layer l-1's src nodes) with
/// fanouts[l] and random counter layer l. See reference_block for the local id order. Blocking.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Sampler as for sample_neighbors_reference  @param num_seeds number of seeds
/// @return the blocks, seeds side first
/// @param csr host-readable graph  @param seeds host array of num_seeds node ids (normally unique;
/// duplicates are kept as separate dst rows that map to the first one's local id)
/// @param fanouts one fanout per layer (at least one)  @param sampler as for
/// sample_neighbors_reference  @param threads worker threads for sampling
/// @throws invalid_argument for empty fanouts, bad arguments or a corrupt neighbour list of a
/// dst node (naming the node); index_out_of_range ("seeds of layer 0", first bad position) for a
/// seed outside [0, num_nodes), and ("sampled neighbour ids (csr.indices) of layer l", position
/// among the layer's sampled edges) for a sampled neighbour id outside it, in any layer.
template <class Offset, class Index, class Sampler>
reference_blocks<Offset, Index> sample_blocks_reference(const csr_view<Offset, Index>& csr,
                                                      const Index* seeds, std::int64_t num_seeds,
                                                      const std::vector<int>& fanouts,
                                                      const Sampler& sampler,
                                                      int threads = default_thread_count());

}  // namespace host
GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/reference/sample_reference.inl>
