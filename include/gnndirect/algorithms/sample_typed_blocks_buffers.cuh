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
/// one type (or, multi-type constructor, up to a count per type), allocated stream-ordered once from `mr`. Move-only; freed on the allocation
/// stream, which must outlive it.
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
class sample_typed_blocks_buffers {
 public:
  /// Empty.
  sample_typed_blocks_buffers() = default;
  /// Allocates for `graph`, `seed_type`, up to `max_seeds` seeds and `fanouts`, from `mr`
  /// (default: the device's pool) on `stream`. Enqueued; never synchronises.
  /// @param graph, seed_type, max_seeds, fanouts as sample_typed_blocks_bounds
  /// @param stream allocation stream  @param mr the resource
  /// @param with_edge_ids whether blocks keep edge ids
  /// @throws invalid_argument (as sample_typed_blocks_bounds), allocation_error, cuda_error.
  sample_typed_blocks_buffers(const typed_graph_view<Offset, Index>& graph, int seed_type,
                              std::int64_t max_seeds, const typed_fanouts& fanouts,
                              cudaStream_t stream, resource_ref mr = {}, bool with_edge_ids = true)
    : bounds_(sample_typed_blocks_bounds(graph, seed_type, max_seeds, fanouts))
  {
    allocate(graph, stream, mr, with_edge_ids);
  }

  /// Allocates for the multi-type form (sample_typed_blocks_async with a typed_seeds_view): up to
  /// `max_seeds_per_type[t]` seeds of each type t. Enqueued; never synchronises.
  /// @param graph, max_seeds_per_type, fanouts as sample_typed_blocks_bounds' counts form
  /// @param stream allocation stream  @param mr the resource
  /// @param with_edge_ids whether blocks keep edge ids
  /// @throws invalid_argument (as sample_typed_blocks_bounds), allocation_error, cuda_error.
  sample_typed_blocks_buffers(const typed_graph_view<Offset, Index>& graph,
                              const std::vector<std::int64_t>& max_seeds_per_type,
                              const typed_fanouts& fanouts, cudaStream_t stream, resource_ref mr = {},
                              bool with_edge_ids = true)
    : bounds_(sample_typed_blocks_bounds(graph, max_seeds_per_type, fanouts))
  {
    allocate(graph, stream, mr, with_edge_ids);
  }

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
  typed_blocks_view<Offset, Index> read(cudaStream_t stream) const
  {
    std::vector<std::int64_t> host(counts_.size());
    if (!host.empty()) {
      GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(host.data(), counts_.data(), host.size() * 8, cudaMemcpyDefault, stream));
    }
    detail::synchronize(stream);
    return view_of(host.data());
  }

  /// The exactly sized view of a finished sample from a host copy of counts() (e.g. one a
  /// pipeline copied asynchronously and waited for). Pure host function.
  /// @param host_counts num_counts() entries copied from counts()  @return the typed blocks
  typed_blocks_view<Offset, Index> view_of(const std::int64_t* host_counts) const
  {
    std::size_t const types = bounds_.nodes.size();
    std::size_t const layers = bounds_.num_layers();
    std::size_t const relations = relation_.size();
    typed_blocks_view<Offset, Index> out;
    for (std::size_t t = 0; t < types; ++t) {
      std::vector<std::int64_t> c(host_counts + t * (layers + 1), host_counts + (t + 1) * (layers + 1));
      out.node_types.push_back({{nodes_[t].data(), c.back()}, c});
    }
    for (std::size_t l = 0; l < layers; ++l) {
      out.layers.emplace_back();
      for (std::size_t r = 0; r < relations; ++r) {
        auto const [src, dst] = relation_[r];
        auto const& c = out.node_types[static_cast<std::size_t>(dst)].counts;
        std::int64_t const begin = l == 0 ? 0 : c[l - 1];
        std::int64_t const rows = c[l] - begin;
        std::int64_t const edges = host_counts[types * (layers + 1) + l * relations + r];
        std::size_t const i = l * relations + r;
        out.layers.back().push_back({static_cast<int>(r), src, dst, begin,
                                     {offsets_[i].data(), rows + 1},
                                     {indices_[i].data(), edges},
                                     {edge_ids_[i].size() == 0 ? nullptr : edge_ids_[i].data(),
                                      edge_ids_[i].size() == 0 ? 0 : edges}});
      }
    }
    return out;
  }

 private:
  /// Allocates the arrays of bounds_ (both constructors).
  void allocate(const typed_graph_view<Offset, Index>& graph, cudaStream_t stream, resource_ref mr,
                bool with_edge_ids)
  {
    auto const n = [](std::int64_t count) { return static_cast<std::size_t>(count); };
    std::size_t const types = bounds_.nodes.size();
    std::size_t const layers = bounds_.num_layers();
    std::size_t const relations = layers == 0 ? 0 : bounds_.layers[0].size();
    counts_ = buffer<std::int64_t>(types * (layers + 1) + layers * relations, stream, mr);
    for (std::size_t t = 0; t < types; ++t) {
      nodes_.emplace_back(n(bounds_.nodes[t]), stream, mr);
      view_.node_types.push_back({nodes_.back().data(), counts_.data() + t * (layers + 1), bounds_.nodes[t]});
    }
    std::int64_t* const edge_counts = counts_.data() + types * (layers + 1);
    for (std::size_t l = 0; l < layers; ++l) {
      view_.layers.emplace_back();
      for (std::size_t r = 0; r < relations; ++r) {
        relation_bounds const& b = bounds_.layers[l][r];
        offsets_.emplace_back(n(b.num_dst) + 1, stream, mr);
        indices_.emplace_back(n(b.num_edges), stream, mr);
        edge_ids_.emplace_back(with_edge_ids ? n(b.num_edges) : 0, stream, mr);
        view_.layers.back().push_back({offsets_.back().data(), indices_.back().data(),
                                      with_edge_ids ? edge_ids_.back().data() : nullptr,
                                      edge_counts + l * relations + r, b});
      }
    }
    for (int r = 0; r < graph.num_relations; ++r) {
      relation_.push_back({graph.relations[r].src_type, graph.relations[r].dst_type});
    }
    workspace_ = buffer<unsigned char>(sample_typed_blocks_workspace_bytes(graph, bounds_), stream, mr);
  }

  typed_blocks_bounds bounds_;
  std::vector<buffer<Index>> nodes_;
  std::vector<buffer<std::int64_t>> offsets_;
  std::vector<buffer<Index>> indices_;
  std::vector<buffer<Offset>> edge_ids_;
  std::vector<std::pair<int, int>> relation_;  // (src, dst) type per relation
  buffer<std::int64_t> counts_;
  buffer<unsigned char> workspace_;
  sampled_typed_blocks_view<Offset, Index> view_;
};

GNNDIRECT_NAMESPACE_END
