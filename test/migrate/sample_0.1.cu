// A 0.1-style user source (input of test_host_migrate: scripts/migrate-0.2 rewrites it to
// expected_0.2.cu). It is never compiled.
#include <gnndirect/core/sampled_refs.hpp>
#include <gnndirect/core/sampled_typed_refs.hpp>
#include <gnndirect/gnndirect.cuh>

namespace gd = gnndirect;

template <class Offset, class Index>
void count_edges(const gd::blocks_ref<Offset, Index>& blocks, std::int64_t& edges)
{
  for (gd::block_ref<Offset, Index> const& b : blocks.layers) { edges += b.num_edges(); }
}

void run(cudaStream_t stream, const gd::csr_view<std::int64_t, std::int32_t>& csr)
{
  gd::sample_blocks_buffers<std::int64_t, std::int32_t> out(bounds, fanouts, mr);
  gd::sample_blocks_async(stream, csr, seeds, n, fanouts, sampler, {}, out.ref(), out.workspace());
  auto const& writers = out.ref();
  gnndirect::sampled_blocks_ref<std::int64_t, std::int32_t> copy = out.ref();
  gd::sampled_slots_ref<std::int64_t, std::int32_t> hop{neighbors, edge_ids, counts, offsets, n, n * 10};
  gd::array_ref<const std::int32_t> ids{nodes, n};
  auto host = gd::host::sample_blocks_reference(graph, seeds, n, fanouts, sampler);
  std::int64_t edges = 0;
  count_edges(host.ref(), edges);
  gd::edge_seeds_ref<std::int32_t> seeds_out{nodes, count, local, nullptr};
  gd::typed_blocks_ref<std::int64_t, std::int32_t> typed = typed_owner.ref();
  flag.ref().reset_async(stream);  // an error_flag: keeps ref()
  my_block_ref_helper(blocks_reference, unrelated.ref());
}
