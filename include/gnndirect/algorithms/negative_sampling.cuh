#pragma once
/// @file negative_sampling.cuh
/// @brief sample_negatives_async: PyG's NegativeSampling ('binary', 'triplet', optionally strict)
/// on the GPU, deterministic with the library's Philox generator (needs nvcc). Semantics, the
/// modes, the options and the negative-sampler concept: algorithms/negative_sampling.hpp.

#include <gnndirect/algorithms/negative_sampling.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/negative_sampling.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/launch.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/detail/core/workspace.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// Workspace bytes of sample_negatives_async (its error records; independent of the sizes).
/// @return the bytes
inline std::size_t sample_negatives_workspace_bytes() noexcept;

/// Enqueues negative sampling for `num_pos` positive edges on `stream`; returns at once.
///
/// Writes out_src and out_dst [0, negative_count(mode, num_pos)) and *unresolved (the number of
/// strict draws kept after max_attempts, 0 when not strict); nothing else. Sources range over
/// [0, csr.num_nodes), destinations over [0, num_dst) with num_dst =
/// negative_dst_count(options, csr.num_nodes) (options.num_dst_nodes, -1: csr.num_nodes; for a
/// typed relation csr is its out-CSR). Positive sources outside [0, csr.num_nodes), positive
/// destinations outside [0, num_dst), and pairs a user sampler draws outside those ranges (not
/// written), are recorded in `ws`: call sample_negatives_check afterwards. Never synchronises,
/// never allocates: capturable.
/// @tparam Offset, Index the graph's offset and node id types
/// @tparam Mode binary_negatives or triplet_negatives
/// @tparam Sampler a negative sampler (algorithms/negative_sampling.hpp)
/// @param stream stream to enqueue on
/// @param csr device-visible graph (its neighbour lists sorted ascending when strict; only
/// indptr and indices are read, and only when strict)
/// @param src, dst device-visible positive endpoints, num_pos each (triplet keeps src; dst is
/// only checked)  @param num_pos their number
/// @param mode the mode and amount  @param options seed, batch, strict, max_attempts
/// @param out_src, out_dst device-visible, negative_count(mode, num_pos) entries each
/// @param unresolved device-visible scalar
/// @param ws workspace of sample_negatives_workspace_bytes() bytes
/// @param sampler the negative sampler (default: uniform over all nodes)
/// @throws invalid_argument (amount <= 0 or NaN, num_pos < 0, an empty graph or an empty
/// destination range with negatives to draw, num_dst_nodes < -1, num_dst != csr.num_nodes for a
/// sampler without the two-range draw, max_attempts < 1 when strict, null or unreachable arrays,
/// workspace too small) before any launch; cuda_error.
template <class Offset, class Index, class Mode, class Sampler = uniform_negative_sampler>
void sample_negatives_async(cudaStream_t stream, const csr_view<Offset, Index>& csr, const Index* src,
                            const Index* dst, std::int64_t num_pos, const Mode& mode,
                            const negative_options& options, Index* out_src, Index* out_dst,
                            std::int64_t* unresolved, workspace_view ws, const Sampler& sampler = {});

/// Synchronises `stream` and raises what the last sample_negatives_async on `ws` recorded (one
/// range: the form below with num_src = num_dst = num_nodes).
/// @param stream the stream it ran on  @param ws its workspace  @param num_nodes the graph's size
/// @throws index_out_of_range naming "positive src"/"positive dst"[position] = value;
/// invalid_argument when the negative sampler drew a pair outside the graph (naming the
/// negative) or for a null workspace; cuda_error.
inline void sample_negatives_check(cudaStream_t stream, workspace_view ws, std::int64_t num_nodes);

/// Two-range sample_negatives_check (typed relations): synchronises `stream` and raises what the
/// last sample_negatives_async on `ws` recorded.
/// @param stream the stream it ran on  @param ws its workspace
/// @param num_src the sources' range (csr.num_nodes)
/// @param num_dst the destinations' range (negative_dst_count(options, csr.num_nodes))
/// @throws index_out_of_range naming "positive src"[position] = value (outside [0, num_src)) or
/// "positive dst"[position] = value (outside [0, num_dst)); invalid_argument when the negative
/// sampler drew a pair outside the ranges (naming the negative) or for a null workspace;
/// cuda_error.
inline void sample_negatives_check(cudaStream_t stream, workspace_view ws, std::int64_t num_src,
                                   std::int64_t num_dst);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/negative_sampling.inl>
