#pragma once
// Definitions of io/npy.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
csr_graph<Offset, Index> load_csr_npy(
  const std::string& indptr_path, const std::string& indices_path, csr_placement placement,
  const std::string& weights_path, resource_ref mr, host_resource_ref host_mr)
{
  npy_array const indptr(indptr_path);
  npy_array const indices(indices_path);
  detail::check_npy_1d(indptr);
  if (indptr.size() < 1) { detail::throw_npy_error(indptr_path, "indptr needs at least one entry"); }
  bool const weighted = !weights_path.empty();
  npy_array const weights = weighted ? npy_array(weights_path) : npy_array();
  if (weighted && weights.size() != indices.size()) {
    detail::throw_npy_error(weights_path, "has " + std::to_string(weights.size()) +
                                            " elements, indices has " + std::to_string(indices.size()));
  }
  csr_graph<Offset, Index> graph(indptr.size() - 1, indices.size(), placement, weighted, false, mr, host_mr);
  // Streamed in bounded chunks straight into the placement: peak host memory is the placed
  // bytes plus one chunk (device arrays: plus one staging chunk), never a second copy.
  detail::stream_npy_integers(indptr, detail::sink_of(graph.indptr()));
  detail::stream_npy_integers(indices, detail::sink_of(graph.indices()));
  if (weighted) { detail::stream_npy_floats(weights, detail::sink_of(graph.weights())); }
  return graph;
}

template <class T>
table<T> load_table_npy(const std::string& path, memory_kind kind, resource_ref mr, host_resource_ref host_mr)
{
  npy_array const array(path);
  std::vector<std::int64_t> const& shape = array.header().shape;
  if (shape.size() != 1 && shape.size() != 2) {
    detail::throw_npy_error(path, "a table needs a 1-D or 2-D array, found " +
                                    std::to_string(shape.size()) + " dimensions");
  }
  const T* const source = array.template data_as<T>();  // dtype check before allocating
  std::int64_t const rows = shape[0];
  std::int64_t const cols = shape.size() == 2 ? shape[1] : 1;
  table<T> result(rows, cols, kind, mr, host_mr);
  if (result.bytes() == 0) { return result; }
  bool const device = kind == memory_kind::device;
  T* const target = device ? result.view().data : result.host_view().data;
  detail::stream_elements(array, source, detail::npy_sink<T>{target, device});
  return result;
}

template <class Index>
host_coo<Index> load_coo_npy(const std::string& src_path, const std::string& dst_path, std::int64_t num_nodes)
{
  npy_array const src(src_path);
  npy_array const dst(dst_path);
  if (src.size() != dst.size()) {
    detail::throw_npy_error(dst_path, "has " + std::to_string(dst.size()) + " elements, " +
                                        src_path + " has " + std::to_string(src.size()));
  }
  host_coo<Index> coo;
  coo.src.resize(static_cast<std::size_t>(src.size()));
  coo.dst.resize(static_cast<std::size_t>(dst.size()));
  detail::read_npy_integers(src, coo.src.data());
  detail::read_npy_integers(dst, coo.dst.data());
  if (num_nodes < 0) {
    Index largest = -1;
    for (Index const v : coo.src) { largest = std::max(largest, v); }
    for (Index const v : coo.dst) { largest = std::max(largest, v); }
    num_nodes = static_cast<std::int64_t>(largest) + 1;
  }
  coo.num_nodes = num_nodes;
  return coo;
}

template <class Offset, class Index>
auto mapped_csr<Offset, Index>::view() const -> csr_view<Offset, Index>
{
  return make_view(indptr.device_data_as<Offset>(), indices.device_data_as<Index>());
}

template <class Offset, class Index>
auto mapped_csr<Offset, Index>::host_view() const -> csr_view<Offset, Index>
{
  return make_view(indptr.data_as<Offset>(), indices.data_as<Index>());
}

template <class Offset, class Index>
auto mapped_csr<Offset, Index>::make_view(const Offset* p, const Index* i) const -> csr_view<Offset, Index>
{
  csr_view<Offset, Index> v;
  v.indptr = p;
  v.indices = i;
  v.num_nodes = indptr.size() - 1;
  v.num_edges = indices.size();
  v.indptr_kind = memory_kind::registered;
  v.indices_kind = memory_kind::registered;
  return v;
}

template <class Offset, class Index>
mapped_csr<Offset, Index> map_csr_npy(const std::string& indptr_path, const std::string& indices_path)
{
  mapped_csr<Offset, Index> csr{npy_array(indptr_path), npy_array(indices_path)};
  detail::check_npy_1d(csr.indptr);
  detail::check_npy_1d(csr.indices);
  if (csr.indptr.size() < 1) { detail::throw_npy_error(indptr_path, "indptr needs at least one entry"); }
  (void)csr.indptr.template data_as<Offset>();  // dtype checks before pinning anything
  (void)csr.indices.template data_as<Index>();
  csr.indptr.register_in_place();
  csr.indices.register_in_place();
  return csr;
}

GNNDIRECT_NAMESPACE_END
