#pragma once
// Definitions of graph/generate.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

template <class Index>
void generate_edges(const generator_options& options, Index* src, Index* dst, float* weights)
{
  ::gnndirect::detail::generator_plan const plan = ::gnndirect::detail::make_generator_plan<Index>(options);
  std::int64_t const count = output_edge_count(options);
  GNNDIRECT_EXPECTS(count == 0 || (src != nullptr && dst != nullptr), "generate_edges: null output");
  bool const weighted = options.weights && weights != nullptr;
  host::parallel_for_ranges(
    count,
    [&](std::int64_t begin, std::int64_t end, int) {
      for (std::int64_t j = begin; j < end; ++j) {
        ::gnndirect::detail::drawn_edge const edge = ::gnndirect::detail::generate_edge(plan, j);
        src[j] = static_cast<Index>(edge.src);
        dst[j] = static_cast<Index>(edge.dst);
        if (weighted) { weights[j] = ::gnndirect::detail::generate_weight(plan, j); }
      }
    },
    ::gnndirect::detail::host_threads_for(count));
}

template <class Index>
host_coo<Index> generate_coo(const generator_options& options)
{
  (void)::gnndirect::detail::make_generator_plan<Index>(options);  // check before allocating
  auto const count = static_cast<std::size_t>(output_edge_count(options));
  host_coo<Index> coo;
  coo.num_nodes = options.num_nodes;
  coo.src.resize(count);
  coo.dst.resize(count);
  if (options.weights) { coo.weights.resize(count); }
  generate_edges(options, coo.src.data(), coo.dst.data(), coo.weights.data());
  return coo;
}

template <class Offset, class Index>
host_csr<Offset, Index> generate_csr(const generator_options& options,
                                     csr_build_options build)
{
  return coo_to_csr<Offset, Index>(generate_coo<Index>(options).view(), build);
}

}  // namespace host
GNNDIRECT_NAMESPACE_END
