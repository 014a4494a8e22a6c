#pragma once
/// @file sampled_neighbors.hpp
/// @brief sampled_neighbors: one layer of sampled edges in CSR form, owned in device memory (the
/// result of sample_neighbors, algorithms/sample_neighbors.cuh) (host-compilable).

#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// Sampled edges in CSR form, owned in device memory (sample_neighbors' result): seed i's
/// neighbours are neighbors[offsets[i] .. offsets[i+1]). Move-only: the buffers own their device
/// memory (freed when the result is destroyed); copy them back with cudaMemcpy to read them on
/// the host. edge_ids has one entry per neighbour (its CSR position when the graph has none).
/// How many neighbours a seed gets (at most fanout) is its sampler's rule (device/samplers.hpp).
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
struct sampled_neighbors {
  buffer<std::int64_t> offsets;  ///< num_seeds + 1
  buffer<Index> neighbors;       ///< sampled neighbour ids (global)
  buffer<Offset> edge_ids;       ///< ids of the sampled edges (csr.edge_id of their position)
};

GNNDIRECT_NAMESPACE_END
