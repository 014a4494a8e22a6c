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
                                                              int threads = default_thread_count())
{
  detail::reference_draw const policy = detail::reference_draw_of(sampler);
  validate(sampler, sampling_policy{}, csr, fanout);
  GNNDIRECT_EXPECTS(num_seeds >= 0 && (num_seeds == 0 || seeds != nullptr),
                    "sample_neighbors_reference: bad seed array");
  detail::check_indices(seeds, num_seeds, csr.num_nodes, "seeds");
  detail::check_lists(csr, seeds, num_seeds);

  reference_neighbors<Offset, Index> result;
  result.offsets.assign(static_cast<std::size_t>(num_seeds) + 1, 0);
  std::int64_t* const counts = result.offsets.data() + 1;
  parallel_for_ranges(
    num_seeds,
    [&](std::int64_t begin, std::int64_t end, int) {
      for (std::int64_t i = begin; i < end; ++i) {
        counts[i] = detail::sample_count(csr, static_cast<std::int64_t>(seeds[i]), fanout, policy.kind);
      }
    },
    threads);
  for (std::int64_t i = 0; i < num_seeds; ++i) { counts[i] += result.offsets[static_cast<std::size_t>(i)]; }

  auto const total = static_cast<std::size_t>(result.num_edges());
  result.neighbors.resize(total);
  result.edge_ids.resize(total);
  auto const counter_layer = static_cast<std::uint32_t>(layer);
  parallel_for_ranges(
    num_seeds,
    [&](std::int64_t begin, std::int64_t end, int) {
      detail::sample_scratch scratch;
      for (std::int64_t i = begin; i < end; ++i) {
        auto const node = static_cast<std::int64_t>(seeds[i]);
        detail::sample_positions(csr, node, fanout, counter_layer, policy, scratch);
        Offset const first = csr.begin(node);
        auto out = static_cast<std::size_t>(result.offsets[static_cast<std::size_t>(i)]);
        for (std::int64_t p : scratch.positions) {
          auto const e = static_cast<Offset>(first + p);
          result.neighbors[out] = csr.indices[e];
          result.edge_ids[out] = csr.edge_id(e);
          ++out;
        }
      }
    },
    threads);
  return result;
}

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
                                                      int threads = default_thread_count())
{
  GNNDIRECT_EXPECTS(!fanouts.empty(), "sample_blocks_reference: at least one fanout is needed");
  GNNDIRECT_EXPECTS(num_seeds >= 0 && (num_seeds == 0 || seeds != nullptr),
                    "sample_blocks_reference: bad seed array");
  reference_blocks<Offset, Index> result;
  result.layers.resize(fanouts.size());
  for (std::size_t l = 0; l < fanouts.size(); ++l) {
    auto& layer = result.layers[l];
    if (l == 0) {
      layer.dst_nodes.assign(seeds, seeds + num_seeds);
    } else {
      layer.dst_nodes = result.layers[l - 1].src_nodes;
    }
    auto const num_dst = static_cast<std::int64_t>(layer.dst_nodes.size());
    detail::check_indices(layer.dst_nodes.data(), num_dst, csr.num_nodes,
                        "seeds of layer " + std::to_string(l));
    auto sampled = sample_neighbors_reference(csr, layer.dst_nodes.data(), num_dst, fanouts[l],
                                              static_cast<int>(l), sampler, threads);
    // Checked here, not only as the next layer's dst nodes: the last layer's neighbours are
    // nobody's dst nodes, and they become src_nodes (input node ids) all the same.
    detail::check_indices(sampled.neighbors.data(), sampled.num_edges(), csr.num_nodes,
                        "sampled neighbour ids (csr.indices) of layer " + std::to_string(l));
    layer.offsets = std::move(sampled.offsets);
    layer.edge_ids = std::move(sampled.edge_ids);
    detail::relabel_block(layer, sampled.neighbors);
  }
  return result;
}

}  // namespace host
GNNDIRECT_NAMESPACE_END
