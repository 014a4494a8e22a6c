// bench_gather: random row gather, 1M indices per batch (capped at 512 MB of rows), fresh indices
// every iteration, CUDA-event manual time, medians. Paths, measured side by side in one run:
//   device          device-resident table (upper bound)
//   cpu_centric     host reference gather on all cores into pinned staging + cudaMemcpy
//   pinned          PyTorch-Direct style: zero-copy from pinned memory, caller order
//   pinned_sorted   DGL style: indices sorted on the GPU first, pinned memory
//   registered      caller memory pinned in place (gnndirect adopt_by_registration)
//   managed         gnndirect default (`auto` placement = managed_host, selector policy: sorted)
//   managed_b32     the same with an explicit budget of 32 blocks; managed_full: a full grid
//   managed_unsorted / managed_noalign / pinned_noalign: the policy knobs switched off
// Counters: GBps (decimal, gathered row bytes / median time), pct_link (vs the pinned H2D memcpy
// peak measured at start), vs_<path> (ratio to that path for the same table and row size).
//
// Studies beyond the sweep are named benchmarks that register only when --benchmark_filter names
// them (the study's name appears in the filter text), so that a plain run stays the sweep and
// the codecs; `bench_gather --help` prints this list and the size options:
//   bench_gather --benchmark_filter=gather64                  the 64-byte-row study
//   bench_gather --benchmark_filter='link_peak|gather_sparse' the sparse-gather study
//   bench_gather --benchmark_filter='link_peak|gather_alloc'  the allocation study
//   bench_gather --benchmark_filter='link_peak|gather_codec'  the codecs only
//   bench_gather --benchmark_filter='link_peak|device_copy|gather/'  the sweep without the codecs
//
// One executable, one file per job (the shape of CUB's bench/reduce/base.cuh + sum.cu): this
// header (options, the shared tables and their pattern, the peaks every row is compared with),
// base.cu, and a variant per job, each commenting its own benchmarks:
//   placements.cu  the sweep (gather/...) and the 64-byte-row study (gather64/...)
//   sparse.cu      gather_sparse/...      alloc.cu   gather_alloc/...
//   codecs.cu      gather_codec/... and gather_codec_tune/...
//   link.cu        gather_link/... (issue #44)
//   main.cu        registers them in the order above's ratios need (baselines first) and runs
//
// link_peak (the pinned H2D memcpy peak), link_peak_zero_copy (always, after link_peak: the SMs'
// sequential zero-copy read of a 2 GiB pinned buffer) and device_copy are measured here (base.cu);
// with link_peak, every later row reports both peaks (link_peak_GBps, zero_copy_peak_GBps,
// pct_link, pct_zero_copy).
#pragma once

#include "bench_common.cuh"

#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/registration.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gnndirect::bench::gather {

using gnndirect::memory_kind;

/// bench_gather's own options, taken out of argv before Google Benchmark reads the rest.
struct gather_options {
  std::vector<double> tables_gib{0.25, 1, 4, 16};  ///< --tables: the sweep's table sizes (GiB)
  double sparse_gib = 53.0;  ///< --sparse-gib: the sparse study's table
  double alloc_gib = 16.0;   ///< --alloc-gib: the allocation study's tables
  double codec_gib = 8.0;    ///< --codec-gib: the codecs' fp32 features
  double link_gib = 16.0;    ///< --link-gib: the link study's tables (managed_host and pinned)
  std::string filter;        ///< --benchmark_filter as given: which studies register
  bool help = false;         ///< --help / -h: the usage was printed
  bool listing = false;      ///< --benchmark_list_tests[=true]: names only, no GPU needed
};

/// The options of this run (parse_options fills them before anything registers).
gather_options& options();

/// Takes bench_gather's options (--flag VALUE or --flag=VALUE) out of argv, notes the benchmark
/// filter, prints the usage for --help (Google Benchmark then prints its own options). Exits 2 on
/// a bad value or a missing one.
void parse_options(int& argc, char** argv);

/// Whether --benchmark_filter names `study` (the study then registers; see the file comment).
bool filter_names(const char* study);

/// A policy edited by `edit` from the defaults (every field the edit leaves stays "the selector's").
gnndirect::gather_policy with(void (*edit)(gnndirect::gather_policy&));

/// Word `i` of every benchmark table: non-zero, distinct per word, the same on host and device.
__host__ __device__ constexpr std::uint64_t pattern_word(std::uint64_t i)
{
  return 0x9E3779B97F4A7C15ull * (i + 1);
}

/// Fills host memory with a non-zero pattern on every core (never time on zeros; one thread is
/// far too slow for tables of many GiB).
void fill_pattern(void* dst, std::size_t bytes);

/// fill_pattern's words written by the GPU (`blocks` x 256 threads, default stream, not
/// synchronised; launch errors checked). @throws gnndirect::cuda_error on a launch failure
void fill_pattern_gpu(void* dst, std::size_t bytes, int blocks = 1024);

/// The same bytes in every placement, allocated once per table size (freed when it changes).
struct table_set {
  std::size_t bytes{0};
  gnndirect::buffer<std::byte> device, pinned, managed;
  std::unique_ptr<unsigned char[]> plain;  // pageable memory: CPU baseline and registration
  gnndirect::host_registration registered;

  explicit table_set(std::size_t size);
};

/// The sweep's tables (placements.cu); every larger study frees them before allocating its own.
std::unique_ptr<table_set>& current_tables();

/// The sweep's tables of `bytes`, replacing those of another size.
table_set& tables(std::size_t bytes);

/// The sparse study's table: managed_host only (four copies of 53 GiB would not fit the host).
/// Here because the allocation and link studies free it before allocating theirs.
std::unique_ptr<gnndirect::buffer<std::byte>>& sparse_table_slot();

/// Rows of one batch: 1M, capped at 512 MB of rows.
std::int64_t batch_rows(std::size_t row_bytes);

/// The device's SM count.
int sm_count();

/// Renames counter `from` to `to` when present (record_rate's vs_<key> to a short name).
void rename_counter(benchmark::State& state, const std::string& from, const std::string& to);

/// Registers link_peak, link_peak_zero_copy and device_copy (first: every later row reports the
/// peaks).
void register_peaks();

// Each variant's entry points (defined in its .cu; main.cu calls them in this order).
/// placements.cu: the sweep over paths x --tables x row sizes (always).
void register_sweep();
/// placements.cu: the 64-byte-row study.
void register_study64();
/// sparse.cu: the sparse-gather study.
void register_sparse_study();
/// alloc.cu: the allocation study.
void register_alloc_study();
/// link.cu: the link study (issue #44).
void register_link_study();
/// link_peak_ceilings (link.cu): the measured ceilings and the selector's policies with and without.
/// @param state Google Benchmark's state
void bm_link_ceilings(benchmark::State& state);
/// codecs.cu: the codec sweep (always).
void register_codec_sweep();
/// codecs.cu: the codec tuning study.
void register_codec_tune_study();
/// codecs.cu / alloc.cu / link.cu: free their tables (before main returns: CUDA must still be alive).
void release_codec_tables();
void release_alloc_tables();
void release_link_tables();

}  // namespace gnndirect::bench::gather
