#pragma once
/// @file typed_blocks_bounds.hpp
/// @brief Typed sampling on the host side: the argument checks every typed sampler runs, the
/// upper bounds its outputs are sized by, and how a relation enters the random key
/// (host-compilable).
///
/// Random key: relation r's draws at layer l use the relation's sampler with counter layer
/// typed_random_layer(l, r) = l + 65536 * r (and, as in the homogeneous sampler, the dst node's
/// id, local to its type, and the draw), so that two relations sampled for the same node draw
/// independently, relation 0 draws what the homogeneous sampler draws at the same layer, and
/// nothing depends on the launch configuration or on the other relations.

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/sampled_typed_views.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/typed_schema.hpp>
#include <gnndirect/core/typed_seeds_view.hpp>
#include <gnndirect/core/version.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Most layers of a typed sample (the layer fills the low 16 bits of typed_random_layer).
inline constexpr int max_typed_layers = 65536;

/// The counter layer of relation r's draws at layer l (see the file comment).
/// @param layer the layer  @param relation the relation index  @return layer + 65536 * relation
GNNDIRECT_HOST_DEVICE constexpr int typed_random_layer(int layer, int relation) noexcept
{
  return layer + max_typed_layers * relation;
}

/// Upper bounds of a typed sample (sample_typed_blocks_bounds), which its outputs are sized by.
struct typed_blocks_bounds {
  /// node type of the seeds for the one-type form; -1 for the multi-type form (whose seeds per
  /// type are frontier[0])
  int seed_type{-1};
  std::vector<std::vector<int>> fanouts;             ///< [layer][relation], -1 resolved to max_degree
  std::vector<std::vector<std::int64_t>> frontier;   ///< [layer][type]: dst rows at that layer
  std::vector<std::vector<relation_bounds>> layers;  ///< [layer][relation]
  std::vector<std::vector<std::int64_t>> new_nodes;  ///< [layer][type]: nodes a layer may add
  std::vector<std::int64_t> nodes;                   ///< [type]: node list length after all layers

  /// @return number of layers
  std::size_t num_layers() const noexcept { return layers.size(); }
};

/// Checks a typed graph view's shape (no array is read): type and relation counts within the
/// view's limits, node counts >= 0 and below the largest Index, every relation's endpoint types
/// known and its CSC's row count equal to its dst type's node count, edge counts >= 0.
/// @param graph the view  @param schema names for the messages, or null (indices are named)
/// @throws invalid_argument naming the relation (by key when `schema` is given) and the field.
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
void check_typed_graph_shape(const typed_graph_view<Offset, Index>& graph,
                             const typed_schema* schema = nullptr);

/// Checks the arguments of a typed sample and returns its bounds (pure host function).
///
/// Layer 0's frontier is the seeds (type `seed_type`); at layer l every relation samples its
/// fanout for each frontier node of its dst type, and the new src nodes of a type (not already
/// in its list) are its frontier at layer l + 1. Bounds: a relation's edges are frontier rows x
/// fanout; a type's new nodes are its relations' edges, capped by its node count; its list is
/// the seeds (seed type) plus every layer's new nodes, capped by seeds + node count.
/// @param graph the typed graph (shape-checked here)
/// @param seed_type node type of the seeds  @param num_seeds their number (>= 0)
/// @param fanouts per relation per layer (typed_fanouts_of); -1 resolves to the relation's
/// max_degree
/// @return the bounds
/// @throws invalid_argument (graph shape, as check_typed_graph_shape; an unknown seed type; a
/// fanout table of another relation count, uneven or empty lists, more than max_typed_layers
/// layers; -1 for a relation of unknown max_degree; a bound beyond int64).
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
typed_blocks_bounds sample_typed_blocks_bounds(const typed_graph_view<Offset, Index>& graph,
                                               int seed_type, std::int64_t num_seeds,
                                               const typed_fanouts& fanouts);

/// Multi-type form (link seeds, pyg-lib's seed dict): every type t starts its list with
/// seeds_per_type[t] seeds, which are its frontier at layer 0; then as the one-type form. The
/// one-type form equals this one with the seed type's count and 0 elsewhere (but seed_type set).
/// Pure host function.
/// @param graph the typed graph (shape-checked here)
/// @param seeds_per_type per node type its seed count (or capacity), >= 0; one entry per type
/// @param fanouts as the one-type form
/// @return the bounds (seed_type -1)
/// @throws invalid_argument (as the one-type form; an entry count other than the graph's node
/// type count; a negative count, naming the type).
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
typed_blocks_bounds sample_typed_blocks_bounds(const typed_graph_view<Offset, Index>& graph,
                                               const std::vector<std::int64_t>& seeds_per_type,
                                               const typed_fanouts& fanouts);

/// Multi-type form from a seeds view (its counts; no array is read).
/// @param graph the typed graph  @param seeds seeds per type (typed_seed_counts checks them)
/// @param fanouts as the one-type form
/// @return the bounds (seed_type -1)
/// @throws invalid_argument (as the counts form; a view of another node type count; a null
/// array with a non-zero count).
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
typed_blocks_bounds sample_typed_blocks_bounds(const typed_graph_view<Offset, Index>& graph,
                                               const typed_seeds_view<Index>& seeds,
                                               const typed_fanouts& fanouts);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/typed_blocks_bounds.inl>
