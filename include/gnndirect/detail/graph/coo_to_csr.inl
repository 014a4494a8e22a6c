#pragma once
// Definitions of graph/coo_to_csr.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
csr_graph<Offset, Index> coo_to_csr(
  cudaStream_t stream, const coo_view<Index>& coo, csr_placement placement, csr_build_options options, resource_ref mr,
  host_resource_ref host_mr)
{
  detail::check_coo_shape<Offset>(coo);
  require_device();
  detail::check_coo_ids_device(stream, coo, mr);
  csr_graph<Offset, Index> graph(coo.num_nodes, coo.num_edges, placement, coo.weights != nullptr,
                                 options.edge_ids, mr, host_mr);
  detail::build_csr_device(stream, coo, graph, static_cast<Index*>(nullptr), mr);
  return graph;
}

GNNDIRECT_NAMESPACE_END
