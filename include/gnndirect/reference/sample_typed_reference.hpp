#pragma once
/// @file sample_typed_reference.hpp
/// @brief Host reference of typed (heterogeneous) multi-layer sampling, PyG's hetero
/// NeighborLoader semantics with the library's random numbers (host-compilable).
///
/// Plain loops over the layers, the relations and the frontier nodes: relation r at layer l
/// draws with host::sample_neighbors_reference for the frontier of its dst type, counter layer
/// typed_random_layer(l, r) (algorithms/typed_blocks_bounds.hpp); then, relation by relation in
/// schema order, each sampled src id not yet in its type's list is appended (a hash map per
/// type), and every edge gets its src's local id. The frontier of a type at layer l + 1 is what
/// layer l appended to it. GPU tests compare sample_typed_blocks_async with this bit for bit.

#include <gnndirect/algorithms/typed_blocks_bounds.hpp>
#include <gnndirect/algorithms/typed_samplers.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/sampled_typed_views.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/typed_schema.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/typed_seeds_view.hpp>
#include <gnndirect/reference/sample_reference.hpp>
#include <gnndirect/util/parallel.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

/// One relation's block at one layer, in host vectors (see core/sampled_typed_views.hpp).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct reference_relation_block {
  int relation{-1};                  ///< relation index
  int src_type{-1};                  ///< node type of the local src ids
  int dst_type{-1};                  ///< node type of the rows
  std::int64_t dst_begin{0};         ///< local id of row 0 in the dst type's list
  std::vector<std::int64_t> offsets; ///< num_dst + 1
  std::vector<Index> indices;        ///< local src id per sampled edge
  std::vector<Offset> edge_ids;      ///< edge id per sampled edge
};

/// One node type's list, in host vectors: the dst rows of this type at layer l are
/// nodes[counts[l - 1], counts[l]) (from 0 at layer 0).  @tparam Index node id type
template <class Index>
struct reference_type_nodes {
  std::vector<Index> nodes;          ///< ids of the type, earlier layers first
  std::vector<std::int64_t> counts;  ///< list length before layer 0, then after each layer
};

/// Typed blocks in host memory: what sample_typed_blocks_reference returns. view() is the view
/// type sample_typed_blocks_buffers::read() returns too, so a test compares the two with one code
/// path. @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
struct typed_reference_blocks {
  std::vector<reference_type_nodes<Index>> node_types;                          ///< per type
  std::vector<std::vector<reference_relation_block<Offset, Index>>> layers;     ///< [layer][relation]

  /// @return the blocks as views of the family every typed sampler hands out (host memory),
  /// pointing into the vectors: valid while this object lives and its vectors are not changed
  typed_blocks_view<Offset, Index> view() const;
  /// @return view()  @deprecated renamed to view() in 0.2
  [[deprecated("renamed to view() in 0.2")]] typed_blocks_view<Offset, Index> ref() const { return view(); }
};

/// Typed multi-layer sampling on the host (see the file comment). Blocking.
/// @param graph host-readable typed graph  @param seed_type node type of the seeds
/// @param seeds host array of num_seeds ids of that type (repeats are kept as separate rows of
/// layer 0 and map to the first one's local id)  @param num_seeds their number
/// @param fanouts per relation per layer (typed_fanouts_of; -1 = all, via max_degree)
/// @param samplers one sampler (uniform_sampler, uniform_with_replacement_sampler or
/// weighted_sampler) for all relations, or per_relation_samplers of those types
/// @param threads worker threads for sampling (default: all cores); the result does not
/// depend on it
/// @return the typed blocks
/// @throws invalid_argument (as sample_typed_blocks_bounds; a corrupt neighbour list);
/// index_out_of_range naming "seeds" for a seed outside its type, or "sampled neighbour ids of
/// relation r at layer l" for a neighbour id outside its src type.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Samplers a sampler type or per_relation_samplers
template <class Offset, class Index, class Samplers>
typed_reference_blocks<Offset, Index> sample_typed_blocks_reference(
  const typed_graph_view<Offset, Index>& graph, int seed_type, const Index* seeds,
  std::int64_t num_seeds, const typed_fanouts& fanouts, const Samplers& samplers,
  int threads = default_thread_count());

/// Multi-type form (link seeds): layer 0 is every type's seeds (type t's list starts with
/// seeds.of(t)[0, seeds.count(t)) in order, repeats kept as separate rows mapping to the first
/// one's local id), then as the one-type form, which equals this form with one type's seeds.
/// Blocking.
/// @param graph host-readable typed graph
/// @param seeds per node type its host-readable seeds (one entry per type; a type may have none)
/// @param fanouts, samplers, threads as the one-type form
/// @return the typed blocks
/// @throws invalid_argument (as sample_typed_blocks_bounds' seeds-view form: another node type
/// count, a negative count or a null array with seeds, naming the type; a corrupt neighbour
/// list); index_out_of_range naming "seeds (node type t)" for the first seed outside its type
/// (types in order), or the relation and layer for a neighbour id outside its src type.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
/// @tparam Samplers a sampler type or per_relation_samplers
template <class Offset, class Index, class Samplers>
typed_reference_blocks<Offset, Index> sample_typed_blocks_reference(
  const typed_graph_view<Offset, Index>& graph, const typed_seeds_view<Index>& seeds,
  const typed_fanouts& fanouts, const Samplers& samplers, int threads = default_thread_count());

}  // namespace host
GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/reference/sample_typed_reference.inl>
