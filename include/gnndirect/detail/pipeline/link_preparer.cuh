#pragma once
/// @file link_preparer.cuh
/// @brief Internals of pipeline/link_preparer.cuh: a slot's reusable storage (nvcc; not part of
/// the API).

#include <gnndirect/algorithms/sample_blocks_buffers.cuh>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/pipeline/temporal_batches.cuh>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/detail/pipeline/block_views.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// A slot's reusable storage for the link-prediction recipe (internal to link_preparer). E is
/// the bound of seed edges per batch (positives and negatives), S that of seed nodes.
template <class Offset, class Index, class Label>
struct link_slot_storage {
  buffer<Index> staging;                 // pinned: the positives' src [0, P) then dst [P, 2P)
  buffer<std::int64_t> time_staging;     // pinned: E seed-edge times (temporal samplers)
  buffer<Label> label_staging;           // pinned: E edge labels
  buffer<std::int64_t> excluded_staging; // pinned: the batch's sorted seed-edge ids
  buffer<std::int64_t> host_counts;      // pinned: seed nodes, unresolved, then 2 x layers counts
  buffer<Index> src, dst;                // device: E endpoints, positives then negatives
  buffer<std::int64_t> times;            // device: E seed-edge times
  buffer<Label> labels;                  // device: E edge labels
  buffer<std::int64_t> excluded;         // device: excluded seed-edge ids
  buffer<std::int64_t> unresolved;       // device scalar of sample_negatives_async
  buffer<unsigned char> negative_ws;
  buffer<Index> seed_nodes;              // device: S seed nodes
  buffer<std::int64_t> num_seed_nodes;   // device scalar
  buffer<Index> local;                   // device: 2E local endpoint ids (edge_label_index)
  buffer<std::int64_t> node_times;       // device: S seed-node times (temporal samplers)
  buffer<unsigned char> seeds_ws;
  sample_blocks_buffers<Offset, Index> blocks;
  std::vector<block_view<Offset, Index>> block_views;  // storage the batch's blocks_view points to
  buffer<unsigned char> temporal_ws;     // temporal samplers: the temporal blocks' workspace
  buffer<unsigned char> feature_ws;
  std::int64_t num_excluded{0};          // excluded ids of the current batch
  cudaStream_t stream{nullptr};          // the slot's stream (complete() reads the error records)
};

}  // namespace detail
GNNDIRECT_NAMESPACE_END
