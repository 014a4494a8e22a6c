#pragma once
/// @file generate_typed.hpp
/// @brief Seeded synthetic typed graphs shaped like IGBH (MLPerf's R-GAT benchmark) and
/// ogbn-mag: node types, relations and reverses of their schemas, node and edge counts scaled
/// from the datasets', each relation an R-MAT graph (graph/generate.hpp) (host-compilable).
///
/// Relation edges: R-MAT draws (generate_edges) on max(src count, dst count) ids, folded onto
/// each side by floor(id * count / max) (so hubs stay hubs on both sides); the reverse relation
/// holds the same edges the other way. Relation k is drawn with seed + k, so a relation's edges
/// do not depend on the others'.

#include <gnndirect/core/typed_schema.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/graph/coo_to_csr.hpp>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/graph/generator_options.hpp>
#include <gnndirect/graph/typed_graph.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Typed datasets whose schema and counts the typed presets copy.
enum class typed_preset : std::uint8_t {
  /// IGBH-full (IGB heterogeneous; MLPerf R-GAT): paper 269,346,174, author 277,220,883,
  /// institute 26,918, fos 712,960, journal 49,052, conference 4,547 nodes; cites 3.996 G,
  /// written_by 716.8 M, affiliated_to 48.5 M, topic 1.050 G, published 196.2 M, venue 38.6 M
  /// edges (approximate, from the IGB release), plus a rev_ relation for each.
  igbh,
  /// ogbn-mag: paper 736,389, author 1,134,649, institution 8,740, field_of_study 59,965 nodes;
  /// writes 7,145,660, affiliated_with 1,043,998, cites 5,416,271, has_topic 7,505,078 edges,
  /// plus a rev_ relation for each.
  ogbn_mag,
};

/// One forward relation of a preset: its key and full-size edge count.
struct typed_preset_relation {
  relation_type key;       ///< (src, name, dst)
  std::int64_t num_edges;  ///< full-size edges
};

/// Node types (with full-size counts) and forward relations of a preset.
struct typed_preset_shape {
  std::vector<std::pair<std::string, std::int64_t>> node_types;  ///< (name, full-size count)
  std::vector<typed_preset_relation> relations;                   ///< forward relations
};

/// Full-size shape of a preset.  @param preset the preset  @return its shape
inline typed_preset_shape preset_shape(typed_preset preset);

namespace host {

/// Builds the CSC (indexed by `rows` ids, neighbours `cols` ids) of n_rows rows: a counting sort
/// that keeps input order within a row.
/// @param rows, cols edge endpoints  @param n_rows row count  @param weights per edge or empty
/// @return the CSC  @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
host_csr<Offset, Index> typed_csc_of(const std::vector<Index>& rows, const std::vector<Index>& cols,
                                     std::int64_t n_rows, const std::vector<float>& weights);

/// Generates a typed graph shaped like `preset`, node and edge counts times `scale` (rounded; at
/// least one node per type; scale at most 1). Relations: the preset's forward relations in order, then their
/// reverses (rev_<name>, endpoints swapped) in the same order. Synchronous; host only.
/// @param preset the dataset  @param scale size factor (> 0)  @param seed generator seed
/// @param weights whether every edge gets a weight in (0, 1] (for weighted sampling)
/// @return the graph  @throws invalid_argument for a bad scale or an edge count the offset type
/// cannot hold.  @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
host_typed_graph<Offset, Index> generate_typed(typed_preset preset, double scale, std::uint64_t seed = 0,
                                               bool weights = false);

}  // namespace host

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/graph/generate_typed.inl>
