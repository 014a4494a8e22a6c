// Neighbour sampling benchmark: one layer (1M random seeds, fanout 15) and [15, 10, 5] blocks,
// for each placement of indptr/indices, against the fast CPU sampler (host::cpu_sampler) on all
// cores and the pinned H2D link peak, all measured in the same run. ratio_vs_host is always
// against cpu_fast (the CPU-centric baseline). Also measured:
// - cpu_fast/threads:1: the same sampler on one core (edges/s per core), the figure to set
//   against torch-sparse's neighbor_sample per worker process (bench/torch_sparse_sampler.py);
//   the layer variant "cpu_fast_relabel" relabels as neighbor_sample does;
// - host_reference_oracle: the bit-exact reference the GPU tests check against. It is built for
//   checking, not speed, and is never a baseline of any ratio;
// - sample_layer_weighted/*: the same layer with weighted_sampler (Efraimidis-Spirakis, one
//   float weight per edge, 1 in 16 zero) against cpu_fast's weighted draws on all cores; the
//   weights live where indices live (and add 4 bytes per edge read: the whole list is weighed).
//
// Graph: synthetic power-law-ish CSR generated on the host (Pareto(2) degrees scaled to the edge
// target, uniform random neighbours, parallel fill). Defaults are products-shaped (2.45M nodes,
// 61.9M edges); GNNDIRECT_BENCH_PAPERS=1 selects papers100M-shaped (111M nodes, 1.6B edges, about
// 13 GB of host RAM with int64 ids). GNNDIRECT_BENCH_NODES / _EDGES / _SEEDS override the sizes.
//
// Byte model (bytes_per_seed): what one seed must fetch from the graph arrays: its indptr pair
// (2 offsets) plus one 32-byte sector per sampled neighbour id (random positions within a list
// rarely share a sector). pct_link = bytes_per_seed * seeds/s against the link peak; meaningful
// for host-resident indices (for device placement it shows how far HBM lifts the ceiling).
#include "bench_common.cuh"
#include "sampling_setup.cuh"

#include <gnndirect/algorithms/sample_blocks.cuh>
#include <gnndirect/algorithms/sample_neighbors.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/host/cpu_sampler.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/reference/sample_reference.hpp>
#include <gnndirect/util/parallel.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using Offset = std::int64_t;
using Index = std::int64_t;
using gnndirect::buffer;
using gnndirect::memory_kind;
namespace bench = gnndirect::bench;

std::uint64_t mix64(std::uint64_t z)
{
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Host CSR arrays of the synthetic graph.
struct host_csr {
  std::vector<Offset> indptr;
  std::vector<Index> indices;
  std::vector<float> weights;  ///< empty until a weighted benchmark asks (ensure_weights)
  gnndirect::csr_view<Offset, Index> view() const
  {
    gnndirect::csr_view<Offset, Index> v;
    v.indptr = indptr.data();
    v.indices = indices.data();
    v.weights = weights.empty() ? nullptr : weights.data();
    v.num_nodes = static_cast<std::int64_t>(indptr.size()) - 1;
    v.num_edges = static_cast<std::int64_t>(indices.size());
    return v;
  }
};

/// Pareto(alpha = 2) degree weight of node v, capped so one hub stays below ~1% of the edges.
double degree_weight(std::int64_t v)
{
  double const u = (static_cast<double>(mix64(static_cast<std::uint64_t>(v)) >> 11) + 1.0) * 0x1.0p-53;
  return std::fmin(1.0 / std::sqrt(u), 1e4);
}

host_csr make_graph(std::int64_t nodes, std::int64_t target_edges)
{
  host_csr g;
  g.indptr.assign(static_cast<std::size_t>(nodes) + 1, 0);
  int const threads = gnndirect::host::default_thread_count();
  std::vector<double> partial(static_cast<std::size_t>(threads), 0.0);
  gnndirect::host::parallel_for_ranges(nodes, [&](std::int64_t b, std::int64_t e, int w) {
    for (std::int64_t v = b; v < e; ++v) { partial[static_cast<std::size_t>(w)] += degree_weight(v); }
  }, threads);
  double total = 0;
  for (double p : partial) { total += p; }
  double const scale = static_cast<double>(target_edges) / total;
  gnndirect::host::parallel_for_ranges(nodes, [&](std::int64_t b, std::int64_t e, int) {
    for (std::int64_t v = b; v < e; ++v) {
      g.indptr[static_cast<std::size_t>(v) + 1] = static_cast<Offset>(degree_weight(v) * scale);
    }
  }, threads);
  for (std::size_t v = 1; v < g.indptr.size(); ++v) { g.indptr[v] += g.indptr[v - 1]; }
  g.indices.resize(static_cast<std::size_t>(g.indptr.back()));
  gnndirect::host::parallel_for_ranges(static_cast<std::int64_t>(g.indices.size()),
                                       [&](std::int64_t b, std::int64_t e, int) {
    for (std::int64_t i = b; i < e; ++i) {
      g.indices[static_cast<std::size_t>(i)] = static_cast<Index>(
        gnndirect::uniform_below(mix64(static_cast<std::uint64_t>(i) ^ 0xABCDEFull),
                                 static_cast<std::uint64_t>(nodes)));
    }
  }, threads);
  return g;
}

using bench::env_int;
using bench::place;
using bench::placement;

const std::vector<placement> placements{{memory_kind::device, memory_kind::device},
                                        {memory_kind::device, memory_kind::managed_host},
                                        {memory_kind::device, memory_kind::pinned},
                                        {memory_kind::managed_host, memory_kind::managed_host},
                                        {memory_kind::pinned, memory_kind::pinned}};

/// The benchmark's shared state: graph, seeds, results for same-run ratios.
struct context {
  host_csr graph;
  std::int64_t num_seeds{0};
  double link_peak{0};
  std::map<std::string, double> edges_per_s;  ///< cpu_fast baselines by benchmark family
  std::map<int, std::unique_ptr<gnndirect::host::cpu_sampler>> samplers;  ///< by thread count
};
context& ctx()
{
  static context c;
  return c;
}

gnndirect::sampling_policy layer_policy()
{
  return gnndirect::select_sampling_policy(15, static_cast<double>(ctx().graph.indices.size()) /
                                                 static_cast<double>(ctx().graph.indptr.size() - 1));
}

/// The sampler of every benchmark (uniform without replacement, as DGL's and PyG's defaults).
gnndirect::uniform_sampler layer_sampler(std::uint64_t seed) { return gnndirect::uniform_sampler{seed}; }

/// The family name of a sampler's layer benchmarks (the key of its same-run baseline).
template <class Sampler>
std::string layer_family()
{
  return Sampler::needs_weights ? "layer_weighted" : "layer";
}

/// Creates the graph's edge weights on first use (all cores): uniform in (0, 1], 1 in 16 zero
/// (never drawn). Only the weighted benchmarks pay for them (6.5 GB at papers100M scale).
void ensure_weights()
{
  auto& g = ctx().graph;
  if (!g.weights.empty() || g.indices.empty()) { return; }
  g.weights.resize(g.indices.size());
  gnndirect::host::parallel_for_ranges(static_cast<std::int64_t>(g.weights.size()),
                                       [&](std::int64_t b, std::int64_t e, int) {
    for (std::int64_t i = b; i < e; ++i) {
      std::uint64_t const bits = mix64(static_cast<std::uint64_t>(i) ^ 0x5EED5ull);
      g.weights[static_cast<std::size_t>(i)] =
        (bits & 15) == 0 ? 0.0f : static_cast<float>((bits >> 40) + 1) * 0x1.0p-24f;
    }
  }, gnndirect::host::default_thread_count());
}

std::vector<Index> host_seeds(std::int64_t count, std::uint64_t seed)
{
  std::vector<Index> seeds(static_cast<std::size_t>(count));
  auto const nodes = static_cast<std::uint64_t>(ctx().graph.indptr.size() - 1);
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    seeds[i] = static_cast<Index>(gnndirect::uniform_below(mix64(seed * 1000003 + i), nodes));
  }
  return seeds;
}

/// The fast CPU sampler with `threads` workers (0: all cores), kept across benchmarks so that
/// its threads and marker are set up once, as in a loader.
gnndirect::host::cpu_sampler& cpu_fast(int threads)
{
  auto& slot = ctx().samplers[threads];
  if (!slot) { slot = std::make_unique<gnndirect::host::cpu_sampler>(threads); }
  return *slot;
}

enum class role { baseline, gpu, other };

void report(benchmark::State& state, const std::string& family, double edges, double seconds,
            double seeds, role kind)
{
  double const rate = edges / seconds;
  state.counters["edges_per_s"] = rate;
  double const bytes_per_seed = 2.0 * sizeof(Offset) + 32.0 * edges / seeds;
  state.counters["bytes_per_seed"] = bytes_per_seed;
  if (ctx().link_peak > 0) {
    state.counters["pct_link"] = 100.0 * bytes_per_seed * seeds / seconds * 1e-9 / ctx().link_peak;
  }
  if (kind == role::baseline) {
    ctx().edges_per_s[family] = rate;
  } else if (kind == role::gpu && ctx().edges_per_s.count(family) != 0) {
    state.counters["ratio_vs_host"] = rate / ctx().edges_per_s[family];
  }
}

void bm_link_peak(benchmark::State& state)
{
  for (auto _ : state) {
    ctx().link_peak = bench::measure_link_peak();
    state.SetIterationTime(1.0);
  }
  state.counters["GBps"] = ctx().link_peak;
}

/// The bit-exact host reference (the GPU's oracle), timed for the record only.
void bm_layer_oracle(benchmark::State& state)
{
  auto const view = ctx().graph.view();
  std::vector<double> times;
  double edges = 0;
  std::uint64_t round = 0;
  for (auto _ : state) {
    auto const seeds = host_seeds(ctx().num_seeds, ++round);
    auto const t0 = std::chrono::steady_clock::now();
    auto const out = gnndirect::host::sample_neighbors_reference(view, seeds.data(), ctx().num_seeds,
                                                                 15, 0, layer_sampler(round));
    double const t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(t);
    times.push_back(t);
    edges = static_cast<double>(out.num_edges());
  }
  report(state, "layer", edges, bench::median(times), static_cast<double>(ctx().num_seeds), role::other);
}

/// The fast CPU sampler on one layer: state.range(0) threads (0: all cores), state.range(1) = 1
/// relabels too (sample_blocks with one fanout, as torch-sparse's neighbor_sample does). The
/// all-core run without relabelling is the baseline of the GPU layer ratios of its family.
/// @tparam Sampler uniform_sampler or weighted_sampler
template <class Sampler>
void bm_layer_cpu_fast(benchmark::State& state)
{
  auto const threads = static_cast<int>(state.range(0));
  bool const relabel = state.range(1) != 0;
  if (Sampler::needs_weights) { ensure_weights(); }
  auto& sampler = cpu_fast(threads);
  auto const view = ctx().graph.view();
  gnndirect::host::cpu_neighbors<Offset, Index> out;
  gnndirect::host::cpu_blocks<Offset, Index> blocks;
  std::vector<double> times;
  double edges = 0;
  std::uint64_t round = 0;
  for (auto _ : state) {
    auto const seeds = host_seeds(ctx().num_seeds, ++round);
    auto const t0 = std::chrono::steady_clock::now();
    if (relabel) {
      sampler.sample_blocks(view, seeds.data(), ctx().num_seeds, {15}, Sampler{round}, blocks);
    } else {
      sampler.sample_neighbors(view, seeds.data(), ctx().num_seeds, 15, 0, Sampler{round}, out);
    }
    double const t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(t);
    times.push_back(t);
    edges = static_cast<double>(relabel ? blocks.num_edges() : out.num_edges());
  }
  bool const baseline = threads == 0 && !relabel;
  report(state, layer_family<Sampler>(), edges, bench::median(times), static_cast<double>(ctx().num_seeds),
         baseline ? role::baseline : role::other);
  state.counters["threads"] = sampler.threads();
  state.counters["edges_per_s_per_core"] = edges / bench::median(times) / sampler.threads();
}

/// One GPU layer (1M seeds, fanout 15) with `Sampler`, graph arrays placed as `where` says (the
/// weights, when the sampler reads them, beside indices).
/// @tparam Sampler uniform_sampler or weighted_sampler
template <class Sampler>
void bm_layer_gpu(benchmark::State& state, placement where)
{
  if (Sampler::needs_weights) { ensure_weights(); }
  auto const& g = ctx().graph;
  buffer<Offset> const indptr = place(g.indptr, where.indptr);
  buffer<Index> const indices = place(g.indices, where.indices);
  static std::vector<float> const no_weights;  // a uniform layer places none (both branches lvalues: no copy)
  buffer<float> const weights = place(Sampler::needs_weights ? g.weights : no_weights, where.indices);
  auto view = bench::placed_view(g.view(), indptr.data(), indices.data(), where);
  view.weights = Sampler::needs_weights ? weights.data() : nullptr;
  std::int64_t const n = ctx().num_seeds;
  auto const slots = static_cast<std::size_t>(n * 15);
  buffer<Index> seeds(static_cast<std::size_t>(n), memory_kind::device);
  buffer<Index> ids(slots, memory_kind::device);
  buffer<Offset> eids(slots, memory_kind::device);
  buffer<std::int64_t> counts(static_cast<std::size_t>(n), memory_kind::device);
  buffer<std::int64_t> offsets(static_cast<std::size_t>(n) + 1, memory_kind::device);
  buffer<unsigned char> ws(gnndirect::sample_neighbors_workspace_bytes(n), memory_kind::device);
  gnndirect::sampled_slots_view<Offset, Index> const out{ids.data(), eids.data(), counts.data(), offsets.data(),
                                                        n, n * 15};
  cudaStream_t stream{};
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  bench::event_timer timer;
  std::vector<double> times;
  std::int64_t edges = 0;
  std::uint64_t round = 0;
  for (auto _ : state) {
    ++round;
    bench::fill_random_indices(stream, seeds.data(), n, view.num_nodes, round);  // fresh seeds
    timer.start(stream);
    gnndirect::sample_neighbors_async(stream, view, static_cast<const Index*>(seeds.data()), n, 15, 0,
                                      Sampler{round}, layer_policy(), out, {ws.data(), ws.bytes()});
    timer.stop(stream);
    double const t = timer.seconds();
    state.SetIterationTime(t);
    times.push_back(t);
    GNNDIRECT_CUDA_TRY(cudaMemcpy(&edges, offsets.data() + n, sizeof(edges), cudaMemcpyDefault));
  }
  gnndirect::sample_neighbors_check(stream, {ws.data(), ws.bytes()}, view.num_nodes);
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
  report(state, layer_family<Sampler>(), static_cast<double>(edges), bench::median(times), static_cast<double>(n),
         role::gpu);
}

std::int64_t total_edges(const gnndirect::host::reference_blocks<Offset, Index>& b)
{
  std::int64_t e = 0;
  for (auto const& layer : b.layers) { e += static_cast<std::int64_t>(layer.indices.size()); }
  return e;
}

/// The bit-exact host reference on [15, 10, 5] blocks, timed for the record only.
void bm_blocks_oracle(benchmark::State& state)
{
  std::int64_t const n = state.range(0);
  std::vector<double> times;
  double edges = 0;
  std::uint64_t round = 0;
  for (auto _ : state) {
    auto const seeds = host_seeds(n, ++round + 77);
    auto const t0 = std::chrono::steady_clock::now();
    auto const b = gnndirect::host::sample_blocks_reference(ctx().graph.view(), seeds.data(), n,
                                                            {15, 10, 5}, layer_sampler(round));
    double const t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(t);
    times.push_back(t);
    edges = static_cast<double>(total_edges(b));
  }
  report(state, "blocks" + std::to_string(n), edges, bench::median(times), static_cast<double>(n), role::other);
}

/// The fast CPU sampler on [15, 10, 5] blocks of state.range(0) seeds with state.range(1)
/// threads (0: all cores; that run is the baseline of the GPU block ratios).
void bm_blocks_cpu_fast(benchmark::State& state)
{
  std::int64_t const n = state.range(0);
  auto const threads = static_cast<int>(state.range(1));
  auto& sampler = cpu_fast(threads);
  gnndirect::host::cpu_blocks<Offset, Index> blocks;
  std::vector<double> times;
  double edges = 0;
  std::uint64_t round = 0;
  for (auto _ : state) {
    auto const seeds = host_seeds(n, ++round + 77);
    auto const t0 = std::chrono::steady_clock::now();
    sampler.sample_blocks(ctx().graph.view(), seeds.data(), n, {15, 10, 5}, layer_sampler(round), blocks);
    double const t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(t);
    times.push_back(t);
    edges = static_cast<double>(blocks.num_edges());
  }
  report(state, "blocks" + std::to_string(n), edges, bench::median(times), static_cast<double>(n),
         threads == 0 ? role::baseline : role::other);
  state.counters["threads"] = sampler.threads();
  state.counters["edges_per_s_per_core"] = edges / bench::median(times) / sampler.threads();
}

void bm_blocks_gpu(benchmark::State& state, placement where)
{
  std::int64_t const n = state.range(0);
  auto const& g = ctx().graph;
  buffer<Offset> const indptr = place(g.indptr, where.indptr);
  buffer<Index> const indices = place(g.indices, where.indices);
  auto const view = bench::placed_view(g.view(), indptr.data(), indices.data(), where);
  buffer<Index> seeds(static_cast<std::size_t>(n), memory_kind::device);
  std::vector<double> times;
  double edges = 0;
  std::uint64_t round = 0;
  for (auto _ : state) {
    ++round;
    bench::fill_random_indices(nullptr, seeds.data(), n, view.num_nodes, round + 77);
    GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
    auto const t0 = std::chrono::steady_clock::now();  // synchronous API: host wall time
    auto const b = gnndirect::sample_blocks(nullptr, view, static_cast<const Index*>(seeds.data()), n,
                                            {15, 10, 5}, layer_sampler(round), layer_policy());
    double const t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(t);
    times.push_back(t);
    edges = 0;
    for (auto const& layer : b.layers) { edges += static_cast<double>(layer.num_edges()); }
  }
  report(state, "blocks" + std::to_string(n), edges, bench::median(times), static_cast<double>(n), role::gpu);
}

}  // namespace

int main(int argc, char** argv)
{
  benchmark::Initialize(&argc, argv);
  if (!bench::has_device("bench_sample")) { return 0; }
  bool const papers = env_int("GNNDIRECT_BENCH_PAPERS", 0) != 0;
  std::int64_t const nodes = env_int("GNNDIRECT_BENCH_NODES", papers ? 111059956 : 2449029);
  std::int64_t const edges = env_int("GNNDIRECT_BENCH_EDGES", papers ? 1615685872 : 61859140);
  ctx().num_seeds = env_int("GNNDIRECT_BENCH_SEEDS", 1000000);
  auto const t0 = std::chrono::steady_clock::now();
  ctx().graph = make_graph(nodes, edges);
  std::printf("graph: %lld nodes, %zu edges, generated in %.1f s\n", static_cast<long long>(nodes),
              ctx().graph.indices.size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

  benchmark::RegisterBenchmark("link_peak/pinned_h2d", bm_link_peak)->UseManualTime()->Iterations(1);
  // Baselines first: a GPU benchmark's ratio_vs_host needs its family's cpu_fast run before it.
  using gnndirect::uniform_sampler;
  using gnndirect::weighted_sampler;
  benchmark::RegisterBenchmark("sample_layer/cpu_fast", bm_layer_cpu_fast<uniform_sampler>)
    ->Args({0, 0})->ArgNames({"threads", "relabel"})->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("sample_layer/cpu_fast", bm_layer_cpu_fast<uniform_sampler>)
    ->Args({0, 1})->Args({1, 0})->Args({1, 1})->ArgNames({"threads", "relabel"})
    ->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("sample_layer/host_reference_oracle", bm_layer_oracle)
    ->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
  for (auto const& where : placements) {
    benchmark::RegisterBenchmark(("sample_layer/" + where.name()).c_str(), bm_layer_gpu<uniform_sampler>, where)
      ->UseManualTime()->Iterations(20)->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("sample_layer_weighted/cpu_fast", bm_layer_cpu_fast<weighted_sampler>)
    ->Args({0, 0})->ArgNames({"threads", "relabel"})->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);
  for (auto const& where : placements) {
    benchmark::RegisterBenchmark(("sample_layer_weighted/" + where.name()).c_str(), bm_layer_gpu<weighted_sampler>,
                                 where)
      ->UseManualTime()->Iterations(20)->Unit(benchmark::kMillisecond);
  }
  for (std::int64_t n : {1024, 8192}) {
    benchmark::RegisterBenchmark("sample_blocks_15_10_5/cpu_fast", bm_blocks_cpu_fast)
      ->Args({n, 0})->Args({n, 1})->ArgNames({"seeds", "threads"})
      ->UseManualTime()->Iterations(20)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("sample_blocks_15_10_5/host_reference_oracle", bm_blocks_oracle)
      ->Arg(n)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);
    for (auto const& where : placements) {
      benchmark::RegisterBenchmark(("sample_blocks_15_10_5/" + where.name()).c_str(), bm_blocks_gpu, where)
        ->Arg(n)->UseManualTime()->Iterations(20)->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
