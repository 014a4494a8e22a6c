// bench_gather's entry: its options, then every job's benchmarks in the order the same-run
// ratios need (peaks and baselines first), then the run (see base.cuh for the list).
#include "base.cuh"

#include <gnndirect/core/device.hpp>

#include <benchmark/benchmark.h>

#include <cstdio>

namespace {

namespace bg = gnndirect::bench::gather;

void register_all()
{
  bg::register_peaks();
  bg::register_sweep();
  // The studies are large (up to a 53 GiB table): only when the filter names them.
  if (bg::filter_names("gather64")) { bg::register_study64(); }
  if (bg::filter_names("gather_sparse")) { bg::register_sparse_study(); }
  if (bg::filter_names("gather_alloc")) { bg::register_alloc_study(); }
  if (bg::filter_names("gather_link")) { bg::register_link_study(); }
  bg::register_codec_sweep();
  if (bg::filter_names("gather_codec_tune")) { bg::register_codec_tune_study(); }
}

/// Frees the tables before main returns (CUDA must still be alive).
void release_tables()
{
  bg::current_tables().reset();
  bg::release_codec_tables();
  bg::sparse_table_slot().reset();
  bg::release_alloc_tables();
  bg::release_link_tables();
}

}  // namespace

int main(int argc, char** argv)
{
  bg::parse_options(argc, argv);
  if (bg::options().help) {  // Google Benchmark's own options follow ours (it prints them and exits 0)
    benchmark::Initialize(&argc, argv);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  // Listing (--benchmark_list_tests) registers no table and runs nothing: it needs no GPU.
  if (gnndirect::device_count() == 0 && !bg::options().listing) {
    std::fprintf(stderr, "bench_gather: no CUDA device; benchmarks need an NVIDIA GPU\n");
    return 1;
  }
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  release_tables();
  benchmark::Shutdown();
  return 0;
}
