// bench_cache: the device-memory cache tier on a sampled [15,10,5] workload.
//
// Graph: R-MAT shaped like ogbn-products (default) or ogbn-papers100M (GNNDIRECT_BENCH_PAPERS=1),
// generated on the GPU; indptr in device memory, indices and features in managed_host memory
// (features: products 100 fp32, papers 128 fp32). Workload: the input nodes of 24 batches of 1024
// random training seeds sampled with fanouts [15,10,5]; pre-sampling counts the input nodes of 24
// other batches. For budgets 0/5/10/20/50% of the table and each hot-set choice (degree;
// presample: counts, ties by id; presample+degree: counts, ties by degree), one iteration
// gathers one batch's input features through the tier (CUDA events, median). Counters: GBps
// (gathered bytes / median time), hit_rate (share of gathered rows served from the cache),
// vs_uncached (budget 0, same run), vs_device (all rows in HBM, same run), vs_cpu_centric (the
// CPU-centric feature path, same run: rows gathered on all cores into two pinned staging
// buffers, each copied to the GPU while the other fills; host::staged_gather).
#include "bench_common.cuh"

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/cache/hot_set.cuh>
#include <gnndirect/algorithms/sample_blocks.cuh>
#include <gnndirect/cache/tiered_table.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/graph/generate.cuh>
#include <gnndirect/host/cpu_gather.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/util/parallel.hpp>
#include <gnndirect/util/worker_pool.hpp>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace gb = gnndirect::bench;
using gnndirect::memory_kind;
using offset_t = std::int64_t;
using index_t = std::int32_t;

namespace {

constexpr int batches = 24;

struct workload {
  gnndirect::csr_graph<offset_t, index_t> graph;
  gnndirect::table<float> features;          // managed_host
  gnndirect::table<float> device_features;   // all-in-GPU baseline
  std::vector<gnndirect::buffer<index_t>> inputs;   // input nodes per measured batch
  std::vector<std::vector<index_t>> host_inputs;    // the same, for hit rates
  gnndirect::buffer<std::uint32_t> counts;          // pre-sampling access counts
};

std::unique_ptr<workload>& state_ptr()
{
  static std::unique_ptr<workload> w;
  return w;
}
workload& work() { return *state_ptr(); }

gnndirect::buffer<index_t> sample_inputs(const gnndirect::csr_graph<offset_t, index_t>& graph, std::mt19937_64& rng,
                                         std::uint64_t seed)
{
  std::vector<index_t> seeds(1024);
  for (auto& s : seeds) { s = static_cast<index_t>(rng() % static_cast<std::uint64_t>(graph.num_nodes())); }
  gnndirect::buffer<index_t> device_seeds(seeds.size(), memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemcpy(device_seeds.data(), seeds.data(), device_seeds.bytes(), cudaMemcpyHostToDevice));
  auto blocks = gnndirect::sample_blocks(cudaStream_t{}, graph.view(), device_seeds.data(), 1024, {15, 10, 5},
                                         gnndirect::uniform_sampler{seed});
  auto& input = blocks.layers.back().src_nodes;
  gnndirect::buffer<index_t> copy(input.size(), memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemcpy(copy.data(), input.data(), input.bytes(), cudaMemcpyDeviceToDevice));
  return copy;
}

void build_workload(bool papers)
{
  auto w = std::make_unique<workload>();
  auto options = gnndirect::preset_options(papers ? gnndirect::graph_preset::papers100m : gnndirect::graph_preset::products,
                                           1.0, 7);
  std::int64_t const dim = papers ? 128 : 100;
  w->graph = gnndirect::generate_csr<offset_t, index_t>(cudaStream_t{}, options,
                                                         gnndirect::csr_placement{memory_kind::device, memory_kind::managed_host});
  std::int64_t const nodes = w->graph.num_nodes();
  w->features = gnndirect::table<float>(nodes, dim, memory_kind::managed_host);
  float* host = w->features.host_view().data;
  gnndirect::host::parallel_for_ranges(nodes * dim, [host](std::int64_t b, std::int64_t e, int) {
    for (std::int64_t i = b; i < e; ++i) { host[i] = static_cast<float>(i % 9973) * 1e-3f; }
  });
  w->device_features = gnndirect::table<float>::adopt_by_copy(host, nodes, dim, memory_kind::device);
  std::mt19937_64 rng(11);
  w->counts = gnndirect::buffer<std::uint32_t>(static_cast<std::size_t>(nodes), memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemset(w->counts.data(), 0, w->counts.bytes()));
  for (int b = 0; b < batches; ++b) {  // pre-sampling: other seeds and another sampling seed
    auto ids = sample_inputs(w->graph, rng, 1000 + b);
    gnndirect::count_accesses_async(cudaStream_t{}, ids.data(), static_cast<std::int64_t>(ids.size()), nodes, w->counts.data());
  }
  for (int b = 0; b < batches; ++b) {
    w->inputs.push_back(sample_inputs(w->graph, rng, 2000 + b));
    std::vector<index_t> host_ids(w->inputs.back().size());
    GNNDIRECT_CUDA_TRY(cudaMemcpy(host_ids.data(), w->inputs.back().data(), w->inputs.back().bytes(), cudaMemcpyDeviceToHost));
    w->host_inputs.push_back(std::move(host_ids));
  }
  std::printf("graph: %lld nodes, %lld edges; features %lld x %lld fp32; mean input nodes per batch %.0f\n",
              static_cast<long long>(nodes), static_cast<long long>(w->graph.num_edges()), static_cast<long long>(nodes),
              static_cast<long long>(dim), static_cast<double>(w->host_inputs[0].size()));
  state_ptr() = std::move(w);
}

/// Share of the workload's rows that a hot set covers.
double hit_rate(const gnndirect::buffer<std::int64_t>& hot, std::int64_t cached)
{
  std::vector<std::int64_t> ids(static_cast<std::size_t>(cached));
  if (cached > 0) { GNNDIRECT_CUDA_TRY(cudaMemcpy(ids.data(), hot.data(), ids.size() * 8, cudaMemcpyDeviceToHost)); }
  std::vector<bool> is_hot(static_cast<std::size_t>(work().graph.num_nodes()), false);
  for (auto id : ids) { is_hot[static_cast<std::size_t>(id)] = true; }
  std::int64_t hits = 0, total = 0;
  for (const auto& batch : work().host_inputs) {
    for (auto id : batch) { hits += is_hot[static_cast<std::size_t>(id)]; }
    total += static_cast<std::int64_t>(batch.size());
  }
  return total > 0 ? static_cast<double>(hits) / static_cast<double>(total) : 0.0;
}

/// Median gather time over the workload batches of `gather_one(batch)`.
template <class GatherOne>
double run_batches(benchmark::State& state, GatherOne gather_one, double* bytes_per_batch)
{
  gb::event_timer timer;
  std::vector<double> times;
  double bytes = 0;
  std::size_t b = 0;
  for (auto _ : state) {
    const auto& ids = work().inputs[b % work().inputs.size()];
    timer.start(nullptr);
    gather_one(ids);
    timer.stop(nullptr);
    times.push_back(timer.seconds());
    state.SetIterationTime(times.back());
    bytes += static_cast<double>(ids.size()) * work().features.cols() * sizeof(float);
    ++b;
  }
  *bytes_per_batch = bytes / static_cast<double>(b);
  return gb::median(times);
}

struct gather_target {
  gnndirect::buffer<float> out;
  gnndirect::buffer<std::byte> ws;
  gather_target()
  {
    std::size_t max_rows = 0;
    for (const auto& ids : work().inputs) { max_rows = std::max(max_rows, ids.size()); }
    out = gnndirect::buffer<float>(max_rows * work().features.cols(), memory_kind::device);
    ws = gnndirect::buffer<std::byte>(gnndirect::gather_workspace_bytes<index_t>(
                                        static_cast<std::int64_t>(max_rows), work().features.rows(), memory_kind::managed_host,
                                        work().features.cols() * sizeof(float)),
                                      memory_kind::device);
  }
  gnndirect::table_view<float> dst(std::int64_t rows) const
  {
    return {out.data(), rows, work().features.cols(), work().features.cols(), memory_kind::device};
  }
};

/// The CPU-centric feature path: all-core gather of the batch's rows into pinned staging, double
/// buffered with the H2D copies (4 MiB pieces), timed by CUDA events around the CPU work and
/// the copies (the GPU is idle, so the start event fires when the CPU work begins).
void bm_cpu_centric(benchmark::State& state)
{
  static gnndirect::host::worker_pool pool;  // persistent threads, as in a loader
  gnndirect::host::staged_gather<float> staged(std::size_t{4} << 20);
  gather_target t;
  auto const features = work().features.host_view();
  gb::event_timer timer;
  std::vector<double> times;
  double bytes = 0;
  std::size_t b = 0;
  for (auto _ : state) {
    const auto& ids = work().host_inputs[b % work().host_inputs.size()];
    auto const n = static_cast<std::int64_t>(ids.size());
    timer.start(nullptr);
    staged.gather(pool, gnndirect::table_view<const float>(features), ids.data(), n, t.out.data(), nullptr);
    timer.stop(nullptr);
    times.push_back(timer.seconds());
    state.SetIterationTime(times.back());
    bytes += static_cast<double>(n) * static_cast<double>(features.row_bytes());
    ++b;
  }
  gb::record_rate(state, "cpu_centric", bytes / static_cast<double>(b) / gb::median(times) * 1e-9);
  state.counters["threads"] = pool.size();
}

void bm_device(benchmark::State& state)
{
  gather_target t;
  double bytes = 0;
  double const seconds = run_batches(state, [&](const gnndirect::buffer<index_t>& ids) {
    auto const n = static_cast<std::int64_t>(ids.size());
    gnndirect::gather_async(cudaStream_t{}, work().device_features.view(), ids.data(), n, t.dst(n), {t.ws.data(), t.ws.bytes()});
  }, &bytes);
  gb::record_rate(state, "device", bytes / seconds * 1e-9, {"cpu_centric"});
}

/// The `k` rows to cache by `choice`: "degree", "presample" (access counts, ties by id) or
/// "presample+degree" (access counts, ties by degree).
gnndirect::buffer<std::int64_t> choose_hot_rows(const std::string& choice, std::int64_t k)
{
  if (choice == "degree") { return gnndirect::hot_rows_by_degree(cudaStream_t{}, work().graph.view(), k); }
  if (choice == "presample") {
    return gnndirect::hot_rows_by_count(cudaStream_t{}, work().counts.data(), work().features.rows(), k);
  }
  return gnndirect::hot_rows_by_count(cudaStream_t{}, work().counts.data(), work().graph.view(), k);
}

void bm_tiered(benchmark::State& state, const std::string& choice, double fraction)
{
  std::int64_t const rows = work().features.rows();
  std::size_t const budget = static_cast<std::size_t>(fraction * static_cast<double>(rows)) * work().features.cols() * sizeof(float);
  gnndirect::tiered_table<float> tier(work().features.view(), budget);
  gnndirect::buffer<std::int64_t> const hot = choose_hot_rows(choice, tier.capacity());
  tier.rebuild(cudaStream_t{}, hot.data(), tier.capacity());
  gather_target t;
  auto const view = tier.view();
  double bytes = 0;
  double const seconds = run_batches(state, [&](const gnndirect::buffer<index_t>& ids) {
    auto const n = static_cast<std::int64_t>(ids.size());
    gnndirect::gather_async(cudaStream_t{}, view, ids.data(), n, t.dst(n), {t.ws.data(), t.ws.bytes()});
  }, &bytes);
  gnndirect::gather_check(nullptr, {t.ws.data(), t.ws.bytes()}, rows);
  std::string const key = choice + "/" + std::to_string(static_cast<int>(fraction * 100));
  gb::record_rate(state, key, bytes / seconds * 1e-9, {"degree/0", "device", "cpu_centric"});
  if (state.counters.count("vs_degree/0")) {
    state.counters["vs_uncached"] = state.counters["vs_degree/0"];
    state.counters.erase("vs_degree/0");
  }
  state.counters["hit_rate"] = hit_rate(hot, tier.cached_rows());
  state.counters["cache_GB"] = static_cast<double>(tier.device_bytes()) * 1e-9;
}

}  // namespace

int main(int argc, char** argv)
{
  if (gnndirect::device_count() == 0) {
    std::fprintf(stderr, "bench_cache: no CUDA device; benchmarks need an NVIDIA GPU\n");
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  char const* papers = std::getenv("GNNDIRECT_BENCH_PAPERS");
  build_workload(papers != nullptr && std::string(papers) == "1");
  benchmark::RegisterBenchmark("cache/link_peak", [](benchmark::State& s) {
    double peak = 0;
    for (auto _ : s) {
      peak = gb::measure_link_peak();
      s.SetIterationTime(1e-3);
    }
    gb::results()["link_peak"] = peak;
    s.counters["GBps"] = peak;
  })->UseManualTime()->Iterations(1);
  benchmark::RegisterBenchmark("cache/cpu_centric", bm_cpu_centric)
    ->UseManualTime()->Iterations(batches)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("cache/device", bm_device)->UseManualTime()->Iterations(batches)->Unit(benchmark::kMillisecond);
  for (const char* choice : {"degree", "presample", "presample+degree"}) {
    for (double fraction : {0.0, 0.05, 0.10, 0.20, 0.50}) {
      std::string const name = std::string("cache/") + choice + "/budget_pct:" + std::to_string(static_cast<int>(fraction * 100));
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) { bm_tiered(s, choice, fraction); })
        ->UseManualTime()
        ->Iterations(batches)
        ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  state_ptr().reset();
  benchmark::Shutdown();
  return 0;
}
