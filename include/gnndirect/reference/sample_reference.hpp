#pragma once
/// @file sample_reference.hpp
/// @brief Host reference of neighbour sampling and message-flow blocks (host-compilable).
///
/// Same semantics and same random numbers as the GPU sampler with the library's samplers
/// (device/samplers.hpp defines them; they are given as types, as to every sampling entry point),
/// computed with plain C++ threads: GPU tests compare against it bit for bit and
/// benchmarks use it as the CPU-centric baseline. The csr_view must hold host addresses.

#include <gnndirect/core/sampled_refs.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/core/sampling_math.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/util/parallel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

/// Sampled edges of a batch of seeds in CSR form: seed i's sampled neighbours are
/// neighbors[offsets[i] .. offsets[i+1]) with the ids of the sampled edges alongside.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct sampled_neighbors {
  std::vector<std::int64_t> offsets;  ///< num_seeds + 1 prefix sums of per-seed counts
  std::vector<Index> neighbors;       ///< sampled neighbour (global) ids
  std::vector<Offset> edge_ids;       ///< csr.edge_id(position) of each sampled edge

  /// @return number of seeds
  std::int64_t num_seeds() const noexcept { return static_cast<std::int64_t>(offsets.size()) - 1; }
  /// @return number of sampled edges
  std::int64_t num_edges() const noexcept { return offsets.empty() ? 0 : offsets.back(); }
};

/// One message-flow block (one sampling layer) with local ids.
///
/// src_nodes starts with dst_nodes (same order), followed by the sampled neighbours that are not
/// dst nodes, in order of first appearance in the concatenated per-dst samples. Local CSC: dst
/// node d's sampled in-neighbours are the local src ids indices[offsets[d] .. offsets[d+1]).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct reference_block {
  std::vector<Index> dst_nodes;       ///< global ids of the destination nodes (this layer's seeds)
  std::vector<Index> src_nodes;       ///< global ids of the source nodes (dst nodes first)
  std::vector<std::int64_t> offsets;  ///< num_dst + 1
  std::vector<Index> indices;         ///< local src id of each sampled edge
  std::vector<Offset> edge_ids;       ///< global edge id of each sampled edge
};

/// Blocks of a multi-layer sample. layers[0] samples from the seeds with fanouts[0]; layer l + 1
/// samples from layer l's src nodes with fanouts[l + 1] (random counter layer = l). DGL lists
/// blocks input side first: DGL's blocks[i] is layers[L - 1 - i] here.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct reference_blocks {
  std::vector<reference_block<Offset, Index>> layers;  ///< one block per fanout, seeds side first

  /// @return global ids of the input (feature) nodes: the last layer's src nodes
  const std::vector<Index>& input_nodes() const noexcept { return layers.back().src_nodes; }
  /// The blocks as views of the family every sampler hands out (core/sampled_refs.hpp;
  /// host memory), valid while this owner lives.  @return the views
  blocks_ref<Offset, Index> ref() const
  {
    blocks_ref<Offset, Index> out;
    for (auto const& layer : layers) { out.layers.push_back(gnndirect::detail::block_ref_of<Offset, Index>(layer)); }
    return out;
  }
};

namespace detail {

/// Which of the library's samplers the reference runs.
enum class reference_kind { uniform, with_replacement, weighted };

/// The reference's view of a library sampler: its algorithm and seed.
struct reference_draw {
  reference_kind kind{reference_kind::uniform};
  std::uint64_t seed{0};
};

/// The draw of a library sampler; any other type fails to compile with a message.
template <class Sampler>
constexpr reference_draw reference_draw_of(const Sampler& sampler) noexcept
{
  if constexpr (std::is_same_v<Sampler, uniform_sampler>) {
    return {reference_kind::uniform, sampler.seed};
  } else if constexpr (std::is_same_v<Sampler, uniform_with_replacement_sampler>) {
    return {reference_kind::with_replacement, sampler.seed};
  } else {
    static_assert(std::is_same_v<Sampler, weighted_sampler>,
                  "host reference: only the library's samplers (uniform_sampler, "
                  "uniform_with_replacement_sampler, weighted_sampler) have a host reference; a "
                  "user-written sampler needs its own (see test/gpu/test_blocks_async.cu)");
    return {reference_kind::weighted, sampler.seed};
  }
}

/// Per-thread scratch of the reference sampler, reused across seeds (no per-seed allocation).
struct sample_scratch {
  std::vector<std::int64_t> positions;                        ///< chosen positions
  std::vector<std::pair<std::uint64_t, std::int64_t>> keyed;  ///< (weighted key, position)
};

/// Number of edges the sampler emits for `node` (pure function of degree, fanout, weights).
template <class Offset, class Index>
std::int64_t sample_count(const csr_view<Offset, Index>& csr, std::int64_t node, int fanout,
                          reference_kind kind)
{
  std::int64_t const degree = csr.degree(node);
  switch (kind) {
    case reference_kind::uniform: return std::min<std::int64_t>(degree, fanout);
    case reference_kind::with_replacement: return degree > 0 ? fanout : 0;
    case reference_kind::weighted: {
      const float* const weights = csr.weights + csr.begin(node);
      std::int64_t const eligible = std::count_if(
        weights, weights + degree, [](float w) { return gnndirect::detail::is_eligible_weight(w); });
      return std::min<std::int64_t>(eligible, fanout);
    }
  }
  return 0;
}

/// Floyd's algorithm: fanout distinct positions in [0, degree) (fanout < degree), sorted.
inline void floyd_positions(std::uint64_t seed, std::uint32_t layer, std::uint64_t node,
                            std::int64_t degree, std::int64_t fanout,
                            std::vector<std::int64_t>& positions)
{
  positions.clear();
  for (std::int64_t j = 0; j < fanout; ++j) {
    std::int64_t const candidate =
      gnndirect::detail::floyd_candidate(seed, layer, node, j, degree, fanout);
    // Linear search: fanout is small, and it mirrors the GPU's compare-with-all exactly.
    bool const taken = std::find(positions.begin(), positions.end(), candidate) != positions.end();
    positions.push_back(taken ? degree - fanout + j : candidate);
  }
  std::sort(positions.begin(), positions.end());
}

/// Weighted selection: positions of the fanout smallest (key, position) pairs among eligible
/// edges (all of them when fewer), sorted by position.
template <class Offset, class Index>
void weighted_positions(const csr_view<Offset, Index>& csr, std::uint64_t seed,
                        std::uint32_t layer, std::int64_t node, std::int64_t fanout,
                        sample_scratch& scratch)
{
  std::int64_t const degree = csr.degree(node);
  const float* const weights = csr.weights + csr.begin(node);
  auto& keyed = scratch.keyed;
  keyed.clear();
  for (std::int64_t p = 0; p < degree; ++p) {
    if (!gnndirect::detail::is_eligible_weight(weights[p])) { continue; }
    keyed.emplace_back(gnndirect::detail::weighted_key(seed, layer, static_cast<std::uint64_t>(node),
                                                       p, weights[p]),
                       p);
  }
  if (static_cast<std::int64_t>(keyed.size()) > fanout) {
    // std::pair's order is (key, position): exactly key_position_less.
    std::nth_element(keyed.begin(), keyed.begin() + fanout, keyed.end());
    keyed.resize(static_cast<std::size_t>(fanout));
  }
  scratch.positions.clear();
  for (auto const& entry : keyed) { scratch.positions.push_back(entry.second); }
  std::sort(scratch.positions.begin(), scratch.positions.end());
}

/// Chosen positions (relative to the node's first edge) of one node, in output order.
template <class Offset, class Index>
void sample_positions(const csr_view<Offset, Index>& csr, std::int64_t node, int fanout,
                      std::uint32_t layer, const reference_draw& policy, sample_scratch& scratch)
{
  std::int64_t const degree = csr.degree(node);
  auto& positions = scratch.positions;
  positions.clear();
  auto const unode = static_cast<std::uint64_t>(node);
  switch (policy.kind) {
    case reference_kind::uniform:
      if (degree <= fanout) {
        for (std::int64_t p = 0; p < degree; ++p) { positions.push_back(p); }
      } else {
        floyd_positions(policy.seed, layer, unode, degree, fanout, positions);
      }
      return;
    case reference_kind::with_replacement:
      for (std::int64_t j = 0; degree > 0 && j < fanout; ++j) {
        positions.push_back(gnndirect::detail::replacement_draw(policy.seed, layer, unode, j, degree));
      }
      return;
    case reference_kind::weighted:
      weighted_positions(csr, policy.seed, layer, node, fanout, scratch);
      return;
  }
}

/// Throws invalid_argument for the first node whose neighbour list is corrupt (indptr decreasing
/// there, or the list outside [0, num_edges]), before anything reads it.
template <class Offset, class Index>
void check_lists(const csr_view<Offset, Index>& csr, const Index* nodes, std::int64_t n)
{
  for (std::int64_t i = 0; i < n; ++i) {
    auto const v = static_cast<std::int64_t>(nodes[i]);
    auto const first = static_cast<std::int64_t>(csr.indptr[v]);
    auto const end = static_cast<std::int64_t>(csr.indptr[v + 1]);
    if (first < 0 || end < first || end > csr.num_edges) {
      throw invalid_argument(__FILE__, __LINE__,
                             "sample_neighbors_reference: corrupt graph: node " + std::to_string(v) +
                               "'s neighbour list ends at indptr[" + std::to_string(v) + " + 1] = " +
                               std::to_string(end) + ", before it starts or past the edge array");
    }
  }
}

/// Throws index_out_of_range for the first seed outside [0, num_nodes).
template <class Index>
void check_indices(const Index* seeds, std::int64_t num_seeds, std::int64_t num_nodes,
                 const std::string& what)
{
  for (std::int64_t i = 0; i < num_seeds; ++i) {
    if (seeds[i] < 0 || static_cast<std::int64_t>(seeds[i]) >= num_nodes) {
      throw index_out_of_range(__FILE__, __LINE__, what, i, static_cast<std::int64_t>(seeds[i]),
                               num_nodes);
    }
  }
}

}  // namespace detail

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
sampled_neighbors<Offset, Index> sample_neighbors_reference(const csr_view<Offset, Index>& csr,
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

  sampled_neighbors<Offset, Index> result;
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

namespace detail {

/// Relabels one layer: src = dst (in order) then new neighbours by first appearance; rewrites
/// the sampled neighbour ids to local ids. Sequential: the order is inherently sequential and the
/// hash map costs little next to sampling.
template <class Offset, class Index>
void relabel_block(reference_block<Offset, Index>& out, const std::vector<Index>& sampled)
{
  std::unordered_map<Index, Index> local;
  local.reserve(out.dst_nodes.size() + sampled.size());
  out.src_nodes = out.dst_nodes;
  for (std::size_t d = 0; d < out.dst_nodes.size(); ++d) {
    local.emplace(out.dst_nodes[d], static_cast<Index>(d));  // first occurrence wins
  }
  out.indices.resize(sampled.size());
  for (std::size_t e = 0; e < sampled.size(); ++e) {
    auto const inserted = local.emplace(sampled[e], static_cast<Index>(out.src_nodes.size()));
    if (inserted.second) { out.src_nodes.push_back(sampled[e]); }
    out.indices[e] = inserted.first->second;
  }
}

}  // namespace detail

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
