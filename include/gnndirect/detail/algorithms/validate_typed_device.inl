#pragma once
// Definitions of algorithms/validate_typed.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
void validate_typed(cudaStream_t stream, const typed_graph_view<Offset, Index>& graph,
                    const typed_schema* schema, resource_ref mr)
{
  check_typed_graph_shape(graph, schema);
  require_device();
  for (int r = 0; r < graph.num_relations; ++r) {
    std::string const name = schema != nullptr ? to_string(schema->relation(r)) : std::to_string(r);
    detail::validate_relation_device(stream, graph.relations[r], graph.num_nodes[graph.relations[r].src_type],
                                     "relation " + name, mr);
  }
}

GNNDIRECT_NAMESPACE_END
