// Temporal neighbour sampling benchmark: the library's temporal_sampler (device/temporal_samplers.hpp),
// 'uniform' and 'last', on an R-MAT graph (graph/generate.hpp, Graph500 parameters) whose edge
// times increase along every neighbour list (time = CSR position, so every list is time-sorted, as
// PyG sorts them), graph arrays in HBM or in host memory (managed_host), reporting sampled edges/s:
// - temporal_layer/<strategy>/<indptr>/<indices>: one hop, GNNDIRECT_BENCH_SEEDS (1M) random seeds,
//   fanout 15, seed times uniform in [0, num_edges) (about half of each list eligible);
// - temporal_blocks_15_10_5/<strategy>/<placement>/seeds: three layers with inherited times.
// With GNNDIRECT_BENCH_TEMPORAL_NPY=DIR the graph and the one-hop seeds are written as .npy
// (indptr, indices, edge_time int64; seeds, seed_time int64) for bench/temporal_pyglib.py, which
// times pyg-lib's temporal neighbor_sample on the same graph and seeds on all cores.
// Sizes: GNNDIRECT_BENCH_SCALE (log2 nodes, 21) and GNNDIRECT_BENCH_EDGE_FACTOR (16).
#include "bench_common.cuh"
#include "sampling_setup.cuh"

#include <gnndirect/algorithms/sample_blocks_buffers.cuh>
#include <gnndirect/algorithms/sample_neighbors_async.cuh>
#include <gnndirect/algorithms/sample_temporal_blocks_async.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/device/temporal_samplers.hpp>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using Offset = std::int64_t;
using Index = std::int64_t;
using gnndirect::buffer;
using gnndirect::memory_kind;
namespace bench = gnndirect::bench;

using bench::env_int;
using bench::place;
using bench::placement;
using bench::write_npy;

struct context {
  gnndirect::host_csr<Offset, Index> graph;
  std::vector<std::int64_t> edge_time;
  std::int64_t num_seeds{0};
};

context& ctx()
{
  static context c;
  return c;
}

/// Seeds and seed times of round `round` (host; the same formula the .npy dump uses for round 0).
void make_seeds(std::uint64_t round, std::int64_t count, std::vector<Index>& seeds, std::vector<std::int64_t>& times)
{
  auto const nodes = static_cast<std::uint64_t>(ctx().graph.num_nodes);
  auto const edges = static_cast<std::uint64_t>(ctx().graph.num_edges());
  seeds.resize(static_cast<std::size_t>(count));
  times.resize(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    auto const block = gnndirect::sampling_random(round, 0, i, 7);
    seeds[i] = static_cast<Index>(gnndirect::uniform_below(gnndirect::random_bits64(block), nodes));
    times[i] = static_cast<std::int64_t>(
      gnndirect::uniform_below((std::uint64_t{block.v[3]} << 32) | block.v[2], edges));
  }
}

/// The graph placed as `where` says: indptr, then indices with the edge times beside them.
struct placed_graph {
  buffer<Offset> indptr;
  buffer<Index> indices;
  buffer<std::int64_t> times;
  gnndirect::csr_view<Offset, Index> csr;
  explicit placed_graph(placement where)
    : indptr(place(ctx().graph.indptr, where.indptr)), indices(place(ctx().graph.indices, where.indices)),
      times(place(ctx().edge_time, where.indices)),
      csr(bench::placed_view(ctx().graph.view(), indptr.data(), indices.data(), where))
  {
  }
};

template <class Strategy>
void bm_temporal_layer(benchmark::State& state, placement where)
{
  placed_graph const g(where);
  std::int64_t const n = ctx().num_seeds;
  int const fanout = 15;
  auto const slots = static_cast<std::size_t>(n * fanout);
  buffer<Index> ids(slots, memory_kind::device);
  buffer<Offset> eids(slots, memory_kind::device);
  buffer<std::int64_t> counts(static_cast<std::size_t>(n), memory_kind::device);
  buffer<std::int64_t> offsets(static_cast<std::size_t>(n) + 1, memory_kind::device);
  buffer<unsigned char> ws(gnndirect::sample_neighbors_workspace_bytes(n), memory_kind::device);
  gnndirect::sampled_slots_view<Offset, Index> const out{ids.data(), eids.data(), counts.data(), offsets.data(), n,
                                                        n * fanout};
  cudaStream_t stream{};
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  bench::event_timer timer;
  std::vector<double> times;
  std::int64_t edges = 0;
  std::uint64_t round = 0;
  std::vector<Index> seeds;
  std::vector<std::int64_t> seed_times;
  for (auto _ : state) {
    make_seeds(round++, n, seeds, seed_times);  // fresh seeds and times every iteration
    buffer<Index> const d_seeds = place(seeds, memory_kind::device);
    buffer<std::int64_t> const d_times = place(seed_times, memory_kind::device);
    gnndirect::temporal_sampler<Strategy> const sampler{round, g.times.data(), g.csr.num_edges, d_times.data(), n};
    timer.start(stream);
    gnndirect::sample_neighbors_async(stream, g.csr, static_cast<const Index*>(d_seeds.data()), n, fanout, 0, sampler,
                                      gnndirect::sampling_policy{}, out, {ws.data(), ws.bytes()});
    timer.stop(stream);
    double const t = timer.seconds();
    state.SetIterationTime(t);
    times.push_back(t);
    GNNDIRECT_CUDA_TRY(cudaMemcpy(&edges, offsets.data() + n, sizeof(edges), cudaMemcpyDefault));
  }
  gnndirect::sample_neighbors_check(stream, {ws.data(), ws.bytes()}, g.csr.num_nodes);
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
  state.counters["edges_per_s"] = static_cast<double>(edges) / bench::median(times);
  state.counters["edges"] = static_cast<double>(edges);
}

template <class Strategy>
void bm_temporal_blocks(benchmark::State& state, placement where)
{
  placed_graph const g(where);
  std::int64_t const n = state.range(0);
  std::vector<int> const fanouts{15, 10, 5};
  cudaStream_t stream{};
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  gnndirect::sample_blocks_buffers<Offset, Index> out(n, fanouts, g.csr.num_nodes, stream);
  buffer<unsigned char> ws(gnndirect::sample_temporal_blocks_workspace_bytes<Offset, Index>(n, fanouts, g.csr.num_nodes),
                           memory_kind::device);
  bench::event_timer timer;
  std::vector<double> times;
  double edges = 0;
  std::uint64_t round = 0;
  std::vector<Index> seeds;
  std::vector<std::int64_t> seed_times;
  for (auto _ : state) {
    make_seeds(1000 + round++, n, seeds, seed_times);
    buffer<Index> const d_seeds = place(seeds, memory_kind::device);
    buffer<std::int64_t> const d_times = place(seed_times, memory_kind::device);
    gnndirect::temporal_sampler<Strategy> const sampler{round, g.times.data(), g.csr.num_edges};
    timer.start(stream);
    gnndirect::sample_temporal_blocks_async(stream, g.csr, static_cast<const Index*>(d_seeds.data()), d_times.data(), n,
                                            fanouts, sampler, gnndirect::sampling_policy{}, out.view(),
                                            {ws.data(), ws.bytes()});
    timer.stop(stream);
    double const t = timer.seconds();
    state.SetIterationTime(t);
    times.push_back(t);
    std::vector<std::int64_t> counts(2 * fanouts.size());
    GNNDIRECT_CUDA_TRY(cudaMemcpy(counts.data(), out.counts(), counts.size() * 8, cudaMemcpyDefault));
    edges = 0;
    for (std::size_t l = 0; l < fanouts.size(); ++l) { edges += static_cast<double>(counts[2 * l + 1]); }
  }
  gnndirect::sample_blocks_check(stream, {ws.data(), ws.bytes()}, fanouts.size(), g.csr.num_nodes);
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
  state.counters["edges_per_s"] = edges / bench::median(times);
}

}  // namespace

int main(int argc, char** argv)
{
  benchmark::Initialize(&argc, argv);
  if (!bench::has_device("bench_temporal")) { return 0; }
  std::int64_t const scale = env_int("GNNDIRECT_BENCH_SCALE", 21);
  std::int64_t const factor = env_int("GNNDIRECT_BENCH_EDGE_FACTOR", 16);
  ctx().num_seeds = env_int("GNNDIRECT_BENCH_SEEDS", 1000000);
  gnndirect::generator_options options;
  options.model = gnndirect::graph_model::rmat;
  options.num_nodes = std::int64_t{1} << scale;
  options.num_edges = options.num_nodes * factor;
  options.seed = 41;
  ctx().graph = gnndirect::host::generate_csr<Offset, Index>(options);
  ctx().edge_time.resize(static_cast<std::size_t>(ctx().graph.num_edges()));
  for (std::size_t e = 0; e < ctx().edge_time.size(); ++e) { ctx().edge_time[e] = static_cast<std::int64_t>(e); }
  std::printf("graph: R-MAT scale %lld, %lld nodes, %lld edges; edge time = CSR position\n",
              static_cast<long long>(scale), static_cast<long long>(ctx().graph.num_nodes),
              static_cast<long long>(ctx().graph.num_edges()));
  if (const char* dir = std::getenv("GNNDIRECT_BENCH_TEMPORAL_NPY"); dir != nullptr && *dir != '\0') {
    std::string const d(dir);
    write_npy(d + "/indptr.npy", ctx().graph.indptr);
    write_npy(d + "/indices.npy", ctx().graph.indices);
    write_npy(d + "/edge_time.npy", ctx().edge_time);
    std::vector<Index> seeds;
    std::vector<std::int64_t> times;
    make_seeds(0, ctx().num_seeds, seeds, times);
    write_npy(d + "/seeds.npy", seeds);
    write_npy(d + "/seed_time.npy", times);
    std::printf("wrote %s/{indptr,indices,edge_time,seeds,seed_time}.npy\n", dir);
  }
  using gnndirect::temporal_last;
  using gnndirect::temporal_uniform;
  for (placement w : {placement{memory_kind::device, memory_kind::device},
                      placement{memory_kind::device, memory_kind::managed_host},
                      placement{memory_kind::managed_host, memory_kind::managed_host}}) {
    std::string const p = w.name();
    benchmark::RegisterBenchmark(("temporal_layer/uniform/" + p).c_str(), bm_temporal_layer<temporal_uniform>, w)
      ->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("temporal_layer/last/" + p).c_str(), bm_temporal_layer<temporal_last>, w)
      ->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("temporal_blocks_15_10_5/uniform/" + p).c_str(), bm_temporal_blocks<temporal_uniform>, w)
      ->Arg(1024)->Arg(8192)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("temporal_blocks_15_10_5/last/" + p).c_str(), bm_temporal_blocks<temporal_last>, w)
      ->Arg(1024)->Arg(8192)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
