#pragma once
/// @file sample_typed_blocks_buffers.cuh
/// @brief sample_typed_blocks_buffers: reusable bound-sized outputs, device-side counts and
/// workspace of sample_typed_blocks_async, owned in device memory, and the exactly sized view of a
/// finished sample (needs nvcc).

#include <gnndirect/algorithms/sample_typed_blocks_async.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/sampled_typed_views.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Owns the outputs and workspace of sample_typed_blocks_async for up to `max_seeds` seeds of
/// one type (or, multi-type constructor, up to a count per type), allocated stream-ordered once
/// from `mr`. Move-only; freed on the allocation stream, which must outlive it. A batch loop
/// allocates one and reuses it for every batch:
/// @code
///   sample_typed_blocks_buffers<Offset, Index> bufs(graph, seed_type, max_seeds, fanouts, stream);
///   sample_typed_blocks_async(stream, graph, seed_type, seeds, n, fanouts, samplers, policy,
///                             bufs.view(), bufs.workspace());
///   sample_typed_blocks_check(stream, bufs.workspace(), graph, seed_type, bufs.bounds().num_layers());
///   typed_blocks_view<Offset, Index> blocks = bufs.read(stream);  // sizes of this batch
/// @endcode
/// Each sample overwrites the previous one, so a view from read() or view_of() is stale then.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
class sample_typed_blocks_buffers {
 public:
  /// Empty (no arrays, no memory): a placeholder to move an allocated one into.
  sample_typed_blocks_buffers() = default;
  /// Allocates for `graph`, `seed_type`, up to `max_seeds` seeds and `fanouts`, from `mr`
  /// (default: the device's pool) on `stream`. Enqueued; never synchronises.
  /// @param graph, seed_type, max_seeds, fanouts as sample_typed_blocks_bounds
  /// @param stream allocation stream  @param mr the resource
  /// @param with_edge_ids whether blocks keep edge ids
  /// @throws invalid_argument (as sample_typed_blocks_bounds), allocation_error, cuda_error.
  sample_typed_blocks_buffers(const typed_graph_view<Offset, Index>& graph, int seed_type,
                              std::int64_t max_seeds, const typed_fanouts& fanouts,
                              cudaStream_t stream, resource_ref mr = {}, bool with_edge_ids = true);

  /// Allocates for the multi-type form (sample_typed_blocks_async with a typed_seeds_view): up to
  /// `max_seeds_per_type[t]` seeds of each type t. Enqueued; never synchronises.
  /// @param graph, max_seeds_per_type, fanouts as sample_typed_blocks_bounds' counts form
  /// @param stream allocation stream  @param mr the resource
  /// @param with_edge_ids whether blocks keep edge ids
  /// @throws invalid_argument (as sample_typed_blocks_bounds), allocation_error, cuda_error.
  sample_typed_blocks_buffers(const typed_graph_view<Offset, Index>& graph,
                              const std::vector<std::int64_t>& max_seeds_per_type,
                              const typed_fanouts& fanouts, cudaStream_t stream, resource_ref mr = {},
                              bool with_edge_ids = true);

  /// @return the outputs, for sample_typed_blocks_async (built once at allocation)
  const sampled_typed_blocks_view<Offset, Index>& view() const noexcept { return view_; }
  /// @return view()  @deprecated renamed to view() in 0.2
  [[deprecated("renamed to view() in 0.2")]] const sampled_typed_blocks_view<Offset, Index>& ref() const noexcept { return view_; }
  /// @return the workspace, for sample_typed_blocks_async and sample_typed_blocks_check
  workspace_view workspace() const noexcept { return {workspace_.data(), workspace_.bytes()}; }
  /// @return the bounds the arrays were sized for
  const typed_blocks_bounds& bounds() const noexcept { return bounds_; }
  /// @return device array of every count: per type its num_layers + 1 list lengths, then per
  /// layer per relation its edge count (one copy reads them all)
  const std::int64_t* counts() const noexcept { return counts_.data(); }
  /// @return number of count entries in counts()
  std::size_t num_counts() const noexcept { return counts_.size(); }

  /// Reads the counts back (one copy; synchronises `stream`) and returns the exactly sized
  /// view of the finished sample (device addresses, valid while this owner lives and until the
  /// next sample into it). Not capturable.
  /// @param stream the stream the sample ran on  @return the typed blocks
  /// @throws cuda_error.
  typed_blocks_view<Offset, Index> read(cudaStream_t stream) const;

  /// The exactly sized view of a finished sample from a host copy of counts() (e.g. one a
  /// pipeline copied asynchronously and waited for). Pure host function.
  /// @param host_counts num_counts() entries copied from counts()  @return the typed blocks
  typed_blocks_view<Offset, Index> view_of(const std::int64_t* host_counts) const;

 private:
  /// Allocates the arrays of bounds_ (both constructors).
  void allocate(const typed_graph_view<Offset, Index>& graph, cudaStream_t stream, resource_ref mr,
                bool with_edge_ids);

  typed_blocks_bounds bounds_;                  ///< the sizes the arrays hold
  std::vector<buffer<Index>> nodes_;            ///< per node type: its node list
  std::vector<buffer<std::int64_t>> offsets_;   ///< per layer x relation (row-major)
  std::vector<buffer<Index>> indices_;          ///< per layer x relation
  std::vector<buffer<Offset>> edge_ids_;        ///< per layer x relation (empty without edge ids)
  std::vector<std::pair<int, int>> relation_;   ///< (src, dst) node type per relation
  buffer<std::int64_t> counts_;                 ///< the device-side counts (see counts())
  buffer<unsigned char> workspace_;             ///< sample_typed_blocks_async's scratch
  sampled_typed_blocks_view<Offset, Index> view_;  ///< views of the arrays above
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/sample_typed_blocks_buffers.inl>
