// A 0.1-style user source (input of test_host_migrate: scripts/migrate-0.2 rewrites it to
// expected_0.2.cu). It is never compiled.
#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/sampled_typed_views.hpp>
#include <gnndirect/gnndirect.cuh>

namespace gd = gnndirect;

template <class Offset, class Index>
void count_edges(const gd::blocks_view<Offset, Index>& blocks, std::int64_t& edges)
{
  for (gd::block_view<Offset, Index> const& b : blocks.layers) { edges += b.num_edges(); }
}

void run(cudaStream_t stream, const gd::csr_view<std::int64_t, std::int32_t>& csr)
{
  gd::sample_blocks_buffers<std::int64_t, std::int32_t> out(bounds, fanouts, mr);
  gd::sample_blocks_async(stream, csr, seeds, n, fanouts, sampler, {}, out.view(), out.workspace());
  auto const& writers = out.view();
  gnndirect::sampled_blocks_view<std::int64_t, std::int32_t> copy = out.view();
  gd::sampled_slots_view<std::int64_t, std::int32_t> hop{neighbors, edge_ids, counts, offsets, n, n * 10};
  gd::array_view<const std::int32_t> ids{nodes, n};
  auto host = gd::host::sample_blocks_reference(graph, seeds, n, fanouts, sampler);
  std::int64_t edges = 0;
  count_edges(host.view(), edges);
  gd::edge_seeds_view<std::int32_t> seeds_out{nodes, count, local, nullptr};
  gd::typed_blocks_view<std::int64_t, std::int32_t> typed = typed_owner.view();
  flag.ref().reset_async(stream);  // an error_flag: keeps ref()
  my_block_ref_helper(blocks_reference, unrelated.ref());
}
