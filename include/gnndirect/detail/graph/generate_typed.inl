#pragma once
// Definitions of graph/generate_typed.hpp (included at its end; not part of the API).

#include <gnndirect/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

GNNDIRECT_NAMESPACE_BEGIN

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

template <class Offset, class Index>
host_csr<Offset, Index> typed_csc_of(
  const std::vector<Index>& rows, const std::vector<Index>& cols, std::int64_t n_rows,
  const std::vector<float>& weights)
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

template <class Offset, class Index>
host_typed_graph<Offset, Index> generate_typed(typed_preset preset, double scale, std::uint64_t seed, bool weights)
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
