#pragma once
/// @file coo.hpp
/// @brief Edge lists in coordinate (COO) form: a trivially copyable view, a host owner (std::vector,
/// for the host reference, parsers and tests) and a placed owner (buffers) (host-compilable).
/// COO is the exchange form of loaders and generators; the algorithms read CSR (core/csr_view.hpp).

#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Edge e goes from src[e] to dst[e], with optional weights[e] (null when absent).
/// Pointers are the addresses the reader uses (host for host algorithms, device-visible for
/// kernels); `kind` records where the bytes live. It is what the COO -> CSR conversions
/// (graph/coo_to_csr.hpp on the host, coo_to_csr.cuh on the GPU) read; it checks nothing itself
/// (the conversions check the ids).
/// Trivially copyable: pass it by value, to kernels too.
/// @tparam Index node id type
template <class Index>
struct coo_view {
  static_assert(std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t>,
                "coo_view: Index must be int32_t or int64_t");
  using index_type = Index;  ///< node id type

  const Index* src{nullptr};      ///< num_edges source node ids
  const Index* dst{nullptr};      ///< num_edges destination node ids
  const float* weights{nullptr};  ///< optional: num_edges weights
  std::int64_t num_edges{0};      ///< number of edges
  std::int64_t num_nodes{0};      ///< ids must lie in [0, num_nodes)
  memory_kind kind{memory_kind::device};  ///< placement of all three arrays
};

static_assert(std::is_trivially_copyable_v<coo_view<std::int64_t>>);

/// Edge list in pageable host memory (std::vector): what parsers and host generators return.
/// Its view is host-readable only and is recorded as memory_kind::registered (caller-owned host
/// memory), though it is not pinned. parse_edge_list / read_edge_list (io/edge_list.hpp) and
/// host::generate_coo (graph/generate.hpp) build one; any vectors of equal length make one.
/// @tparam Index node id type
template <class Index>
struct host_coo {
  std::vector<Index> src;      ///< source ids
  std::vector<Index> dst;      ///< destination ids (same length as src)
  std::vector<float> weights;  ///< empty, or one weight per edge
  std::int64_t num_nodes{0};   ///< number of nodes

  /// @return number of edges
  std::int64_t num_edges() const noexcept { return static_cast<std::int64_t>(src.size()); }
  /// @return host-readable view (weights null when empty), valid until the vectors change or
  /// the owner is destroyed
  coo_view<Index> view() const noexcept;
};

/// Edge list owned in one placement (buffers; needs a GPU to allocate). Produced by the GPU
/// generators (generate_coo(stream, ...), graph/generate.cuh); view() has device-visible
/// pointers. Move-only: the buffers own the memory, freed when the owner is destroyed.
/// @tparam Index node id type
template <class Index>
struct coo_graph {
  buffer<Index> src;         ///< source ids
  buffer<Index> dst;         ///< destination ids
  buffer<float> weights;     ///< empty, or one weight per edge
  std::int64_t num_nodes{0}; ///< number of nodes

  /// @return number of edges
  std::int64_t num_edges() const noexcept { return static_cast<std::int64_t>(src.size()); }
  /// @return device-visible view, valid while the owner lives; its kind is src's placement,
  /// which all three arrays share
  coo_view<Index> view() const noexcept;
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/owners/coo.inl>
