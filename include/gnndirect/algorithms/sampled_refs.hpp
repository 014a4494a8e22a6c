#pragma once
/// @file sampled_refs.hpp
/// @brief Non-owning views of sampling outputs: fixed-stride slots of one hop
/// (sampled_slots_ref) and relabelled message-flow blocks (sampled_block_ref,
/// sampled_blocks_ref). Host-compilable; no owners.
///
/// The *_async sampling calls (sample_neighbors_async, relabel_async, sample_blocks_async) write
/// through these views into caller-owned memory; owners (sample_blocks_buffers, sampled_blocks)
/// are storage plus a view of this family (their ref()). The pointers are plain addresses: the
/// GPU calls need device-visible memory.

#include <gnndirect/core/version.hpp>

#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Caller-owned output of one hop (sample_neighbors_async): seed i owns slots
/// [i * fanout, (i + 1) * fanout), of which the first counts[i] are written.
template <class Offset, class Index>
struct sampled_slots_ref {
  Index* neighbors{nullptr};        ///< num_seeds * fanout slots of neighbour ids
  Offset* edge_ids{nullptr};        ///< num_seeds * fanout slots of edge ids, or null (not wanted)
  std::int64_t* counts{nullptr};    ///< num_seeds: sampled edges per seed
  std::int64_t* offsets{nullptr};   ///< num_seeds + 1: exclusive scan of counts (offsets[0] = 0)
};

/// One relabelled message-flow block in caller-owned arrays, sized by the layer's bounds
/// (sample_blocks_bounds). dst node d's sampled in-neighbours are the local src ids
/// indices[offsets[d] .. offsets[d+1]); src_nodes[local] is the global id, the dst nodes first
/// (in order), then the other sampled neighbours in order of first appearance. dst nodes are not
/// stored: layer 0's are the seeds, layer l's are layer l-1's src_nodes[0, *num_src).
template <class Offset, class Index>
struct sampled_block_ref {
  Index* src_nodes{nullptr};          ///< num_src bound: global ids, dst nodes first
  std::int64_t* offsets{nullptr};     ///< num_dst bound + 1: entries past num_dst equal num_edges
  Index* indices{nullptr};            ///< num_edges bound: local src id of each sampled edge
  Offset* edge_ids{nullptr};          ///< num_edges bound: global edge ids, or null (not wanted)
  std::int64_t* num_src{nullptr};     ///< scalar (device memory for the GPU calls): src nodes
  std::int64_t* num_edges{nullptr};   ///< scalar (device memory for the GPU calls): sampled edges
};

/// Caller-owned outputs of a multi-layer sample, seeds side first.
template <class Offset, class Index>
struct sampled_blocks_ref {
  std::vector<sampled_block_ref<Offset, Index>> layers;  ///< one per fanout
};

GNNDIRECT_NAMESPACE_END
