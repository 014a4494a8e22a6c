#pragma once
// Definitions of graph/typed_graph.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
std::int64_t max_degree_of(const csr_view<Offset, Index>& csc)
{
  std::int64_t best = 0;
  for (std::int64_t v = 0; v < csc.num_nodes; ++v) {
    best = std::max<std::int64_t>(best, static_cast<std::int64_t>(csc.indptr[v + 1] - csc.indptr[v]));
  }
  return best;
}

template <class Offset, class Index>
typed_graph_view<Offset, Index> host_typed_graph<Offset, Index>::view() const
{
  GNNDIRECT_EXPECTS(static_cast<int>(num_nodes.size()) == schema.num_node_types() &&
                      static_cast<int>(relations.size()) == schema.num_relations(),
                    "host_typed_graph: " + std::to_string(num_nodes.size()) + " node counts and " +
                      std::to_string(relations.size()) + " relations for a schema of " +
                      std::to_string(schema.num_node_types()) + " and " +
                      std::to_string(schema.num_relations()));
  typed_graph_view<Offset, Index> v;
  v.num_node_types = schema.num_node_types();
  v.num_relations = schema.num_relations();
  for (int t = 0; t < v.num_node_types; ++t) { v.num_nodes[t] = num_nodes[static_cast<std::size_t>(t)]; }
  for (int r = 0; r < v.num_relations; ++r) {
    auto& rel = v.relations[r];
    rel.csc = relations[static_cast<std::size_t>(r)].view();
    rel.csc.indptr_kind = memory_kind::registered;
    rel.csc.indices_kind = memory_kind::registered;
    rel.src_type = schema.src_type(r);
    rel.dst_type = schema.dst_type(r);
    rel.max_degree = max_degree_of(rel.csc);
  }
  return v;
}

template <class Offset, class Index>
typed_graph<Offset, Index>::typed_graph(const host_typed_graph<Offset, Index>& host, const std::vector<csr_placement>& placements,
            resource_ref mr, host_resource_ref host_mr)
  : schema_(host.schema)
{
  view_ = host.view();  // counts, endpoint types and max degrees
  GNNDIRECT_EXPECTS(placements.size() == 1 || placements.size() == host.relations.size(),
                    "typed_graph: " + std::to_string(placements.size()) + " placements for " +
                      std::to_string(host.relations.size()) + " relations (give one, or one each)");
  for (std::size_t r = 0; r < host.relations.size(); ++r) {
    csr_placement const p = placements.size() == 1 ? placements[0] : placements[r];
    relations_.push_back(csr_graph<Offset, Index>::adopt(host.relations[r].view(), p, mr, host_mr));
    view_.relations[r].csc = relations_.back().view();
  }
}

GNNDIRECT_NAMESPACE_END
