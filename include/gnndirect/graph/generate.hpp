#pragma once
/// @file generate.hpp
/// @brief Seeded synthetic graphs: R-MAT (Graph500 parameters) and uniform random with exactly m
/// edges (options and dataset-shaped presets in generator_options.hpp); host generator
/// (host-compilable).
///
/// Randomness is counter-based: edge e's endpoints are a pure function of (seed, e), hashed with
/// SplitMix64, so the host generator here and the GPU generator in generate.cuh produce the same
/// edges bit for bit whatever the thread count or launch configuration.
///
/// Multi-edges are kept (edges are drawn independently). R-MAT draws ids in [0, 2^scale) with
/// 2^scale >= num_nodes, optionally scrambles them with a bijective hash (on by default, as in
/// Graph500, so that hubs are not all low ids), then folds them onto [0, num_nodes) by
/// floor(id * num_nodes / 2^scale). Graph500's per-level noise on (a, b, c, d) is not applied.

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/detail/graph/generate.hpp>
#include <gnndirect/graph/coo_to_csr.hpp>
#include <gnndirect/graph/generator_options.hpp>
#include <gnndirect/owners/coo.hpp>
#include <gnndirect/util/parallel.hpp>

#include <cstddef>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

namespace host {

// Internals are named ::gnndirect::detail:: in full: inside namespace host a bare `detail::`
// would find gnndirect::host::detail once reference/gather_reference.hpp or reference/sample_reference.hpp
// is included first, and then fail to compile (include-order dependence).

/// Writes the output_edge_count(options) generated edges into caller arrays (host memory), with
/// all cores. Same edges as the GPU generator for the same options.
/// @param options what to generate  @param src, dst output_edge_count(options) ids each
/// @param weights may be null (weights are written only when options.weights and non-null)
/// @throws invalid_argument for bad options. Synchronous; no CUDA call.
/// @tparam Index node id type
template <class Index>
void generate_edges(const generator_options& options, Index* src, Index* dst, float* weights);

/// Generates an edge list in host memory. @throws invalid_argument for bad options.
/// @param options what to generate  @return the edges
/// @tparam Index node id type
template <class Index>
host_coo<Index> generate_coo(const generator_options& options);

/// Generates a graph directly in CSR form in host memory (generate_coo + host::coo_to_csr).
/// @param options what to generate  @param build options of the conversion  @return the graph
/// @throws invalid_argument for bad options or an edge count the offset type cannot hold.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
host_csr<Offset, Index> generate_csr(const generator_options& options,
                                     csr_build_options build = {});

}  // namespace host
GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/graph/generate_host.inl>
