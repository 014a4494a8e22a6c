// bench_sample_typed: typed (heterogeneous) multi-layer sampling, sample_typed_blocks_async, on
// IGBH- and ogbn-mag-shaped generated graphs (graph/generate_typed.hpp): fanouts 15, 10, 5 for
// every relation, batches of 1024 paper seeds (fresh each iteration), every relation's lists in
// HBM or in host memory (managed_host when the device supports it, else pinned; indptr in HBM).
// Reports sampled edges/s (all relations and layers) and, for the record, the host reference's.
// Sizes: GNNDIRECT_BENCH_TYPED_SCALE (default 0.01 of IGBH-full, 1.0 of ogbn-mag).
// With GNNDIRECT_BENCH_TYPED_NPY=DIR each graph and 64 batches of its seeds are written as .npy
// (DIR/<graph>/schema.json, <relation>.colptr.npy / .row.npy, seeds.npy) for
// bench/sample_typed_pyglib.py, which times pyg-lib's hetero sampler on the same input.
#include "bench_common.cuh"
#include "sampling_setup.cuh"

#include <gnndirect/algorithms/sample_typed_blocks_async.cuh>
#include <gnndirect/algorithms/sample_typed_blocks_buffers.cuh>
#include <gnndirect/core/device.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/graph/generate_typed.hpp>
#include <gnndirect/graph/typed_graph.hpp>
#include <gnndirect/reference/sample_typed_reference.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace bench = gnndirect::bench;
using bench::write_npy;
namespace gd = gnndirect;
using offset_t = std::int64_t;
using index_t = std::int32_t;

namespace {

constexpr std::int64_t batch = 1024;

struct dataset {
  std::string name;
  gd::host_typed_graph<offset_t, index_t> host;
  std::unique_ptr<gd::typed_graph<offset_t, index_t>> hbm;
  std::unique_ptr<gd::typed_graph<offset_t, index_t>> host_lists;
};

std::vector<dataset>& datasets()
{
  static std::vector<dataset> all;
  return all;
}

std::vector<index_t> fresh_seeds(const dataset& d, std::uint64_t round)
{
  std::mt19937_64 rng(0x5EED0000u + round);
  auto const papers = static_cast<std::uint64_t>(d.host.num_nodes[0]);
  std::vector<index_t> out(batch);
  for (auto& s : out) { s = static_cast<index_t>(rng() % papers); }
  return out;
}

/// Writes `d`'s relations (CSC: colptr over dst nodes, row = src ids), its schema and the seeds
/// of rounds 1 .. 64 (the timed iterations' batches, concatenated) under `dir`/`d.name`.
void write_dataset(const std::string& dir, const dataset& d)
{
  std::string const base = dir + "/" + d.name;
  GNNDIRECT_EXPECTS(std::system(("mkdir -p '" + base + "'").c_str()) == 0, "bench_sample_typed: cannot create " + base);
  auto const& schema = d.host.schema;
  std::ofstream json(base + "/schema.json");
  json << "{\"node_types\": {";
  for (int t = 0; t < schema.num_node_types(); ++t) {
    json << (t ? ", " : "") << '"' << schema.node_type_name(t) << "\": " << d.host.num_nodes[static_cast<std::size_t>(t)];
  }
  json << "}, \"seed_type\": \"" << schema.node_type_name(0) << "\", \"fanouts\": [15, 10, 5], \"relations\": [";
  for (int r = 0; r < schema.num_relations(); ++r) {
    auto const& key = schema.relation(r);
    std::string const file = key.src + "__" + key.name + "__" + key.dst;
    json << (r ? ", " : "") << "[\"" << key.src << "\", \"" << key.name << "\", \"" << key.dst << "\"]";
    write_npy(base + "/" + file + ".colptr.npy", d.host.relations[static_cast<std::size_t>(r)].indptr);
    write_npy(base + "/" + file + ".row.npy", d.host.relations[static_cast<std::size_t>(r)].indices);
  }
  json << "]}\n";
  GNNDIRECT_EXPECTS(json.good(), "bench_sample_typed: cannot write " + base + "/schema.json");
  std::vector<index_t> seeds;  // rounds 1 .. 64, batch after batch
  for (std::uint64_t round = 1; round <= 64; ++round) {
    auto const one = fresh_seeds(d, round);
    seeds.insert(seeds.end(), one.begin(), one.end());
  }
  write_npy(base + "/seeds.npy", seeds);
}

/// Sampled edges of a finished sample (all relations, all layers).
double edges_of(const gd::typed_blocks_view<offset_t, index_t>& blocks)
{
  double edges = 0;
  for (auto const& layer : blocks.layers) {
    for (auto const& r : layer) { edges += static_cast<double>(r.num_edges()); }
  }
  return edges;
}

void bm_typed_gpu(benchmark::State& state, std::size_t which, bool lists_in_hbm)
{
  dataset const& d = datasets()[which];
  auto const& graph = lists_in_hbm ? *d.hbm : *d.host_lists;
  auto const fanouts = gd::typed_fanouts_of(graph.schema(), std::vector<int>{15, 10, 5});
  cudaStream_t stream{};
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  {
    gd::sample_typed_blocks_buffers<offset_t, index_t> const storage(graph.view(), 0, batch, fanouts, stream);
    gd::buffer<index_t> d_seeds(batch, stream);
    bench::event_timer timer;
    std::vector<double> rates;
    std::uint64_t round = 0;
    double edges = 0;
    for (auto _ : state) {
      auto const seeds = fresh_seeds(d, ++round);
      GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(d_seeds.data(), seeds.data(), seeds.size() * sizeof(index_t),
                                         cudaMemcpyHostToDevice, stream));
      timer.start(stream);
      gd::sample_typed_blocks_async(stream, graph.view(), 0, d_seeds.data(), batch, fanouts,
                                    gd::uniform_sampler{round}, gd::sampling_policy{}, storage.view(),
                                    storage.workspace());
      timer.stop(stream);
      double const t = timer.seconds();
      state.SetIterationTime(t);
      edges = edges_of(storage.read(stream));
      rates.push_back(edges / t);
    }
    gd::sample_typed_blocks_check(stream, storage.workspace(), graph.view(), 0, 3);
    state.counters["edges_per_s"] = bench::median(rates);
    state.counters["edges_per_batch"] = edges;
  }
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
}

void bm_typed_reference(benchmark::State& state, std::size_t which)
{
  dataset const& d = datasets()[which];
  auto const fanouts = gd::typed_fanouts_of(d.host.schema, std::vector<int>{15, 10, 5});
  auto const view = d.host.view();
  std::vector<double> rates;
  std::uint64_t round = 0;
  for (auto _ : state) {
    auto const seeds = fresh_seeds(d, ++round);
    auto const t0 = std::chrono::steady_clock::now();
    auto const out = gd::host::sample_typed_blocks_reference(view, 0, seeds.data(), batch, fanouts,
                                                             gd::uniform_sampler{round});
    double const t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(t);
    rates.push_back(edges_of(out.view()) / t);
  }
  state.counters["edges_per_s"] = bench::median(rates);
}

}  // namespace

int main(int argc, char** argv)
{
  benchmark::Initialize(&argc, argv);
  if (gd::device_count() == 0) {
    std::printf("SKIPPED: bench_sample_typed needs a CUDA device\n");
    return 0;
  }
  char const* scale_text = std::getenv("GNNDIRECT_BENCH_TYPED_SCALE");
  double const igbh_scale = scale_text != nullptr ? std::atof(scale_text) : 0.01;
  int const device = gd::require_device();
  bool const managed = gd::device_attribute(cudaDevAttrConcurrentManagedAccess, device) != 0;
  gd::csr_placement const host_lists{gd::memory_kind::device, managed ? gd::memory_kind::managed_host
                                                                     : gd::memory_kind::pinned};
  for (auto const& [name, preset, scale] : {std::tuple{"igbh", gd::typed_preset::igbh, igbh_scale},
                                            std::tuple{"mag", gd::typed_preset::ogbn_mag, 1.0}}) {
    auto const t0 = std::chrono::steady_clock::now();
    dataset d{name, gd::host::generate_typed<offset_t, index_t>(preset, scale, 1), nullptr, nullptr};
    d.hbm = std::make_unique<gd::typed_graph<offset_t, index_t>>(d.host, std::vector<gd::csr_placement>{
                                                                            gd::csr_placement::all(gd::memory_kind::device)});
    d.host_lists = std::make_unique<gd::typed_graph<offset_t, index_t>>(d.host, std::vector<gd::csr_placement>{host_lists});
    std::int64_t edges = 0;
    for (auto const& r : d.host.relations) { edges += r.num_edges(); }
    std::printf("%s (scale %g): %d node types, %d relations, %lld edges, generated in %.1f s\n", name, scale,
                d.host.schema.num_node_types(), d.host.schema.num_relations(), static_cast<long long>(edges),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    datasets().push_back(std::move(d));
  }
  if (const char* dir = std::getenv("GNNDIRECT_BENCH_TYPED_NPY"); dir != nullptr && *dir != '\0') {
    for (auto const& d : datasets()) { write_dataset(dir, d); }
  }
  for (std::size_t i = 0; i < datasets().size(); ++i) {
    std::string const base = "sample_typed_15_10_5/" + datasets()[i].name;
    benchmark::RegisterBenchmark((base + "/lists_hbm").c_str(), bm_typed_gpu, i, true)
      ->UseManualTime()->Iterations(20)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((base + "/lists_host").c_str(), bm_typed_gpu, i, false)
      ->UseManualTime()->Iterations(20)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((base + "/host_reference_oracle").c_str(), bm_typed_reference, i)
      ->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
