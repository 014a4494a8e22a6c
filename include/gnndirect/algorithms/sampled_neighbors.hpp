#pragma once
/// @file sampled_neighbors.hpp
/// @brief sampled_neighbors: one layer of sampled edges in CSR form, owned in device memory (the
/// result of sample_neighbors, algorithms/sample_neighbors.cuh) (host-compilable).

#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// Sampled edges in CSR form, owned in device memory (sample_neighbors' result): seed i's
/// neighbours are neighbors[offsets[i] .. offsets[i+1]).
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
struct sampled_neighbors {
  buffer<std::int64_t> offsets;  ///< num_seeds + 1
  buffer<Index> neighbors;       ///< sampled neighbour ids (global)
  buffer<Offset> edge_ids;       ///< ids of the sampled edges (csr.edge_id of their position)
};

GNNDIRECT_NAMESPACE_END
