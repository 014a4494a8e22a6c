#pragma once
/// @file npy.hpp
/// @brief Loaders from .npy files: feature tables (load_table_npy), CSR and COO arrays converted
/// with range checks into table / csr_graph / coo owners (host-compilable). Files are streamed
/// into their placement in bounded chunks on all cores (peak host memory: the placed bytes plus
/// one chunk). The format is in npy_header.hpp, the mapped file in npy_array.hpp (both included).

#include <gnndirect/algorithms/validate.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/io/npy_array.hpp>
#include <gnndirect/io/npy_header.hpp>
#include <gnndirect/owners/coo.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/util/parallel.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
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

/// Source bytes one streaming step reads: bounds the host memory a load adds to the placed
/// bytes (the mapped chunk, plus a staging chunk for device targets).
inline constexpr std::size_t npy_chunk_bytes = std::size_t{64} << 20;

/// Drops [data, data + bytes) of a file mapping from this process's resident set once read (the
/// pages stay in the page cache, which the kernel reclaims; an untouched private mapping just
/// faults them in again if read later), so that streaming a file larger than the free memory
/// does not hold all of it at once. Never throws; a failing madvise only costs memory.
inline void release_mapped_range(const void* data, std::size_t bytes) noexcept
{
  if (bytes == 0) { return; }
  auto const page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE) > 0 ? ::sysconf(_SC_PAGESIZE) : 4096);
  auto const begin = reinterpret_cast<std::uintptr_t>(data);
  std::uintptr_t const first = (begin + page - 1) / page * page;  // whole pages inside the range
  std::uintptr_t const last = (begin + bytes) / page * page;
  if (last > first) { (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED); }
}

/// Where streamed elements go: a host address (pinned, managed_host or plain host memory) or a
/// device address (device memory, reached through one bounded staging vector).
template <class T>
struct npy_sink {
  T* data{nullptr};              ///< element 0 of the target
  bool device{false};            ///< true: `data` is device memory, staged through the host
};

/// Streams the `n` elements of `array` (element type S) into `sink` as T, npy_chunk_bytes of the
/// source at a time, converting each chunk with all cores and releasing its mapped pages after
/// it. For integer T, values that T cannot hold are refused, naming the first. Synchronous.
/// @throws invalid_argument (a value out of range), cuda_error (device targets).
/// @param chunk_bytes source bytes per step (tests pass small values to cover chunk edges)
template <class T, class S>
void stream_elements(const npy_array& array, const S* source, npy_sink<T> sink,
                     std::size_t chunk_bytes = npy_chunk_bytes)
{
  std::int64_t const n = array.size();
  std::int64_t const per_chunk =
    std::max<std::int64_t>(1, static_cast<std::int64_t>(chunk_bytes / std::max(sizeof(S), sizeof(T))));
  std::vector<T> staging;
  if (sink.device && n > 0) { staging.resize(static_cast<std::size_t>(std::min(n, per_chunk))); }
  for (std::int64_t first = 0; first < n; first += per_chunk) {
    std::int64_t const count = std::min(per_chunk, n - first);
    const S* const from = source + first;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<S, T>) {  // same type: always fits
      static_assert(std::is_integral_v<S>, "integer targets convert from integer files only");
      auto const out_of_range = [from](std::int64_t i) {
        S const value = from[i];
        if constexpr (std::is_signed_v<S>) {
          if (value < 0) { return static_cast<std::int64_t>(value) < std::numeric_limits<T>::min(); }
        }
        return static_cast<std::uint64_t>(value) >
               static_cast<std::uint64_t>(std::numeric_limits<T>::max());
      };
      std::int64_t const bad = host_first_violation(count, out_of_range);
      if (bad != no_violation) {
        throw_npy_error(array.path(), "element " + std::to_string(first + bad) + " = " +
                                        std::to_string(from[bad]) + " does not fit the target type");
      }
    }
    T* const out = sink.device ? staging.data() : sink.data + first;
    host::parallel_for_ranges(count, [&](std::int64_t begin, std::int64_t end, int) {
      if constexpr (std::is_same_v<S, T>) {
        std::memcpy(out + begin, from + begin, static_cast<std::size_t>(end - begin) * sizeof(T));
      } else {
        for (std::int64_t i = begin; i < end; ++i) { out[i] = static_cast<T>(from[i]); }
      }
    });
    if (sink.device) {
      copy_to_device_and_wait(sink.data + first, staging.data(), static_cast<std::size_t>(count) * sizeof(T));
    }
    release_mapped_range(from, static_cast<std::size_t>(count) * sizeof(S));
  }
}

/// Host-memory form of stream_elements (no CUDA call).
template <class T, class S>
void convert_elements(const npy_array& array, const S* source, T* out)
{
  stream_elements(array, source, npy_sink<T>{out, false});
}

/// Streams a 1-D integer array (any integer dtype) into `sink` as T, refusing values out of range.
/// @throws invalid_argument for a non-integer dtype or a value T cannot hold; cuda_error.
template <class T>
void stream_npy_integers(const npy_array& array, npy_sink<T> sink)
{
  check_npy_1d(array);
  switch (array.dtype()) {
    case npy_dtype::int8: return stream_elements(array, array.data_as<std::int8_t>(), sink);
    case npy_dtype::int16: return stream_elements(array, array.data_as<std::int16_t>(), sink);
    case npy_dtype::int32: return stream_elements(array, array.data_as<std::int32_t>(), sink);
    case npy_dtype::int64: return stream_elements(array, array.data_as<std::int64_t>(), sink);
    case npy_dtype::uint8: return stream_elements(array, array.data_as<std::uint8_t>(), sink);
    case npy_dtype::uint16: return stream_elements(array, array.data_as<std::uint16_t>(), sink);
    case npy_dtype::uint32: return stream_elements(array, array.data_as<std::uint32_t>(), sink);
    case npy_dtype::uint64: return stream_elements(array, array.data_as<std::uint64_t>(), sink);
    default:
      throw_npy_error(array.path(), "expected an integer dtype, found " +
                                      std::string(npy_descr(array.dtype())));
  }
}

/// Copies a 1-D integer array (any integer dtype) into host memory `out` as T.
/// @throws as stream_npy_integers.
template <class T>
void read_npy_integers(const npy_array& array, T* out)
{
  stream_npy_integers(array, npy_sink<T>{out, false});
}

/// Streams a 1-D float32 or float64 array into `sink` as float.
/// @throws invalid_argument for another dtype; cuda_error.
inline void stream_npy_floats(const npy_array& array, npy_sink<float> sink)
{
  check_npy_1d(array);
  switch (array.dtype()) {
    case npy_dtype::float32: return stream_elements(array, array.data_as<float>(), sink);
    case npy_dtype::float64: return stream_elements(array, array.data_as<double>(), sink);
    default:
      throw_npy_error(array.path(), "expected a float32 or float64 dtype, found " +
                                      std::string(npy_descr(array.dtype())));
  }
}

/// Copies a 1-D float32 or float64 array into host memory `out` as float.
inline void read_npy_floats(const npy_array& array, float* out)
{
  stream_npy_floats(array, npy_sink<float>{out, false});
}

/// The sink of a buffer: its host address, or its device address for device buffers.
template <class T>
npy_sink<T> sink_of(const buffer<T>& target) noexcept
{
  bool const device = target.kind() == memory_kind::device;
  return {device ? target.data() : target.host_data(), device};
}

}  // namespace detail

/// Loads a CSR graph from .npy files (indptr: num_nodes + 1 integers; indices: num_edges
/// integers; optional weights: float32/float64) into `placement`, converting integer dtypes to
/// Offset/Index with range checks (e.g. int64 files into int32 indices). The files are
/// memory-mapped and streamed into the placement in chunks of detail::npy_chunk_bytes on all
/// cores, each chunk's mapped pages released after it: peak host memory is the placed bytes plus
/// one chunk. Host placements are checked against what the host can give before anything is
/// committed (allocation_error naming the bytes, see host_memory.hpp). Does not validate the
/// structure: call validate() on untrusted files. Synchronous.
/// @param indptr_path, indices_path the two files  @param placement where the arrays go
/// @param weights_path empty for an unweighted graph  @return the graph
/// @throws invalid_argument naming the file (format, dtype, shape, a value out of range, an
///         indices length different from indptr[num_nodes] is left to validate());
///         allocation_error; cuda_error.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
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
  // Streamed in bounded chunks straight into the placement: peak host memory is the placed
  // bytes plus one chunk (device arrays: plus one staging chunk), never a second copy.
  detail::stream_npy_integers(indptr, detail::sink_of(graph.indptr()));
  detail::stream_npy_integers(indices, detail::sink_of(graph.indices()));
  if (weighted) { detail::stream_npy_floats(weights, detail::sink_of(graph.weights())); }
  return graph;
}

/// Loads a 2-D .npy array (or a 1-D one as a single column) of element type T into a new
/// table<T> in `kind` (not `registered`: for zero copy, map the file with npy_array and adopt it
/// with table<T>::adopt_by_registration). The file is memory-mapped and streamed into the
/// placement in chunks of detail::npy_chunk_bytes on all cores, releasing each chunk's mapped
/// pages after it, so peak host memory is the placed bytes plus one chunk (plus one staging chunk
/// for `device`). The allocation is checked against what the host can give before anything is
/// committed (see host_memory.hpp). Synchronous.
/// @tparam T element type; the file's dtype must be exactly T (no conversion of features)
/// @param path the file  @param kind placement of the table  @return the table
/// @throws invalid_argument naming the file (format, dimensions, dtype); allocation_error (the
///         host or device cannot hold the table: bytes needed and available); cuda_error.
template <class T>
table<T> load_table_npy(const std::string& path, memory_kind kind)
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
  table<T> result(rows, cols, kind);
  if (result.bytes() == 0) { return result; }
  bool const device = kind == memory_kind::device;
  T* const target = device ? result.view().data : result.host_view().data;
  detail::stream_elements(array, source, detail::npy_sink<T>{target, device});
  return result;
}

/// Loads an edge list from two 1-D integer .npy files (src, dst) into host memory, converting to
/// Index with range checks. Synchronous; no CUDA call.
/// @param src_path, dst_path the two files
/// @param num_nodes node count, or -1 for 1 + the largest id
/// @return the edges in file order
/// @throws invalid_argument naming the file (format, dtype, length mismatch, value out of range).
/// @tparam Index node id type
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
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct mapped_csr {
  npy_array indptr;   ///< mapped and registered indptr file
  npy_array indices;  ///< mapped and registered indices file

  /// @return device-visible view (kinds: registered)
  csr_view<Offset, Index> view() const
  {
    return make_view(indptr.device_data_as<Offset>(), indices.device_data_as<Index>());
  }
  /// @return host-readable view of the same mappings
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
/// @param indptr_path, indices_path the two files  @return the mapped arrays
/// @throws invalid_argument naming the file (format, dtype, shape); allocation_error when pinning
///         fails (locked-memory limit); no_device_error without a GPU.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
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

