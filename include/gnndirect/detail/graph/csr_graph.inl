#pragma once
// Definitions of graph/csr_graph.hpp (included at its end; not part of the API).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>

#include <limits>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
csr_graph<Offset, Index>::csr_graph(
  std::int64_t num_nodes, std::int64_t num_edges, csr_placement placement, bool with_weights, bool with_edge_ids,
  resource_ref mr, host_resource_ref host_mr)
  : num_nodes_(checked_nodes(num_nodes)),
    num_edges_(checked_edges(num_edges)),
    placement_(placement),
    indptr_(static_cast<std::size_t>(num_nodes) + 1, placement.indptr, mr, host_mr),
    indices_(static_cast<std::size_t>(num_edges), placement.edges, mr, host_mr),
    weights_(with_weights ? static_cast<std::size_t>(num_edges) : 0, placement.edges, mr, host_mr),
    edge_ids_(with_edge_ids ? static_cast<std::size_t>(num_edges) : 0, placement.edges, mr, host_mr),
    has_weights_(with_weights),
    has_edge_ids_(with_edge_ids)
{
}

template <class Offset, class Index>
auto csr_graph<Offset, Index>::from_coo(
  const coo_view<Index>& coo, csr_placement placement, csr_build_options options, resource_ref mr,
  host_resource_ref host_mr) -> csr_graph
{
  detail::check_coo_shape<Offset>(coo);
  csr_graph graph(coo.num_nodes, coo.num_edges, placement, coo.weights != nullptr,
                  options.edge_ids, mr, host_mr);
  detail::host_writer<Offset> indptr(graph.indptr_);
  detail::host_writer<Index> indices(graph.indices_);
  detail::host_writer<float> weights(graph.weights_);
  detail::host_writer<Offset> edge_ids(graph.edge_ids_);
  host::coo_to_csr<Offset, Index>(coo, indptr.data(), indices.data(),
                                  graph.has_weights_ ? weights.data() : nullptr,
                                  graph.has_edge_ids_ ? edge_ids.data() : nullptr);
  indptr.commit();
  indices.commit();
  weights.commit();
  edge_ids.commit();
  return graph;
}

template <class Offset, class Index>
auto csr_graph<Offset, Index>::adopt(
  const view_type& host_arrays, csr_placement placement, resource_ref mr, host_resource_ref host_mr) -> csr_graph
{
  GNNDIRECT_EXPECTS(host_arrays.indptr != nullptr, "csr_graph::adopt: null indptr");
  csr_graph graph(host_arrays.num_nodes, host_arrays.num_edges, placement,
                  host_arrays.weights != nullptr, host_arrays.edge_ids != nullptr, mr, host_mr);
  detail::copy_from_host(graph.indptr_, host_arrays.indptr);
  detail::copy_from_host(graph.indices_, host_arrays.indices);
  detail::copy_from_host(graph.weights_, host_arrays.weights);
  detail::copy_from_host(graph.edge_ids_, host_arrays.edge_ids);
  return graph;
}

template <class Offset, class Index>
auto csr_graph<Offset, Index>::view() const noexcept -> view_type
{
  return make_view(indptr_.data(), indices_.data(), weights_.data(), edge_ids_.data());
}

template <class Offset, class Index>
auto csr_graph<Offset, Index>::host_view() const -> view_type
{
  GNNDIRECT_EXPECTS(placement_.indptr != memory_kind::device &&
                      (placement_.edges != memory_kind::device || num_edges_ == 0),
                    "csr_graph::host_view: an array in device memory has no host address");
  return make_view(indptr_.host_data(), indices_.host_data(), weights_.host_data(),
                   edge_ids_.host_data());
}

template <class Offset, class Index>
auto csr_graph<Offset, Index>::checked_nodes(std::int64_t n) -> std::int64_t
{
  GNNDIRECT_EXPECTS(n >= 0, "csr_graph: num_nodes = " + std::to_string(n) + " < 0");
  GNNDIRECT_EXPECTS(n == 0 || n - 1 <= static_cast<std::int64_t>(std::numeric_limits<Index>::max()),
                    "csr_graph: num_nodes exceeds the index type");
  return n;
}

template <class Offset, class Index>
auto csr_graph<Offset, Index>::checked_edges(std::int64_t m) -> std::int64_t
{
  GNNDIRECT_EXPECTS(m >= 0, "csr_graph: num_edges = " + std::to_string(m) + " < 0");
  GNNDIRECT_EXPECTS(m <= static_cast<std::int64_t>(std::numeric_limits<Offset>::max()),
                    "csr_graph: num_edges exceeds the offset type; use int64_t offsets");
  return m;
}

template <class Offset, class Index>
auto csr_graph<Offset, Index>::make_view(
  const Offset* indptr, const Index* indices, const float* weights, const Offset* edge_ids) const noexcept -> view_type
{
  view_type v;
  v.indptr = indptr;
  v.indices = indices;
  v.weights = has_weights_ ? weights : nullptr;
  v.edge_ids = has_edge_ids_ ? edge_ids : nullptr;
  v.num_nodes = num_nodes_;
  v.num_edges = num_edges_;
  v.indptr_kind = placement_.indptr;
  v.indices_kind = placement_.edges;
  return v;
}

GNNDIRECT_NAMESPACE_END
