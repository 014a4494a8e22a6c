#pragma once
/// @file npy.hpp
/// @brief Loaders from .npy files: feature tables (load_table_npy), CSR and COO arrays converted
/// with range checks into table / csr_graph / coo owners (host-compilable). Files are streamed
/// into their placement in bounded chunks on all cores (peak host memory: the placed bytes plus
/// one chunk). The format is in npy_header.hpp, the mapped file in npy_array.hpp (both included).

#include <gnndirect/algorithms/validate.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/io/npy_array.hpp>
#include <gnndirect/io/npy_header.hpp>
#include <gnndirect/owners/coo.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/util/parallel.hpp>
#include <gnndirect/detail/io/npy.hpp>

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

/// Loads a CSR graph from .npy files (indptr: num_nodes + 1 integers; indices: num_edges
/// integers; optional weights: float32/float64) into `placement`, converting integer dtypes to
/// Offset/Index with range checks (e.g. int64 files into int32 indices). The files are
/// memory-mapped and streamed into the placement in chunks of detail::npy_chunk_bytes on all
/// cores, each chunk's mapped pages released after it: peak host memory is the placed bytes plus
/// one chunk. Host placements are checked against what the host can give before anything is
/// committed (allocation_error naming the bytes, see host_memory.hpp). Does not validate the
/// structure: call validate() on untrusted files. Synchronous.
/// Every device and pinned allocation comes from `mr` / `host_mr` (defaults: the device's default
/// pool, cudaHostAlloc), as csr_graph's constructor; the graph returns its arrays there, so both
/// resources must outlive it. Staging for device arrays is one pageable chunk.
/// @param indptr_path, indices_path the two files  @param placement where the arrays go
/// @param weights_path empty for an unweighted graph  @param mr, host_mr resources
/// @return the graph
/// @throws invalid_argument naming the file (format, dtype, shape, a value out of range, an
///         indices length different from indptr[num_nodes] is left to validate());
///         allocation_error; cuda_error.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
csr_graph<Offset, Index> load_csr_npy(const std::string& indptr_path, const std::string& indices_path,
                                      csr_placement placement, const std::string& weights_path = {},
                                      resource_ref mr = {}, host_resource_ref host_mr = {});

/// Loads a 2-D .npy array (or a 1-D one as a single column) of element type T into a new
/// table<T> in `kind` (not `registered`: for zero copy, map the file with npy_array and adopt it
/// with table<T>::adopt_by_registration). The file is memory-mapped and streamed into the
/// placement in chunks of detail::npy_chunk_bytes on all cores, releasing each chunk's mapped
/// pages after it, so peak host memory is the placed bytes plus one chunk (plus one staging chunk
/// for `device`). The allocation is checked against what the host can give before anything is
/// committed (see host_memory.hpp). Synchronous. Device tables come from `mr`, pinned ones from
/// `host_mr` (defaults: the device's default pool, cudaHostAlloc), as table's constructor; both
/// must outlive the table. Staging for `device` is one pageable chunk.
/// @tparam T element type; the file's dtype must be exactly T (no conversion of features)
/// @param path the file  @param kind placement of the table  @param mr, host_mr resources
/// @return the table
/// @throws invalid_argument naming the file (format, dimensions, dtype); allocation_error (the
///         host or device cannot hold the table: bytes needed and available); cuda_error.
template <class T>
table<T> load_table_npy(const std::string& path, memory_kind kind, resource_ref mr = {},
                        host_resource_ref host_mr = {});

/// Loads an edge list from two 1-D integer .npy files (src, dst) into host memory, converting to
/// Index with range checks. Synchronous; no CUDA call.
/// @param src_path, dst_path the two files
/// @param num_nodes node count, or -1 for 1 + the largest id
/// @return the edges in file order
/// @throws invalid_argument naming the file (format, dtype, length mismatch, value out of range).
/// @tparam Index node id type
template <class Index>
host_coo<Index> load_coo_npy(const std::string& src_path, const std::string& dst_path,
                             std::int64_t num_nodes = -1);

/// CSR arrays used in place from registered .npy mappings (zero copy: kernels read the files'
/// pages over the link, like registered memory). Keeps the mappings alive; move-only.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct mapped_csr {
  npy_array indptr;   ///< mapped and registered indptr file
  npy_array indices;  ///< mapped and registered indices file

  /// @return device-visible view (kinds: registered)
  csr_view<Offset, Index> view() const;
  /// @return host-readable view of the same mappings
  csr_view<Offset, Index> host_view() const;

 private:
  csr_view<Offset, Index> make_view(const Offset* p, const Index* i) const;
};

/// Maps CSR .npy files and registers them in place (no copy). The files' dtypes must be exactly
/// Offset and Index (use load_csr_npy to convert). Does not validate. Synchronous.
/// @param indptr_path, indices_path the two files  @return the mapped arrays
/// @throws invalid_argument naming the file (format, dtype, shape); allocation_error when pinning
///         fails (locked-memory limit); no_device_error without a GPU.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
mapped_csr<Offset, Index> map_csr_npy(const std::string& indptr_path, const std::string& indices_path);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/io/npy.inl>
