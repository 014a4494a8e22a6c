#pragma once
// Definitions of algorithms/sample_blocks_buffers.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
sample_blocks_buffers<Offset, Index>::sample_blocks_buffers(std::int64_t max_seeds, const std::vector<int>& fanouts,
                      std::int64_t num_nodes, cudaStream_t stream, resource_ref mr)
{
  allocate(max_seeds, fanouts, num_nodes, stream, mr);
}

template <class Offset, class Index>
sample_blocks_buffers<Offset, Index>::sample_blocks_buffers(std::int64_t max_seeds, const std::vector<int>& fanouts,
                      std::int64_t num_nodes, cudaStream_t stream, cudaMemPool_t pool)
{
  allocate(max_seeds, fanouts, num_nodes, stream, pool);
}

template <class Offset, class Index>
template <class Memory>
void sample_blocks_buffers<Offset, Index>::allocate(std::int64_t max_seeds, const std::vector<int>& fanouts, std::int64_t num_nodes,
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

GNNDIRECT_NAMESPACE_END
