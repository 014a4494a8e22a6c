#pragma once
/// @file npy.hpp
/// @brief Graph loaders from .npy files: CSR and COO arrays converted with range checks into
/// csr_graph / coo owners (host-compilable). The format is in npy_header.hpp, the mapped file in
/// npy_array.hpp (both included).

#include <gnndirect/algorithms/validate.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/io/npy_array.hpp>
#include <gnndirect/io/npy_header.hpp>
#include <gnndirect/owners/coo.hpp>
#include <gnndirect/util/parallel.hpp>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

namespace detail {

/// Checks that an array is 1-D.
inline void check_npy_1d(const npy_array& array)
{
  if (array.header().shape.size() != 1) {
    throw_npy_error(array.path(), "expected a 1-D array, found " +
                                    std::to_string(array.header().shape.size()) + " dimensions");
  }
}

/// Converts the 1-D array `source` (element type S) into `out` (element type T) with all cores;
/// for integer T, values that T cannot hold are refused, naming the first.
template <class T, class S>
void convert_elements(const npy_array& array, const S* source, T* out)
{
  std::int64_t const n = array.size();
  if constexpr (std::is_integral_v<T>) {
    static_assert(std::is_integral_v<S>, "integer targets convert from integer files only");
    auto const out_of_range = [source](std::int64_t i) {
      S const value = source[i];
      if constexpr (std::is_signed_v<S>) {
        if (value < 0) { return static_cast<std::int64_t>(value) < std::numeric_limits<T>::min(); }
      }
      return static_cast<std::uint64_t>(value) >
             static_cast<std::uint64_t>(std::numeric_limits<T>::max());
    };
    std::int64_t const bad = host_first_violation(n, out_of_range);
    if (bad != no_violation) {
      throw_npy_error(array.path(), "element " + std::to_string(bad) + " = " +
                                      std::to_string(source[bad]) + " does not fit the target type");
    }
  }
  host::parallel_for_ranges(n, [&](std::int64_t begin, std::int64_t end, int) {
    for (std::int64_t i = begin; i < end; ++i) { out[i] = static_cast<T>(source[i]); }
  });
}

/// Copies a 1-D integer array (any integer dtype) into `out` as T, refusing values out of range.
/// @throws invalid_argument for a non-integer dtype or a value T cannot hold.
template <class T>
void read_npy_integers(const npy_array& array, T* out)
{
  check_npy_1d(array);
  switch (array.dtype()) {
    case npy_dtype::int8: return convert_elements(array, array.data_as<std::int8_t>(), out);
    case npy_dtype::int16: return convert_elements(array, array.data_as<std::int16_t>(), out);
    case npy_dtype::int32: return convert_elements(array, array.data_as<std::int32_t>(), out);
    case npy_dtype::int64: return convert_elements(array, array.data_as<std::int64_t>(), out);
    case npy_dtype::uint8: return convert_elements(array, array.data_as<std::uint8_t>(), out);
    case npy_dtype::uint16: return convert_elements(array, array.data_as<std::uint16_t>(), out);
    case npy_dtype::uint32: return convert_elements(array, array.data_as<std::uint32_t>(), out);
    case npy_dtype::uint64: return convert_elements(array, array.data_as<std::uint64_t>(), out);
    default:
      throw_npy_error(array.path(), "expected an integer dtype, found " +
                                      std::string(npy_descr(array.dtype())));
  }
}

/// Copies a 1-D float32 or float64 array into `out` as float.
/// @throws invalid_argument for another dtype.
inline void read_npy_floats(const npy_array& array, float* out)
{
  check_npy_1d(array);
  switch (array.dtype()) {
    case npy_dtype::float32: return convert_elements(array, array.data_as<float>(), out);
    case npy_dtype::float64: return convert_elements(array, array.data_as<double>(), out);
    default:
      throw_npy_error(array.path(), "expected a float32 or float64 dtype, found " +
                                      std::string(npy_descr(array.dtype())));
  }
}

}  // namespace detail

/// Loads a CSR graph from .npy files (indptr: num_nodes + 1 integers; indices: num_edges
/// integers; optional weights: float32/float64) into `placement`, converting integer dtypes to
/// Offset/Index with range checks (e.g. int64 files into int32 indices). Does not validate the
/// structure: call validate() on untrusted files. Synchronous.
/// @param weights_path empty for an unweighted graph
/// @throws invalid_argument naming the file (format, dtype, shape, a value out of range, an
///         indices length different from indptr[num_nodes] is left to validate());
///         allocation_error; cuda_error.
template <class Offset, class Index>
csr_graph<Offset, Index> load_csr_npy(const std::string& indptr_path, const std::string& indices_path,
                                      csr_placement placement, const std::string& weights_path = {})
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
  csr_graph<Offset, Index> graph(indptr.size() - 1, indices.size(), placement, weighted);
  detail::host_writer<Offset> indptr_out(graph.indptr());
  detail::host_writer<Index> indices_out(graph.indices());
  detail::host_writer<float> weights_out(graph.weights());
  detail::read_npy_integers(indptr, indptr_out.data());
  detail::read_npy_integers(indices, indices_out.data());
  if (weighted) { detail::read_npy_floats(weights, weights_out.data()); }
  indptr_out.commit();
  indices_out.commit();
  weights_out.commit();
  return graph;
}

/// Loads an edge list from two 1-D integer .npy files (src, dst) into host memory, converting to
/// Index with range checks. Synchronous; no CUDA call.
/// @param num_nodes node count, or -1 for 1 + the largest id
/// @throws invalid_argument naming the file (format, dtype, length mismatch, value out of range).
template <class Index>
host_coo<Index> load_coo_npy(const std::string& src_path, const std::string& dst_path,
                             std::int64_t num_nodes = -1)
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

/// CSR arrays used in place from registered .npy mappings (zero copy: kernels read the files'
/// pages over the link, like registered memory). Keeps the mappings alive; move-only.
template <class Offset, class Index>
struct mapped_csr {
  npy_array indptr;   ///< mapped and registered indptr file
  npy_array indices;  ///< mapped and registered indices file

  /// Device-visible view (kinds: registered).
  csr_view<Offset, Index> view() const
  {
    return make_view(indptr.device_data_as<Offset>(), indices.device_data_as<Index>());
  }
  /// Host-readable view of the same mappings.
  csr_view<Offset, Index> host_view() const
  {
    return make_view(indptr.data_as<Offset>(), indices.data_as<Index>());
  }

 private:
  csr_view<Offset, Index> make_view(const Offset* p, const Index* i) const
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
};

/// Maps CSR .npy files and registers them in place (no copy). The files' dtypes must be exactly
/// Offset and Index (use load_csr_npy to convert). Does not validate. Synchronous.
/// @throws invalid_argument naming the file (format, dtype, shape); allocation_error when pinning
///         fails (locked-memory limit); no_device_error without a GPU.
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

