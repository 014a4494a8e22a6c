#pragma once
/// @file sampled_typed_views.hpp
/// @brief Typed message-flow blocks in the one view family of sampling results
/// (core/sampled_views.hpp): writers' views (bound-sized, sizes on the device) that
/// sample_typed_blocks_async fills, and readers' views (exactly sized) that every producer of
/// typed blocks hands out: sample_typed_blocks_buffers::read (GPU) and the host reference's
/// host::typed_reference_blocks::view() (host-compilable; no owners).
///
/// Layout (PyG's hetero NeighborLoader): one node list per node type, which grows layer by layer
/// (earlier nodes first: the seeds, then the nodes new at layer 0, then at layer 1, ...), and
/// per layer per relation one block: its dst rows are the dst type's frontier at that layer
/// (layer 0: the seeds, for the seed type; layer l: the nodes new at layer l - 1), i.e. the
/// slice [dst_begin, dst_begin + num_dst) of the dst type's list, and edge e of row d has the
/// local src id indices[e] (offsets[d] <= e < offsets[d + 1]), an index into the src type's
/// list. Local ids of a type refer to the final list, which never reorders.

#include <gnndirect/core/deprecated_names.hpp>
#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/version.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Sizes of one relation's block at one layer: what a call writes up to, or what an output
/// holds.
struct relation_bounds {
  std::int64_t num_dst{0};    ///< dst rows: the dst type's frontier at this layer
  std::int64_t num_edges{0};  ///< sampled edges: num_dst * fanout
};

/// Caller-owned node list of one node type (writer's view). Give its capacity: a view without it
/// is refused (as every writer's view of core/sampled_views.hpp).
/// @tparam Index node id type
template <class Index>
struct sampled_type_nodes_view {
  Index* nodes{nullptr};           ///< capacity entries: the type's local-to-global ids
  /// num_layers + 1 entries (device memory for the GPU calls): counts[0] the list's length
  /// before layer 0 (the seeds' count for the seed type, else 0), counts[l + 1] after layer l.
  std::int64_t* counts{nullptr};
  std::int64_t capacity{-1};       ///< entries of nodes; required (negative: not given)
};
/// A view is copied by value (kernel arguments, batches): no owner inside.
static_assert(std::is_trivially_copyable_v<sampled_type_nodes_view<std::int32_t>>,
              "sampled_type_nodes_view: trivially copyable");

/// Caller-owned block of one relation at one layer (writer's view).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct sampled_relation_view {
  std::int64_t* offsets{nullptr};    ///< num_dst bound + 1: entries past num_dst equal num_edges
  Index* indices{nullptr};           ///< num_edges bound: local src id of each sampled edge
  Offset* edge_ids{nullptr};         ///< num_edges bound: the relation's edge ids, or null
  std::int64_t* num_edges{nullptr};  ///< scalar (device memory for the GPU calls)
  relation_bounds capacity{-1, -1};  ///< what the arrays hold; required (negative: not given)
};
/// A view is copied by value (kernel arguments, batches): no owner inside.
static_assert(std::is_trivially_copyable_v<sampled_relation_view<std::int64_t, std::int32_t>>,
              "sampled_relation_view: trivially copyable");

/// Caller-owned outputs of a typed multi-layer sample.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// Not trivially copyable yet (a vector per node type and per layer): 0.1 callers build it with
/// push_back, so 0.2 keeps its shape; the pointer-and-count form (as blocks_view) is planned.
template <class Offset, class Index>
struct sampled_typed_blocks_view {
  std::vector<sampled_type_nodes_view<Index>> node_types;                  ///< one per node type
  std::vector<std::vector<sampled_relation_view<Offset, Index>>> layers;   ///< [layer][relation]
};

/// One relation's block at one layer, exactly sized (read-only view).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct relation_block_view {
  int relation{-1};                       ///< relation index (schema order)
  int src_type{-1};                       ///< node type of indices' local ids
  int dst_type{-1};                       ///< node type of the rows
  std::int64_t dst_begin{0};              ///< local id (in the dst type's list) of row 0
  array_view<const std::int64_t> offsets;  ///< num_dst + 1
  array_view<const Index> indices;         ///< local src id of each sampled edge
  array_view<const Offset> edge_ids;       ///< edge id of each sampled edge (empty if not kept)

  /// @return number of dst rows
  std::int64_t num_dst() const noexcept { return offsets.count > 0 ? offsets.count - 1 : 0; }
  /// @return number of sampled edges
  std::int64_t num_edges() const noexcept { return indices.count; }
};
/// A view is copied by value (kernel arguments, batches): no owner inside.
static_assert(std::is_trivially_copyable_v<relation_block_view<std::int64_t, std::int32_t>>,
              "relation_block_view: trivially copyable");

/// One node type's list, exactly sized (read-only view).
/// @tparam Index node id type
/// Not trivially copyable yet (a vector per node type and per layer): 0.1 callers build it with
/// push_back, so 0.2 keeps its shape; the pointer-and-count form (as blocks_view) is planned.
template <class Index>
struct type_nodes_view {
  array_view<const Index> nodes;      ///< global (type-local) ids, earlier layers first
  std::vector<std::int64_t> counts;  ///< host copy: length before layer 0, then after each layer
};

/// All typed blocks of a sample (read-only views).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// Not trivially copyable yet (a vector per node type and per layer): 0.1 callers build it with
/// push_back, so 0.2 keeps its shape; the pointer-and-count form (as blocks_view) is planned.
template <class Offset, class Index>
struct typed_blocks_view {
  std::vector<type_nodes_view<Index>> node_types;                     ///< one per node type
  std::vector<std::vector<relation_block_view<Offset, Index>>> layers;  ///< [layer][relation]

  /// @param t a node type  @return its input (feature) nodes: the whole list
  const array_view<const Index>& input_nodes(int t) const
  {
    return node_types.at(static_cast<std::size_t>(t)).nodes;
  }
};

GNNDIRECT_NAMESPACE_END
