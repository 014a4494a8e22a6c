#pragma once
/// @file sample_blocks_buffers.cuh
/// @brief sample_blocks_buffers: the reusable outputs, device-side counts and workspace of
/// sample_blocks_async (algorithms/sample_blocks_async.cuh), owned in device memory (needs nvcc).
/// The synchronous sample_blocks (algorithms/sample_blocks.cuh) allocates exactly sized outputs
/// of its own and needs none.

#include <gnndirect/algorithms/sample_blocks_async.cuh>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/sample_blocks_async.cuh>
#include <gnndirect/owners/buffer.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Owns a reusable set of bound-sized outputs, device-side counts and workspace for
/// sample_blocks_async, allocated stream-ordered once (from a resource or a pool) for up to
/// `max_seeds` seeds. Move-only; freed on the allocation stream, which must outlive it.
/// A batch loop allocates one and samples into it again and again, with no allocation per batch:
/// @code
///   sample_blocks_buffers<Offset, Index> bufs(max_seeds, fanouts, csr.num_nodes, stream);
///   sample_blocks_async(stream, csr, seeds, n, fanouts, sampler, policy, bufs.view(), bufs.workspace());
///   sample_blocks_check(stream, bufs.workspace(), bufs.num_layers(), csr.num_nodes);
/// @endcode
/// Each sample overwrites the previous one; its sizes are in counts() (device memory).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
class sample_blocks_buffers {
 public:
  /// Empty (no layers, no memory): a placeholder to move an allocated one into.
  sample_blocks_buffers() = default;
  /// Allocates for up to `max_seeds` seeds and `fanouts` on a graph of `num_nodes` nodes, from
  /// `mr` (default: the device's pool), stream-ordered on `stream`. Enqueued; never synchronises.
  /// @param max_seeds, fanouts, num_nodes as sample_blocks_bounds  @param stream allocation stream
  /// @param mr the resource
  /// @throws invalid_argument (as sample_blocks_bounds), allocation_error, cuda_error.
  sample_blocks_buffers(std::int64_t max_seeds, const std::vector<int>& fanouts,
                        std::int64_t num_nodes, cudaStream_t stream, resource_ref mr = {});
  /// As above, from a CUDA memory pool of the current device (null: its default pool).
  /// @param max_seeds, fanouts, num_nodes, stream as above  @param pool the pool
  sample_blocks_buffers(std::int64_t max_seeds, const std::vector<int>& fanouts,
                        std::int64_t num_nodes, cudaStream_t stream, cudaMemPool_t pool);

  /// @return the outputs, for sample_blocks_async (built once at allocation, so that a batch
  /// loop that asks for them takes no host allocation)
  const sampled_blocks_view<Offset, Index>& view() const noexcept { return view_; }
  /// @return view()  @deprecated renamed to view() in 0.2
  [[deprecated("renamed to view() in 0.2")]] const sampled_blocks_view<Offset, Index>& ref() const noexcept { return view_; }
  /// @return the workspace, for sample_blocks_async and sample_blocks_check
  workspace_view workspace() const noexcept { return {workspace_.data(), workspace_.bytes()}; }
  /// @return the bounds the arrays were sized for
  const std::vector<block_bounds>& bounds() const noexcept { return bounds_; }
  /// @return device array of 2 x layers counts: [2l] = num_src, [2l + 1] = num_edges of layer l,
  /// written by sample_blocks_async on its stream (read them after it, in stream order)
  const std::int64_t* counts() const noexcept { return counts_.data(); }
  /// @return number of layers
  std::size_t num_layers() const noexcept { return layers_.size(); }

 private:
  /// The bound-sized arrays of one layer (dst nodes are the previous layer's src nodes).
  struct layer {
    buffer<Index> src_nodes;       ///< bounds_[l].num_src entries
    buffer<std::int64_t> offsets;  ///< bounds_[l].num_dst + 1 entries
    buffer<Index> indices;         ///< bounds_[l].num_edges entries
    buffer<Offset> edge_ids;       ///< bounds_[l].num_edges entries
  };

  /// Sizes every array from sample_blocks_bounds and builds view_; shared by both constructors.
  /// Memory is resource_ref or cudaMemPool_t.  @param memory where the arrays come from
  /// @param max_seeds, fanouts, num_nodes, stream as the constructors
  template <class Memory>
  void allocate(std::int64_t max_seeds, const std::vector<int>& fanouts, std::int64_t num_nodes,
                cudaStream_t stream, Memory memory);

  std::vector<block_bounds> bounds_;          ///< per layer: the sizes the arrays hold
  std::vector<layer> layers_;                 ///< per layer: the arrays
  buffer<std::int64_t> counts_;               ///< 2 x layers device-side counts (see counts())
  buffer<unsigned char> workspace_;           ///< sample_blocks_async's scratch
  sampled_blocks_view<Offset, Index> view_;   ///< views of the arrays above
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/sample_blocks_buffers.inl>
