#pragma once
// Definitions of graph/generate.cuh (included at its end; not part of the API).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/detail/graph/generate_kernels.cuh>

GNNDIRECT_NAMESPACE_BEGIN

template <class Index>
coo_graph<Index> generate_coo(
  cudaStream_t stream, const generator_options& options, memory_kind kind, resource_ref mr, host_resource_ref host_mr)
{
  detail::generator_plan const plan = detail::make_generator_plan<Index>(options);
  require_device();
  auto const count = static_cast<std::size_t>(output_edge_count(options));
  coo_graph<Index> coo{buffer<Index>(count, kind, mr, host_mr), buffer<Index>(count, kind, mr, host_mr),
                       buffer<float>(options.weights ? count : 0, kind, mr, host_mr), options.num_nodes};
  if (count > 0) {
    auto const n = static_cast<std::int64_t>(count);
    detail::generate_edges_kernel<<<detail::grid_stride_blocks(n), detail::elementwise_block_threads, 0,
                                    stream>>>(plan, n, coo.src.data(), coo.dst.data(),
                                              options.weights ? coo.weights.data() : nullptr);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
  }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
  return coo;
}

template <class Offset, class Index>
csr_graph<Offset, Index> generate_csr(
  cudaStream_t stream, const generator_options& options, csr_placement placement, csr_build_options build,
  resource_ref mr, host_resource_ref host_mr)
{
  coo_graph<Index> coo = generate_coo<Index>(stream, options, memory_kind::device, mr);
  coo_view<Index> const view = coo.view();
  detail::check_coo_shape<Offset>(view);
  csr_graph<Offset, Index> graph(view.num_nodes, view.num_edges, placement, options.weights,
                                 build.edge_ids, mr, host_mr);
  // Generated ids are in range by construction, and the generated sources are disposable.
  detail::build_csr_device(stream, view, graph, coo.src.data(), mr);
  return graph;
}

GNNDIRECT_NAMESPACE_END
