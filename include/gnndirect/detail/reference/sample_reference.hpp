#pragma once
/// @file sample_reference.hpp
/// @brief Internals of reference/sample_reference.hpp: the draw a sampler type selects, the
/// per-node draws (Floyd, with replacement, weighted keys), the input checks and the
/// relabelling of a block (host-compilable; not part of the API).

#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/core/sampling_math.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/reference/reference_blocks.hpp>

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
}  // namespace host
GNNDIRECT_NAMESPACE_END
