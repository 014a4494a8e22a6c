#pragma once
// Definitions of graph/coo_to_csr.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
csr_view<Offset, Index> host_csr<Offset, Index>::view() const noexcept
{
  csr_view<Offset, Index> v;
  v.indptr = indptr.empty() ? nullptr : indptr.data();
  v.indices = indices.data();
  v.weights = weights.empty() ? nullptr : weights.data();
  v.edge_ids = edge_ids.empty() ? nullptr : edge_ids.data();
  v.num_nodes = num_nodes;
  v.num_edges = num_edges();
  v.indptr_kind = memory_kind::registered;
  v.indices_kind = memory_kind::registered;
  return v;
}

namespace host {

template <class Offset, class Index>
void coo_to_csr(const coo_view<Index>& coo, Offset* indptr, Index* indices, float* weights,
                Offset* edge_ids)
{
  ::gnndirect::detail::check_coo_shape<Offset>(coo);
  GNNDIRECT_EXPECTS(indptr != nullptr, "coo_to_csr: null indptr output");
  GNNDIRECT_EXPECTS(coo.num_edges == 0 || indices != nullptr, "coo_to_csr: null indices output");
  ::gnndirect::detail::check_coo_ids_host(coo);
  int const threads = ::gnndirect::detail::host_threads_for(std::max(coo.num_edges, coo.num_nodes));
  ::gnndirect::detail::count_out_degrees(coo, indptr, threads);
  ::gnndirect::detail::parallel_inclusive_scan(indptr + 1, coo.num_nodes, threads);
  // Edge ids are exactly the sorted positions: build them in place when the caller wants them.
  std::vector<Offset> scratch;
  Offset* positions = edge_ids;
  if (positions == nullptr) {
    scratch.resize(static_cast<std::size_t>(coo.num_edges));
    positions = scratch.data();
  }
  ::gnndirect::detail::place_edge_positions(coo, indptr, positions, threads);
  ::gnndirect::detail::gather_edges(coo, positions, indices, weights, threads);
}

template <class Offset, class Index>
host_csr<Offset, Index> coo_to_csr(const coo_view<Index>& coo, csr_build_options options)
{
  ::gnndirect::detail::check_coo_shape<Offset>(coo);
  auto const m = static_cast<std::size_t>(coo.num_edges);
  host_csr<Offset, Index> csr;
  csr.num_nodes = coo.num_nodes;
  csr.indptr.resize(static_cast<std::size_t>(coo.num_nodes) + 1);
  csr.indices.resize(m);
  if (coo.weights != nullptr) { csr.weights.resize(m); }
  if (options.edge_ids) { csr.edge_ids.resize(m); }
  coo_to_csr(coo, csr.indptr.data(), csr.indices.data(),
             csr.weights.empty() ? nullptr : csr.weights.data(),
             options.edge_ids ? csr.edge_ids.data() : nullptr);
  return csr;
}

}  // namespace host

GNNDIRECT_NAMESPACE_END
