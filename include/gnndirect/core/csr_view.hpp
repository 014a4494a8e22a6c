#pragma once
/// @file csr_view.hpp
/// @brief Non-owning, trivially copyable view of a graph in CSR form (host-compilable).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/memory_kind.hpp>

#include <cstdint>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// Compressed sparse rows: node v's neighbours are indices[indptr[v] .. indptr[v+1]).
///
/// @tparam Offset edge offset type (int32 or int64; int64 once edges exceed 2^31 - 1)
/// @tparam Index  node id type (int32 or int64)
///
/// Optional arrays are null when absent: `weights` (one float per edge, for weighted sampling) and
/// `edge_ids` (one Offset per edge, e.g. to map sampled edges back to edge features; when absent
/// an edge's id is its position in `indices`). Each array records its own memory_kind, because
/// placing them independently pays (e.g. indptr in HBM, indices in host memory).
///
/// A view comes from an owner (csr_graph::view(), graph/csr_graph.hpp) or is filled by hand over
/// a framework's arrays (e.g. a PyTorch CSR tensor's crow_indices and col_indices). It checks
/// nothing: validate() (algorithms/validate.hpp) checks an untrusted graph once, off the hot path.
/// Neither do its accessors: v must lie in [0, num_nodes) and e in [0, num_edges).
template <class Offset, class Index>
struct csr_view {
  static_assert(std::is_same_v<Offset, std::int32_t> || std::is_same_v<Offset, std::int64_t>,
                "csr_view: Offset must be int32_t or int64_t");
  static_assert(std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t>,
                "csr_view: Index must be int32_t or int64_t");
  using offset_type = Offset;  ///< offset and edge id type
  using index_type = Index;    ///< node id type

  const Offset* indptr{nullptr};   ///< num_nodes + 1 offsets
  const Index* indices{nullptr};   ///< num_edges neighbour ids
  const float* weights{nullptr};   ///< optional: num_edges weights
  const Offset* edge_ids{nullptr}; ///< optional: num_edges edge ids
  std::int64_t num_nodes{0};       ///< number of rows (source nodes)
  std::int64_t num_edges{0};       ///< number of stored edges (= indptr[num_nodes])
  memory_kind indptr_kind{memory_kind::device};   ///< placement of indptr
  memory_kind indices_kind{memory_kind::device};  ///< placement of indices, weights and edge_ids

  /// Offset of node v's first neighbour.  @param v the node  @return indptr[v]
  GNNDIRECT_HOST_DEVICE Offset begin(std::int64_t v) const noexcept { return indptr[v]; }
  /// Number of neighbours of node v.  @param v the node  @return indptr[v + 1] - indptr[v]
  GNNDIRECT_HOST_DEVICE Offset degree(std::int64_t v) const noexcept;
  /// Id of the edge stored at position e.  @param e the position
  /// @return edge_ids[e], or e when the graph has no edge ids
  GNNDIRECT_HOST_DEVICE Offset edge_id(Offset e) const noexcept;
};

static_assert(std::is_trivially_copyable_v<csr_view<std::int64_t, std::int64_t>>);
static_assert(std::is_trivially_copyable_v<csr_view<std::int32_t, std::int32_t>>);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/csr_view.inl>
