#pragma once
// Definitions of algorithms/sample_blocks_async.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

inline std::vector<block_bounds> sample_blocks_bounds(
  std::int64_t num_seeds, const std::vector<int>& fanouts, std::int64_t num_nodes)
{
  GNNDIRECT_EXPECTS(num_seeds >= 0, "sample_blocks_bounds: num_seeds must be >= 0");
  GNNDIRECT_EXPECTS(!fanouts.empty(), "sample_blocks: at least one fanout is needed");
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max() / 2;
  std::vector<block_bounds> bounds(fanouts.size());
  std::int64_t dst = num_seeds;
  for (std::size_t l = 0; l < fanouts.size(); ++l) {
    GNNDIRECT_EXPECTS(fanouts[l] >= 0, "sampling: fanout must be >= 0, got " + std::to_string(fanouts[l]));
    GNNDIRECT_EXPECTS(fanouts[l] == 0 || dst <= max / fanouts[l],
                      "sample_blocks_bounds: layer " + std::to_string(l) + " bound overflows int64");
    block_bounds& b = bounds[l];
    b.num_dst = dst;
    b.num_edges = dst * fanouts[l];
    b.num_src = dst + b.num_edges;
    if (num_nodes >= 0) { b.num_src = std::min(b.num_src, num_seeds + num_nodes); }
    dst = b.num_src;
  }
  return bounds;
}

template <class Offset, class Index>
std::size_t sample_blocks_workspace_bytes(
  std::int64_t num_seeds, const std::vector<int>& fanouts, std::int64_t num_nodes)
{
  return detail::carve_blocks_workspace<Offset, Index>(
           workspace_view{}, sample_blocks_bounds(num_seeds, fanouts, num_nodes))
    .total;
}

template <class Offset, class Index, class Sampler>
void sample_blocks_async(
  cudaStream_t stream, const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds,
  const std::vector<int>& fanouts, const Sampler& sampler, const sampling_policy& policy,
  const sampled_blocks_view<Offset, Index>& out, workspace_view ws)
{
  static_assert(!is_temporal_sampler<Sampler>::value,
                "gnndirect::sample_blocks_async: a temporal_sampler needs each layer's query times; "
                "call sample_temporal_blocks_async (algorithms/sample_temporal_blocks_async.cuh)");
  detail::check_blocks_arguments(csr, seeds, num_seeds, fanouts, sampler, policy);
  GNNDIRECT_EXPECTS(out.layers.size() == fanouts.size(),
                    "sample_blocks_async: out has " + std::to_string(out.layers.size()) +
                      " layers for " + std::to_string(fanouts.size()) + " fanouts");
  GNNDIRECT_EXPECTS(ws.data != nullptr, "sample_blocks_async: null workspace (size it with "
                                        "sample_blocks_workspace_bytes)");
  detail::check_device_accessible(ws.data, ws.bytes, workspace_alignment, "workspace");
  std::vector<block_bounds> const bounds = sample_blocks_bounds(num_seeds, fanouts, csr.num_nodes);
  for (std::size_t l = 0; l < bounds.size(); ++l) { detail::check_layer_output(out.layers[l], bounds[l], l); }
  auto const w = detail::carve_blocks_workspace<Offset, Index>(ws, bounds);
  GNNDIRECT_CUDA_TRY(
    cudaMemsetAsync(w.records, 0xFF, detail::block_records * sizeof(detail::error_record) * bounds.size(), stream));
  for (std::size_t l = 0; l < bounds.size(); ++l) {
    const Index* const dst = l == 0 ? seeds : out.layers[l - 1].src_nodes;
    bounded_count const num_dst{l == 0 ? nullptr : out.layers[l - 1].num_src, bounds[l].num_dst};
    detail::sample_block_async(stream, csr, dst, num_dst, fanouts[l], static_cast<int>(l), sampler,
                               policy, out.layers[l], w);
  }
}

inline void sample_blocks_check(cudaStream_t stream, workspace_view ws, std::size_t num_layers, std::int64_t num_nodes)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, "sample_blocks_check: null workspace");
  detail::check_device_accessible(ws.data, 0, workspace_alignment, "workspace");
  constexpr std::size_t per_layer = detail::block_records;
  std::vector<detail::error_record> records(per_layer * num_layers);
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(records.data(), ws.data, sizeof(detail::error_record) * records.size(),
                                     cudaMemcpyDefault, stream));
  detail::synchronize(stream);
  for (std::size_t l = 0; l < num_layers; ++l) {
    std::size_t const first = per_layer * l;
    std::string const layer = "layer " + std::to_string(l);
    // seeds, lists, the sampler (count, slot), sampled neighbours
    for (std::size_t r : {first, first + 2, first + 3, first + 1}) {
      detail::error_record const& record = records[r];
      if (r == first + 3) {
        detail::throw_if_sampler_failed(record, records[first + 4], "sample_blocks (" + layer + ")",
                                        "dst nodes of " + layer);
        continue;
      }
      if (record.position == detail::no_bad_position) { continue; }
      auto const position = static_cast<std::int64_t>(record.position);
      auto const value = static_cast<std::int64_t>(record.value);
      if (r == first + 2) {
        throw invalid_argument(__FILE__, __LINE__,
                               "sample_blocks: corrupt graph (" + layer + "): node " +
                                 std::to_string(position) + "'s neighbour list ends at indptr[" +
                                 std::to_string(position) + " + 1] = " + std::to_string(value) +
                                 ", before it starts or past the edge array (nothing was read "
                                 "there; check untrusted graphs with validate())");
      }
      std::string const what = (r == first ? "seeds of " : "sampled neighbours of ") + layer;
      throw index_out_of_range(__FILE__, __LINE__, what, position, value, num_nodes);
    }
  }
}

GNNDIRECT_NAMESPACE_END
