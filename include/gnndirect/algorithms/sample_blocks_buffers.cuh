#pragma once
/// @file sample_blocks_buffers.cuh
/// @brief sample_blocks_buffers: the reusable outputs, device-side counts and workspace of
/// sample_blocks_async (algorithms/sample_blocks_async.cuh), owned in device memory (needs nvcc).

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
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
class sample_blocks_buffers {
 public:
  /// Empty (no layers).
  sample_blocks_buffers() = default;
  /// Allocates for up to `max_seeds` seeds and `fanouts` on a graph of `num_nodes` nodes, from
  /// `mr` (default: the device's pool), stream-ordered on `stream`. Enqueued; never synchronises.
  /// @param max_seeds, fanouts, num_nodes as sample_blocks_bounds  @param stream allocation stream
  /// @param mr the resource
  /// @throws invalid_argument (as sample_blocks_bounds), allocation_error, cuda_error.
  sample_blocks_buffers(std::int64_t max_seeds, const std::vector<int>& fanouts,
                        std::int64_t num_nodes, cudaStream_t stream, resource_ref mr = {})
  {
    allocate(max_seeds, fanouts, num_nodes, stream, mr);
  }
  /// As above, from a CUDA memory pool of the current device (null: its default pool).
  /// @param max_seeds, fanouts, num_nodes, stream as above  @param pool the pool
  sample_blocks_buffers(std::int64_t max_seeds, const std::vector<int>& fanouts,
                        std::int64_t num_nodes, cudaStream_t stream, cudaMemPool_t pool)
  {
    allocate(max_seeds, fanouts, num_nodes, stream, pool);
  }

  /// @return the outputs, for sample_blocks_async (built once at allocation, so that a batch
  /// loop that asks for them takes no host allocation)
  const sampled_blocks_view<Offset, Index>& view() const noexcept { return view_; }
  /// @return view()  @deprecated renamed to view() in 0.2
  [[deprecated("renamed to view() in 0.2")]] const sampled_blocks_view<Offset, Index>& ref() const noexcept { return view_; }
  /// @return the workspace, for sample_blocks_async and sample_blocks_check
  workspace_view workspace() const noexcept { return {workspace_.data(), workspace_.bytes()}; }
  /// @return the bounds the arrays were sized for
  const std::vector<block_bounds>& bounds() const noexcept { return bounds_; }
  /// @return device array of 2 x layers counts: [2l] = num_src, [2l + 1] = num_edges of layer l
  const std::int64_t* counts() const noexcept { return counts_.data(); }
  /// @return number of layers
  std::size_t num_layers() const noexcept { return layers_.size(); }

 private:
  struct layer {
    buffer<Index> src_nodes;
    buffer<std::int64_t> offsets;
    buffer<Index> indices;
    buffer<Offset> edge_ids;
  };

  template <class Memory>
  void allocate(std::int64_t max_seeds, const std::vector<int>& fanouts, std::int64_t num_nodes,
                cudaStream_t stream, Memory memory)
  {
    bounds_ = sample_blocks_bounds(max_seeds, fanouts, num_nodes);
    auto const n = [](std::int64_t count) { return static_cast<std::size_t>(count); };
    for (block_bounds const& b : bounds_) {
      layers_.push_back({buffer<Index>(n(b.num_src), stream, memory),
                         buffer<std::int64_t>(n(b.num_dst) + 1, stream, memory),
                         buffer<Index>(n(b.num_edges), stream, memory),
                         buffer<Offset>(n(b.num_edges), stream, memory)});
    }
    counts_ = buffer<std::int64_t>(2 * bounds_.size(), stream, memory);
    workspace_ = buffer<unsigned char>(
      detail::carve_blocks_workspace<Offset, Index>(workspace_view{}, bounds_).total, stream, memory);
    for (std::size_t l = 0; l < layers_.size(); ++l) {  // device addresses: stable across moves
      layer const& x = layers_[l];
      view_.layers.push_back({x.src_nodes.data(), x.offsets.data(), x.indices.data(), x.edge_ids.data(),
                             counts_.data() + 2 * l, counts_.data() + 2 * l + 1, bounds_[l]});
    }
  }

  std::vector<block_bounds> bounds_;
  std::vector<layer> layers_;
  buffer<std::int64_t> counts_;
  buffer<unsigned char> workspace_;
  sampled_blocks_view<Offset, Index> view_;  // views of the arrays above
};

GNNDIRECT_NAMESPACE_END
