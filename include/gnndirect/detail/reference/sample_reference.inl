#pragma once
// Definitions of reference/sample_reference.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

namespace host {

template <class Offset, class Index, class Sampler>
reference_neighbors<Offset, Index> sample_neighbors_reference(
  const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds, int fanout, int layer,
  const Sampler& sampler, int threads)
{
  detail::reference_draw const policy = detail::reference_draw_of(sampler);
  validate(sampler, sampling_policy{}, csr, fanout);
  GNNDIRECT_EXPECTS(num_seeds >= 0 && (num_seeds == 0 || seeds != nullptr),
                    "sample_neighbors_reference: bad seed array");
  detail::check_indices(seeds, num_seeds, csr.num_nodes, "seeds");
  detail::check_lists(csr, seeds, num_seeds);

  reference_neighbors<Offset, Index> result;
  result.offsets.assign(static_cast<std::size_t>(num_seeds) + 1, 0);
  std::int64_t* const counts = result.offsets.data() + 1;
  parallel_for_ranges(
    num_seeds,
    [&](std::int64_t begin, std::int64_t end, int) {
      for (std::int64_t i = begin; i < end; ++i) {
        counts[i] = detail::sample_count(csr, static_cast<std::int64_t>(seeds[i]), fanout, policy.kind);
      }
    },
    threads);
  for (std::int64_t i = 0; i < num_seeds; ++i) { counts[i] += result.offsets[static_cast<std::size_t>(i)]; }

  auto const total = static_cast<std::size_t>(result.num_edges());
  result.neighbors.resize(total);
  result.edge_ids.resize(total);
  auto const counter_layer = static_cast<std::uint32_t>(layer);
  parallel_for_ranges(
    num_seeds,
    [&](std::int64_t begin, std::int64_t end, int) {
      detail::sample_scratch scratch;
      for (std::int64_t i = begin; i < end; ++i) {
        auto const node = static_cast<std::int64_t>(seeds[i]);
        detail::sample_positions(csr, node, fanout, counter_layer, policy, scratch);
        Offset const first = csr.begin(node);
        auto out = static_cast<std::size_t>(result.offsets[static_cast<std::size_t>(i)]);
        for (std::int64_t p : scratch.positions) {
          auto const e = static_cast<Offset>(first + p);
          result.neighbors[out] = csr.indices[e];
          result.edge_ids[out] = csr.edge_id(e);
          ++out;
        }
      }
    },
    threads);
  return result;
}

template <class Offset, class Index, class Sampler>
reference_blocks<Offset, Index> sample_blocks_reference(
  const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds, const std::vector<int>& fanouts,
  const Sampler& sampler, int threads)
{
  GNNDIRECT_EXPECTS(!fanouts.empty(), "sample_blocks_reference: at least one fanout is needed");
  GNNDIRECT_EXPECTS(num_seeds >= 0 && (num_seeds == 0 || seeds != nullptr),
                    "sample_blocks_reference: bad seed array");
  reference_blocks<Offset, Index> result;
  result.layers.resize(fanouts.size());
  for (std::size_t l = 0; l < fanouts.size(); ++l) {
    auto& layer = result.layers[l];
    if (l == 0) {
      layer.dst_nodes.assign(seeds, seeds + num_seeds);
    } else {
      layer.dst_nodes = result.layers[l - 1].src_nodes;
    }
    auto const num_dst = static_cast<std::int64_t>(layer.dst_nodes.size());
    detail::check_indices(layer.dst_nodes.data(), num_dst, csr.num_nodes,
                        "seeds of layer " + std::to_string(l));
    auto sampled = sample_neighbors_reference(csr, layer.dst_nodes.data(), num_dst, fanouts[l],
                                              static_cast<int>(l), sampler, threads);
    // Checked here, not only as the next layer's dst nodes: the last layer's neighbours are
    // nobody's dst nodes, and they become src_nodes (input node ids) all the same.
    detail::check_indices(sampled.neighbors.data(), sampled.num_edges(), csr.num_nodes,
                        "sampled neighbour ids (csr.indices) of layer " + std::to_string(l));
    layer.offsets = std::move(sampled.offsets);
    layer.edge_ids = std::move(sampled.edge_ids);
    detail::relabel_block(layer, sampled.neighbors);
  }
  return result;
}

}  // namespace host

GNNDIRECT_NAMESPACE_END
