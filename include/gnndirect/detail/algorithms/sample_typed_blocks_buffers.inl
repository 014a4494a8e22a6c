#pragma once
// Definitions of algorithms/sample_typed_blocks_buffers.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
sample_typed_blocks_buffers<Offset, Index>::sample_typed_blocks_buffers(const typed_graph_view<Offset, Index>& graph, int seed_type,
                            std::int64_t max_seeds, const typed_fanouts& fanouts,
                            cudaStream_t stream, resource_ref mr, bool with_edge_ids)
  : bounds_(sample_typed_blocks_bounds(graph, seed_type, max_seeds, fanouts))
{
  allocate(graph, stream, mr, with_edge_ids);
}

template <class Offset, class Index>
sample_typed_blocks_buffers<Offset, Index>::sample_typed_blocks_buffers(
  const typed_graph_view<Offset, Index>& graph, const std::vector<std::int64_t>& max_seeds_per_type,
  const typed_fanouts& fanouts, cudaStream_t stream, resource_ref mr, bool with_edge_ids)
  : bounds_(sample_typed_blocks_bounds(graph, max_seeds_per_type, fanouts))
{
  allocate(graph, stream, mr, with_edge_ids);
}

template <class Offset, class Index>
void sample_typed_blocks_buffers<Offset, Index>::allocate(const typed_graph_view<Offset, Index>& graph,
                                                          cudaStream_t stream, resource_ref mr, bool with_edge_ids)
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

template <class Offset, class Index>
typed_blocks_view<Offset, Index> sample_typed_blocks_buffers<Offset, Index>::read(cudaStream_t stream) const
{
  std::vector<std::int64_t> host(counts_.size());
  if (!host.empty()) {
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(host.data(), counts_.data(), host.size() * 8, cudaMemcpyDefault, stream));
  }
  detail::synchronize(stream);
  return view_of(host.data());
}

template <class Offset, class Index>
typed_blocks_view<Offset, Index> sample_typed_blocks_buffers<Offset, Index>::view_of(const std::int64_t* host_counts) const
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

GNNDIRECT_NAMESPACE_END
