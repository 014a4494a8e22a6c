#pragma once
/// @file sampled_output.hpp
/// @brief The two small types a sampler works with: one node's edges (node_edges) and where its
/// sample goes (sampled_output). Trivially copyable; host-compilable, used in device code.

#include <gnndirect/core/config.hpp>
#include <gnndirect/detail/core/error_record.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// One node's edges: positions [first, first + degree) of the CSR.
/// @tparam Offset CSR offset type
template <class Offset>
struct node_edges {
  std::int64_t node;    ///< the node id
  Offset first;         ///< position of its first edge
  std::int64_t degree;  ///< number of edges
  /// The node's row: its position in the seed (dst) array of the bulk call that samples it (the
  /// kernels of sample_neighbors_async and sample_blocks_async set it), so that a sampler can
  /// read per-row data such as a query time (temporal_sampler, device/temporal_samplers.hpp).
  /// -1 where the caller gives none (sample_neighbors_tile without its `row` argument).
  std::int64_t row{-1};
};

/// Where one node's sample goes: emit(position, slot) stores the neighbour id of the node's edge
/// at `position` (relative to `first`) in slot `slot`, and, when out_edge_ids is not null, its
/// edge id. Holds the two CSR pointers by value (not the view by address, which would force a
/// kernel parameter copy into local memory). A slot outside [0, slots) is not written (a faulty
/// sampler cannot write past the node's slots): the library's calls set slots to the fanout and
/// record such a slot, with the row it came from, in bad_slot.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct sampled_output {
  const Index* indices;        ///< csr.indices
  const Offset* csr_edge_ids;  ///< csr.edge_ids (null: an edge's id is its position)
  Offset first;                ///< the node's first edge position
  Index* out_neighbors;        ///< slots for neighbour ids
  Offset* out_edge_ids;        ///< slots for edge ids, or null
  /// Slots in out_neighbors (and out_edge_ids): emit writes nothing outside [0, slots). The
  /// default (the largest int64) checks nothing, for outputs built without it.
  std::int64_t slots{INT64_MAX};
  detail::error_record* bad_slot{nullptr};  ///< records (row, slot) of a refused slot, or null
  std::int64_t row{0};                      ///< the position reported with a refused slot

  /// Writes the edge at `position` (relative to first) to `slot`; a slot outside [0, slots) is
  /// refused (recorded in bad_slot when set). Device (and host) code.
  /// @param position edge position relative to first  @param slot output slot
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE void emit(std::int64_t position, std::int64_t slot) const;
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/device/sampled_output.inl>
