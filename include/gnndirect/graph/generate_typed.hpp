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

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/typed_schema.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/graph/coo_to_csr.hpp>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/graph/generator_options.hpp>
#include <gnndirect/graph/typed_graph.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
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
inline typed_preset_shape preset_shape(typed_preset preset)
{
  if (preset == typed_preset::igbh) {
    return {{{"paper", 269'346'174}, {"author", 277'220'883}, {"institute", 26'918},
             {"fos", 712'960}, {"journal", 49'052}, {"conference", 4'547}},
            {{{"paper", "cites", "paper"}, 3'996'442'004},
             {{"paper", "written_by", "author"}, 716'761'549},
             {{"author", "affiliated_to", "institute"}, 48'521'486},
             {{"paper", "topic", "fos"}, 1'050'280'600},
             {{"paper", "published", "journal"}, 196'200'110},
             {{"paper", "venue", "conference"}, 38'550'888}}};
  }
  return {{{"paper", 736'389}, {"author", 1'134'649}, {"institution", 8'740}, {"field_of_study", 59'965}},
          {{{"author", "writes", "paper"}, 7'145'660},
           {{"author", "affiliated_with", "institution"}, 1'043'998},
           {{"paper", "cites", "paper"}, 5'416'271},
           {{"paper", "has_topic", "field_of_study"}, 7'505'078}}};
}

namespace host {

/// Builds the CSC (indexed by `rows` ids, neighbours `cols` ids) of n_rows rows: a counting sort
/// that keeps input order within a row.
/// @param rows, cols edge endpoints  @param n_rows row count  @param weights per edge or empty
/// @return the CSC  @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
host_csr<Offset, Index> typed_csc_of(const std::vector<Index>& rows, const std::vector<Index>& cols,
                                     std::int64_t n_rows, const std::vector<float>& weights)
{
  host_csr<Offset, Index> out;
  out.num_nodes = n_rows;
  out.indptr.assign(static_cast<std::size_t>(n_rows) + 1, 0);
  for (Index r : rows) { ++out.indptr[static_cast<std::size_t>(r) + 1]; }
  for (std::size_t v = 0; v < static_cast<std::size_t>(n_rows); ++v) { out.indptr[v + 1] += out.indptr[v]; }
  std::vector<Offset> next(out.indptr.begin(), out.indptr.end() - 1);
  out.indices.resize(rows.size());
  if (!weights.empty()) { out.weights.resize(rows.size()); }
  for (std::size_t e = 0; e < rows.size(); ++e) {
    auto const at = static_cast<std::size_t>(next[static_cast<std::size_t>(rows[e])]++);
    out.indices[at] = cols[e];
    if (!weights.empty()) { out.weights[at] = weights[e]; }
  }
  return out;
}

/// Generates a typed graph shaped like `preset`, node and edge counts times `scale` (rounded; at
/// least one node per type; scale at most 1). Relations: the preset's forward relations in order, then their
/// reverses (rev_<name>, endpoints swapped) in the same order. Synchronous; host only.
/// @param preset the dataset  @param scale size factor (> 0)  @param seed generator seed
/// @param weights whether every edge gets a weight in (0, 1] (for weighted sampling)
/// @return the graph  @throws invalid_argument for a bad scale or an edge count the offset type
/// cannot hold.  @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
host_typed_graph<Offset, Index> generate_typed(typed_preset preset, double scale, std::uint64_t seed = 0,
                                               bool weights = false)
{
  GNNDIRECT_EXPECTS(std::isfinite(scale) && scale > 0 && scale <= 1,
                    "generate_typed: scale must be in (0, 1]");
  typed_preset_shape const shape = preset_shape(preset);
  std::vector<std::string> names;
  host_typed_graph<Offset, Index> g;
  for (auto const& [name, count] : shape.node_types) {
    names.push_back(name);
    g.num_nodes.push_back(std::max<std::int64_t>(1, std::llround(static_cast<double>(count) * scale)));
  }
  std::vector<relation_type> keys;
  for (auto const& r : shape.relations) { keys.push_back(r.key); }
  for (auto const& r : shape.relations) { keys.push_back({r.key.dst, "rev_" + r.key.name, r.key.src}); }
  g.schema = typed_schema(names, keys);
  std::vector<host_csr<Offset, Index>> reverse;
  for (std::size_t k = 0; k < shape.relations.size(); ++k) {
    auto const& r = shape.relations[k];
    std::int64_t const n_src = g.num_nodes[static_cast<std::size_t>(g.schema.node_type(r.key.src))];
    std::int64_t const n_dst = g.num_nodes[static_cast<std::size_t>(g.schema.node_type(r.key.dst))];
    generator_options options;
    options.num_nodes = std::max(n_src, n_dst);
    options.num_edges = std::llround(static_cast<double>(r.num_edges) * scale);
    options.seed = seed + k;
    options.weights = weights;
    GNNDIRECT_EXPECTS(options.num_edges <= static_cast<std::int64_t>(std::numeric_limits<Offset>::max()),
                      "generate_typed: relation " + to_string(r.key) + " has more edges than the offset type holds");
    host_coo<Index> coo = generate_coo<Index>(options);
    auto const fold = [&](std::vector<Index>& ids, std::int64_t count) {
      for (Index& id : ids) {
        id = static_cast<Index>(static_cast<std::int64_t>(
          // ids < num_nodes < 2^32 for every preset at scale <= 1, so the product fits 64 bits.
          (static_cast<std::uint64_t>(id) * static_cast<std::uint64_t>(count)) /
          static_cast<std::uint64_t>(options.num_nodes)));
      }
    };
    fold(coo.src, n_src);
    fold(coo.dst, n_dst);
    g.relations.push_back(typed_csc_of<Offset, Index>(coo.dst, coo.src, n_dst, coo.weights));
    reverse.push_back(typed_csc_of<Offset, Index>(coo.src, coo.dst, n_src, coo.weights));
  }
  for (auto& r : reverse) { g.relations.push_back(std::move(r)); }
  return g;
}

}  // namespace host

GNNDIRECT_NAMESPACE_END
