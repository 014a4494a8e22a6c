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
// gather64 is the 64-byte-row study (gather64/...): what limits small rows
// from host memory, one knob at a time on managed_host, on a 256 MiB and a 16 GiB table:
//   translation   the same pattern on both tables (the small one's pages stay in the GPU's TLBs)
//   request rate  rows in flight per tile, threads per row, block budget (8 to a full grid)
//   partial lines paired: each 64-B row's 128-B line partner is the next index, so every line
//                 read over the link is used whole (same bytes, half the lines of random rows)
//   locality      unsorted (caller order) against the selector's sorted order
//
// gather_sparse is the sparse-gather study (gather_sparse/...): 512-B rows as the
// papers100M demo gathers them (about 130K rows per batch from a 53 GiB table, so nearly every
// row lies on a page of its own), managed_host only, the default policy unless named:
//   span          the same 131072 rows drawn from the first 4 or 16 GiB or the whole table
//   rows          1M rows per gather instead of 131072 (denser pages)
//   blocks        the block cap: 32 (the selector's), 64, 128, 256, a full grid
//   streams       1, 2, 4 or 6 gathers at once, each on its own stream (as pipeline workers)
// --sparse-gib sets the table size in GiB (default 53).
//
// gather_alloc is the allocation study (gather_alloc/...): the same 1M random rows
// (64, 128, 512 B, default policy) from a 16 GiB table (--alloc-gib) allocated in
// several ways, since how host memory is allocated may decide the GPU page size that maps it, and
// 64-B rows from large tables are translation-bound: managed_host (cudaMallocManaged, advised,
// filled by the CPU) and three other ways of populating managed memory (see managed_allocate), pinned
// (cudaHostAlloc), host_pool / host_numa_pool (pinned memory from a CUDA memory pool located on
// the host, the virtual-memory-management path), thp_registered (anonymous memory advised to
// transparent huge pages, then cudaHostRegister). Each checks its first 4096 gathered rows
// against the host's bytes.
//
// Row codecs (gather_codec/<codec>/<path>/cols:<n>, always registered; a filter leaves them out):
// fp32, fp16, bf16, int8_affine, fp8_e4m3, int4_affine at 100, 128 and 602 features,
// decoded to fp32, from a table of --codec-gib GiB of fp32 features (default 8)
// encoded into managed_host. Paths: `zero_copy` (the decoding gather: codes cross the link,
// decoded in registers) and `cpu_centric` (all cores index the encoded host table into pinned
// staging with the rows' metadata, one copy, then the GPU decodes). Counters: link_GBps (encoded
// row bytes, stride included, / median time), decoded_GBps (cols * 4 bytes a row), link_x /
// decoded_x (each over the link peak of the same run), vs_fp32 (decoded rate over the fp32
// codec's at the same width and path), device_MB / host_MB (the encoded table's memory).
// gather_codec_tune/<codec>/cols:<n>/blocks:<b>/tile:<t>/rows:<r> (a study) times the zero-copy
// decode of int8, fp8 and int4 under explicit policies, to choose the selector's defaults.
//
// link_peak_zero_copy (always, after link_peak): the SMs' sequential zero-copy read of a 2 GiB
// pinned buffer; with link_peak, every later row reports both (link_peak_GBps, zero_copy_peak_GBps,
// pct_link, pct_zero_copy). gather_link is the link study (issue #44: what each machine's link
// allows): on --link-gib GiB tables (default 16) in managed_host (filled on the host cores, as
// callers fill it) and pinned memory (filled by the GPU), at 128, 512 and 2048-B rows:
// warp_per_row (a plain one-warp-per-row kernel, float4 loads, indices sorted untimed, 256
// blocks of 256 threads; warp_per_row_full: a full grid), gnndirect
// (the selector's defaults, its sort timed), gnndirect_tuned (the policy the selector resolves
// for this machine's measured ceilings, measured_machine_ceilings; link_peak_ceilings prints the
// ceilings and both policies per placement and row size), gnndirect_presorted (the same presorted indices,
// order none: the row kernel alone) and the selector sweep blocks:B/rows:F/tile:T (B in 32, 64,
// 128, 256, SMs x 4, SMs x 8; F in 1, 2, 4; T the selector's tile and twice it). Counters:
// vs_warp_per_row, and the resolved blocks, tile, rows_in_flight.
#include "bench_common.cuh"

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/algorithms/machine_ceilings.cuh>
#include <gnndirect/core/gather_tuning.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/device/codecs.hpp>
#include <gnndirect/owners/encoded_table.hpp>
#include <gnndirect/owners/cuda_handles.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/registration.hpp>
#include <gnndirect/reference/gather_reference.hpp>
#include <gnndirect/util/parallel.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gb = gnndirect::bench;
using gnndirect::memory_kind;

namespace {

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

gather_options& options()
{
  static gather_options o;
  return o;
}

constexpr char const* usage_text =
  "usage: bench_gather [--tables GIB,GIB,...] [--sparse-gib GIB] [--alloc-gib GIB] [--codec-gib GIB] [--link-gib GIB]\n"
  "                    [Google Benchmark options, e.g. --benchmark_filter=REGEX]\n"
  "Random row gathers from host memory, path by path (see bench/gather.cu's comment).\n"
  "Benchmarks (a plain run: link_peak, device_copy, the sweep and the codecs):\n"
  "  link_peak, device_copy   the pinned H2D memcpy peak and the device copy rate\n"
  "  link_peak_zero_copy      the SMs' sequential zero-copy read of 2 GiB of pinned memory\n"
  "  gather/PATH/table_MiB:T/row_bytes:R   the sweep over paths, tables and row sizes\n"
  "  gather_codec/CODEC/PATH/cols:N        row codecs, zero-copy against CPU-centric\n"
  "Studies, registered only when --benchmark_filter names them:\n"
  "  gather64        64-byte rows, one knob at a time (translation, request rate, lines, order)\n"
  "  gather_sparse   512-B rows spread over a large table, as the papers100M epoch gathers them\n"
  "  gather_alloc    the same gathers from host memory allocated in several ways\n"
  "  gather_codec_tune  int8/fp8/int4 zero-copy decode over block cap x tile x rows in flight\n"
  "  gather_link     the plain warp-per-row kernel vs gnndirect and the selector sweep (block cap\n"
  "                  x rows in flight x tile), managed_host and pinned tables, 128/512/2048-B rows\n"
  "  e.g. bench_gather --benchmark_filter='link_peak|gather_sparse'\n"
  "Sizes: --tables the sweep's tables in GiB (default 0.25,1,4,16); --sparse-gib (default 53),\n"
  "  --alloc-gib (default 16), --codec-gib (default 8), --link-gib (default 16): the studies'\n"
  "  and the codecs' tables.\n";

/// A GiB value > 0 of option `flag`, or exit 2 naming the option and the text.
double parse_gib(const std::string& flag, const std::string& text)
{
  char* end = nullptr;
  double const v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(v > 0) || v > 1e6) {
    std::fprintf(stderr, "bench_gather: %s expects a size in GiB > 0, got '%s'\n", flag.c_str(), text.c_str());
    std::exit(2);
  }
  return v;
}

/// Takes bench_gather's options (--flag VALUE or --flag=VALUE) out of argv, notes the benchmark
/// filter, prints the usage for --help (Google Benchmark then prints its own options). Exits 2 on
/// a bad value or a missing one.
void parse_options(int& argc, char** argv)
{
  gather_options& o = options();
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (auto const eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
      has_value = true;
    }
    bool const ours = arg == "--tables" || arg == "--sparse-gib" || arg == "--alloc-gib" || arg == "--codec-gib" ||
                      arg == "--link-gib";
    if (!ours) {
      if (arg == "--benchmark_filter" && has_value) { o.filter = value; }
      if (arg == "--benchmark_list_tests") { o.listing = !has_value || value == "true" || value == "1"; }
      if (arg == "--help" || arg == "-h") {
        std::fputs(usage_text, stdout);
        o.help = true;
      }
      argv[kept++] = argv[i];
      continue;
    }
    if (!has_value) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_gather: %s needs a value (see --help)\n", arg.c_str());
        std::exit(2);
      }
      value = argv[++i];
    }
    if (arg == "--tables") {
      o.tables_gib.clear();
      std::size_t start = 0;
      while (start <= value.size()) {
        std::size_t end = value.find(',', start);
        if (end == std::string::npos) { end = value.size(); }
        o.tables_gib.push_back(parse_gib(arg, value.substr(start, end - start)));
        start = end + 1;
      }
    } else if (arg == "--sparse-gib") {
      o.sparse_gib = parse_gib(arg, value);
    } else if (arg == "--alloc-gib") {
      o.alloc_gib = parse_gib(arg, value);
    } else if (arg == "--link-gib") {
      o.link_gib = parse_gib(arg, value);
    } else {
      o.codec_gib = parse_gib(arg, value);
    }
  }
  argc = kept;
  argv[argc] = nullptr;
}

/// Whether --benchmark_filter names `study` (the study then registers; see the file comment).
bool filter_names(const char* study)
{
  return options().filter.find(study) != std::string::npos;
}

/// A data path of the sweep: where the table lives and the policy overrides.
struct path {
  const char* name;
  memory_kind source;          ///< kind of the source view (cpu_centric: plain host memory)
  bool cpu_centric;            ///< host gather + copy instead of a GPU gather
  gnndirect::gather_policy policy;
};

gnndirect::gather_policy with(void (*edit)(gnndirect::gather_policy&))
{
  gnndirect::gather_policy p;
  edit(p);
  return p;
}

/// Baselines first (ratios are taken against them), then gnndirect's defaults, then variants.
std::vector<path> paths()
{
  using gnndirect::locality_order;
  return {
    {"device", memory_kind::device, false, {}},
    {"cpu_centric", memory_kind::pinned, true, {}},
    {"pinned", memory_kind::pinned, false, with([](auto& p) { p.order = locality_order::none; })},
    {"pinned_sorted", memory_kind::pinned, false, with([](auto& p) { p.order = locality_order::sorted; })},
    {"pinned_noalign", memory_kind::pinned, false, with([](auto& p) { p.order = locality_order::none; p.align_128 = false; })},
    {"registered", memory_kind::registered, false, {}},
    {"managed", memory_kind::managed_host, false, {}},
    {"managed_b32", memory_kind::managed_host, false, with([](auto& p) { p.max_blocks = 32; })},
    {"managed_full", memory_kind::managed_host, false, with([](auto& p) { p.max_blocks = 132 * 8; })},
    {"managed_unsorted", memory_kind::managed_host, false, with([](auto& p) { p.order = locality_order::none; })},
    {"managed_noalign", memory_kind::managed_host, false, with([](auto& p) { p.align_128 = false; })},
  };
}

/// Word `i` of every benchmark table: non-zero, distinct per word, the same on host and device.
__host__ __device__ constexpr std::uint64_t pattern_word(std::uint64_t i)
{
  return 0x9E3779B97F4A7C15ull * (i + 1);
}

/// Fills host memory with a non-zero pattern on every core (never time on zeros; one thread is
/// far too slow for tables of many GiB).
void fill_pattern(void* dst, std::size_t bytes)
{
  gnndirect::host::parallel_for_ranges(static_cast<std::int64_t>(bytes / 8), [dst](std::int64_t b, std::int64_t e, int) {
    auto* words = static_cast<std::uint64_t*>(dst);
    for (std::int64_t i = b; i < e; ++i) { words[i] = pattern_word(static_cast<std::uint64_t>(i)); }
  });
}

/// The same bytes in every placement, allocated once per table size (freed when it changes).
struct table_set {
  std::size_t bytes{0};
  gnndirect::buffer<std::byte> device, pinned, managed;
  std::unique_ptr<unsigned char[]> plain;  // pageable memory: CPU baseline and registration
  gnndirect::host_registration registered;

  explicit table_set(std::size_t size)
    : bytes(size), device(size, memory_kind::device), pinned(size, memory_kind::pinned),
      managed(size, memory_kind::managed_host), plain(new unsigned char[size])
  {
    fill_pattern(pinned.host_data(), size);
    fill_pattern(managed.host_data(), size);
    fill_pattern(plain.get(), size);
    GNNDIRECT_CUDA_TRY(cudaMemcpy(device.data(), pinned.host_data(), size, cudaMemcpyHostToDevice));
    registered = gnndirect::host_registration(plain.get(), size);
  }
};

std::unique_ptr<table_set>& current_tables()
{
  static std::unique_ptr<table_set> current;
  return current;
}

/// The sparse study's table: managed_host only (four copies of 53 GiB would not fit the host).
std::unique_ptr<gnndirect::buffer<std::byte>>& sparse_table_slot()
{
  static std::unique_ptr<gnndirect::buffer<std::byte>> table;
  return table;
}

table_set& tables(std::size_t bytes)
{
  std::unique_ptr<table_set>& current = current_tables();
  if (!current || current->bytes != bytes) {
    current.reset();  // free the previous size first
    current = std::make_unique<table_set>(bytes);
  }
  return *current;
}

gnndirect::table_view<const float> source_view(table_set& t, const path& p, std::int64_t rows, std::int64_t cols)
{
  auto view = [&](const void* data) {
    return gnndirect::table_view<const float>(static_cast<const float*>(data), rows, cols, cols, p.source);
  };
  if (p.cpu_centric) { return view(t.plain.get()); }
  switch (p.source) {
    case memory_kind::device: return view(t.device.data());
    case memory_kind::pinned: return view(t.pinned.data());
    case memory_kind::registered: return view(t.registered.device_data());
    default: return view(t.managed.data());
  }
}

constexpr const char* baseline_names[] = {"cpu_centric", "pinned", "pinned_sorted", "device"};

std::int64_t batch_rows(std::size_t row_bytes)
{
  return std::min<std::int64_t>(1 << 20, (std::int64_t{512} << 20) / static_cast<std::int64_t>(row_bytes));
}

/// One timed CPU-centric batch: gather on all cores into pinned staging, then copy to the GPU.
double cpu_centric_batch(gnndirect::table_view<const float> src, const std::vector<std::int64_t>& indices,
                         gnndirect::buffer<float>& staging, float* device_out)
{
  auto const count = static_cast<std::int64_t>(indices.size());
  auto const start = std::chrono::steady_clock::now();
  gnndirect::host::gather_reference(src, indices.data(), count,
                                    gnndirect::table_view<float>(staging.host_data(), count, src.cols, src.cols, memory_kind::pinned));
  GNNDIRECT_CUDA_TRY(cudaMemcpy(device_out, staging.host_data(), staging.bytes(), cudaMemcpyHostToDevice));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// idx[2k+1] = idx[2k] ^ 1: odd entries name the other 64-B half of their even partner's 128-B
/// line (rows of 64 B, table 128-B aligned), so the batch reads whole lines.
__global__ void pair_lines_kernel(std::int64_t* idx, std::int64_t count, std::int64_t rows)
{
  for (std::int64_t i = 2 * (blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x) + 1; i < count;
       i += 2 * std::int64_t{gridDim.x} * blockDim.x) {
    std::int64_t const partner = idx[i - 1] ^ 1;
    idx[i] = partner < rows ? partner : idx[i - 1];
  }
}

void bm_gather(benchmark::State& state, const path& p, std::size_t table_bytes, std::size_t row_bytes,
               bool paired_lines = false)
{
  table_set& t = tables(table_bytes);
  std::int64_t const cols = static_cast<std::int64_t>(row_bytes / sizeof(float));
  std::int64_t const rows = static_cast<std::int64_t>(table_bytes / row_bytes);
  std::int64_t const count = batch_rows(row_bytes);
  auto const src = source_view(t, p, rows, cols);
  gnndirect::buffer<float> out(static_cast<std::size_t>(count * cols), memory_kind::device);
  gnndirect::buffer<std::int64_t> indices(static_cast<std::size_t>(count), memory_kind::device);
  gnndirect::table_view<float> const dst(out.data(), count, cols, cols, memory_kind::device);
  gnndirect::gather_policy const& policy = p.policy;
  gnndirect::buffer<std::byte> ws(gnndirect::gather_workspace_bytes<std::int64_t>(count, rows, src.kind, row_bytes, policy),
                                  memory_kind::device);
  gnndirect::buffer<float> staging(p.cpu_centric ? out.size() : 0, memory_kind::pinned);
  std::vector<std::int64_t> host_indices(p.cpu_centric ? count : 0);
  gb::event_timer timer;
  std::vector<double> times;
  std::uint64_t seed = 12345;
  for (auto _ : state) {
    gb::fill_random_indices(nullptr, indices.data(), count, rows, ++seed);
    if (paired_lines) {
      pair_lines_kernel<<<1024, 256>>>(indices.data(), count, rows);
      GNNDIRECT_CUDA_TRY(cudaGetLastError());
    }
    double seconds = 0;
    if (p.cpu_centric) {
      GNNDIRECT_CUDA_TRY(cudaMemcpy(host_indices.data(), indices.data(), count * 8, cudaMemcpyDeviceToHost));
      seconds = cpu_centric_batch(src, host_indices, staging, out.data());
    } else {
      timer.start(nullptr);
      gnndirect::gather_async(cudaStream_t{}, src, indices.data(), count, dst, {ws.data(), ws.bytes()}, policy);
      timer.stop(nullptr);
      seconds = timer.seconds();
    }
    state.SetIterationTime(seconds);
    times.push_back(seconds);
  }
  if (!p.cpu_centric) { gnndirect::gather_check(nullptr, {ws.data(), ws.bytes()}, rows); }
  double const gbps = static_cast<double>(count) * row_bytes / gb::median(times) * 1e-9;
  std::string const key = std::to_string(table_bytes) + "/" + std::to_string(row_bytes) + "/";
  std::vector<std::string> baselines;
  bool const is_baseline = p.cpu_centric || std::string(p.name) == "device" || std::string(p.name).rfind("pinned", 0) == 0;
  if (!is_baseline) {
    for (const char* base : baseline_names) { baselines.push_back(key + base); }
  }
  gb::record_rate(state, key + p.name, gbps, baselines);
  // Short counter names: strip the key prefix.
  for (const char* base : baseline_names) {
    auto it = state.counters.find("vs_" + key + base);
    if (it != state.counters.end()) {
      state.counters[std::string("vs_") + base] = it->second;
      state.counters.erase(it);
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * count * static_cast<std::int64_t>(row_bytes));
  state.counters["rows"] = static_cast<double>(count);
}

/// The sparse study's managed_host table of --sparse-gib GiB (default 53),
/// allocated and filled on first use; the sweep's tables are freed first.
gnndirect::buffer<std::byte>& sparse_table()
{
  auto& table = sparse_table_slot();
  if (!table) {
    current_tables().reset();
    auto const bytes = static_cast<std::size_t>(options().sparse_gib * (1ull << 30));
    table = std::make_unique<gnndirect::buffer<std::byte>>(bytes, memory_kind::managed_host);
    fill_pattern(table->host_data(), bytes);
  }
  return *table;
}

/// One gather of the sparse study, on its own stream with its own indices, output and workspace.
struct sparse_lane {
  gnndirect::buffer<float> out;
  gnndirect::buffer<std::int64_t> indices;
  gnndirect::buffer<std::byte> ws;
  gnndirect::stream_handle stream = gnndirect::make_non_blocking_stream();
  gnndirect::event_handle done = gnndirect::make_sync_event();
};

/// `streams` gathers of `count` random 512-B rows at once from the first `span_bytes` of the
/// sparse table (all of it when larger), block cap `max_blocks` (0: the selector's). GB/s of all
/// lanes' rows over the time from the fork to the last lane's end.
void bm_gather_sparse(benchmark::State& state, const std::string& key, std::size_t span_bytes, std::int64_t count,
                      int max_blocks, int streams)
{
  constexpr std::size_t row_bytes = 512;
  auto& table = sparse_table();
  std::int64_t const cols = row_bytes / sizeof(float);
  std::int64_t const rows = static_cast<std::int64_t>(std::min(span_bytes, table.bytes()) / row_bytes);
  gnndirect::table_view<const float> const src(reinterpret_cast<const float*>(table.data()), rows, cols, cols,
                                               memory_kind::managed_host);
  gnndirect::gather_policy policy;
  policy.max_blocks = max_blocks;
  std::size_t const ws_bytes = gnndirect::gather_workspace_bytes<std::int64_t>(count, rows, src.kind, row_bytes, policy);
  std::vector<sparse_lane> lanes(static_cast<std::size_t>(streams));
  for (auto& lane : lanes) {
    lane.out = gnndirect::buffer<float>(static_cast<std::size_t>(count * cols), memory_kind::device);
    lane.indices = gnndirect::buffer<std::int64_t>(static_cast<std::size_t>(count), memory_kind::device);
    lane.ws = gnndirect::buffer<std::byte>(ws_bytes, memory_kind::device);
  }
  cudaStream_t const first = lanes.front().stream.get();
  gnndirect::event_handle const fork = gnndirect::make_sync_event();
  gb::event_timer timer;
  std::vector<double> times;
  std::uint64_t seed = 777;
  for (auto _ : state) {
    for (auto& lane : lanes) { gb::fill_random_indices(lane.stream.get(), lane.indices.data(), count, rows, ++seed); }
    for (auto& lane : lanes) { GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(lane.stream.get())); }
    timer.start(first);
    GNNDIRECT_CUDA_TRY(cudaEventRecord(fork.get(), first));
    for (auto& lane : lanes) {
      GNNDIRECT_CUDA_TRY(cudaStreamWaitEvent(lane.stream.get(), fork.get(), 0));
      gnndirect::table_view<float> const dst(lane.out.data(), count, cols, cols, memory_kind::device);
      gnndirect::gather_async(lane.stream.get(), src, lane.indices.data(), count, dst,
                              {lane.ws.data(), lane.ws.bytes()}, policy);
      GNNDIRECT_CUDA_TRY(cudaEventRecord(lane.done.get(), lane.stream.get()));
      GNNDIRECT_CUDA_TRY(cudaStreamWaitEvent(first, lane.done.get(), 0));
    }
    timer.stop(first);
    times.push_back(timer.seconds());
    state.SetIterationTime(times.back());
  }
  for (auto& lane : lanes) { gnndirect::gather_check(lane.stream.get(), {lane.ws.data(), lane.ws.bytes()}, rows); }
  double const bytes = static_cast<double>(streams) * static_cast<double>(count) * row_bytes;
  gb::record_rate(state, key, bytes / gb::median(times) * 1e-9);
  state.counters["rows_per_MiB"] = static_cast<double>(count) / (static_cast<double>(rows) * row_bytes / (1 << 20));
}

/// The sparse study's variants (see the file comment), on the GPU machine's largest table.
void register_sparse_study()
{
  constexpr std::size_t whole = std::numeric_limits<std::size_t>::max();
  constexpr std::int64_t batch = 131072;
  auto add = [](const std::string& name, std::size_t span, std::int64_t count, int blocks, int streams) {
    std::string const key = "gather_sparse/" + name;
    benchmark::RegisterBenchmark(key.c_str(), [=](benchmark::State& s) {
      bm_gather_sparse(s, key, span, count, blocks, streams);
    })->UseManualTime()->Iterations(11)->Unit(benchmark::kMillisecond);
  };
  add("default", whole, batch, 0, 1);
  add("span_GiB:4", std::size_t{4} << 30, batch, 0, 1);
  add("span_GiB:16", std::size_t{16} << 30, batch, 0, 1);
  add("rows:1M", whole, 1 << 20, 0, 1);
  for (int blocks : {64, 128, 256, 132 * 8}) { add("blocks:" + std::to_string(blocks), whole, batch, blocks, 1); }
  for (int streams : {2, 4, 6}) { add("streams:" + std::to_string(streams), whole, batch, 0, streams); }
  add("streams:4/blocks:128", whole, batch, 128, 4);
}

void bm_link_peak(benchmark::State& state)
{
  double peak = 0;
  for (auto _ : state) {
    peak = gb::measure_link_peak();
    state.SetIterationTime((std::size_t{256} << 20) / (peak * 1e9));
  }
  gb::results()["link_peak"] = peak;
  state.counters["GBps"] = peak;
}

void bm_device_copy(benchmark::State& state)
{
  std::size_t const bytes = std::size_t{4} << 30;
  gnndirect::buffer<std::byte> a(bytes, memory_kind::device), b(bytes, memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemset(a.data(), 0x3C, bytes));
  gb::event_timer timer;
  std::vector<double> times;
  for (auto _ : state) {
    timer.start(nullptr);
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, nullptr));
    timer.stop(nullptr);
    times.push_back(timer.seconds());
    state.SetIterationTime(times.back());
  }
  double const gbps = 2.0 * bytes / gb::median(times) * 1e-9;  // read + write
  gb::results()["device_copy"] = gbps;
  state.counters["GBps_read_write"] = gbps;
}

std::vector<std::size_t> table_sizes()
{
  // --tables 0.25,4,16 (GiB) selects the sweep's tables; default 0.25,1,4,16.
  std::vector<std::size_t> sizes;
  for (double gib : options().tables_gib) { sizes.push_back(static_cast<std::size_t>(gib * (1ull << 30))); }
  return sizes;
}

/// The 64-byte-row study's variants (see the file comment): managed_host, one knob each.
std::vector<std::pair<path, bool>> study64_paths()
{
  using gnndirect::locality_order;
  auto managed = [](const char* name, void (*edit)(gnndirect::gather_policy&)) {
    return path{name, memory_kind::managed_host, false, with(edit)};
  };
  return {
    {managed("default", [](auto&) {}), false},
    {managed("paired_lines", [](auto&) {}), true},
    {managed("unsorted", [](auto& p) { p.order = locality_order::none; }), false},
    {managed("unsorted_paired_lines", [](auto& p) { p.order = locality_order::none; }), true},
    {managed("rif:1", [](auto& p) { p.tile_size = 4; p.rows_in_flight = 1; }), false},
    {managed("rif:2", [](auto& p) { p.tile_size = 4; p.rows_in_flight = 2; }), false},
    {managed("rif:4", [](auto& p) { p.tile_size = 4; p.rows_in_flight = 4; }), false},
    {managed("tile:8", [](auto& p) { p.tile_size = 8; }), false},
    {managed("tile:16", [](auto& p) { p.tile_size = 16; }), false},
    {managed("blocks:8", [](auto& p) { p.max_blocks = 8; }), false},
    {managed("blocks:16", [](auto& p) { p.max_blocks = 16; }), false},
    {managed("blocks:64", [](auto& p) { p.max_blocks = 64; }), false},
    {managed("blocks:128", [](auto& p) { p.max_blocks = 128; }), false},
    {managed("blocks:full", [](auto& p) { p.max_blocks = 132 * 8; }), false},
    {managed("noalign", [](auto& p) { p.align_128 = false; }), false},
  };
}

void register_study64()
{
  for (std::size_t table_bytes : {std::size_t{256} << 20, std::size_t{16} << 30}) {
    for (auto const& [p, paired] : study64_paths()) {
      std::string const name = std::string("gather64/") + p.name + "/table_MiB:" + std::to_string(table_bytes >> 20);
      benchmark::RegisterBenchmark(name.c_str(), [=, p = p, paired = paired](benchmark::State& s) {
        bm_gather(s, p, table_bytes, 64, paired);
      })->UseManualTime()->Iterations(11)->Unit(benchmark::kMillisecond);
    }
  }
}

/// fill_pattern's words, written by the GPU.
__global__ void fill_pattern_kernel(std::uint64_t* words, std::size_t count)
{
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    words[i] = pattern_word(i);
  }
}

/// A host-resident table of the allocation study, allocated and populated in one of the ways the
/// study compares (the question: does any of them get the GPU fewer translations per byte).
class study_table {
 public:
  study_table(const std::string& how, std::size_t bytes) : how_(how), bytes_(bytes)
  {
    if (how.rfind("managed", 0) == 0) {
      data_ = managed_allocate(how);
    } else if (how == "pinned") {
      owned_ = gnndirect::buffer<std::byte>(bytes, memory_kind::pinned);
      data_ = owned_.host_data();
    } else if (how == "host_pool" || how == "host_numa_pool") {
      data_ = pool_allocate(how == "host_pool" ? cudaMemLocationTypeHost : cudaMemLocationTypeHostNuma);
    } else if (how == "thp_registered") {
      data_ = thp_allocate();
    } else {
      throw std::invalid_argument("alloc study: unknown allocation '" + how + "'");
    }
    if (how == "managed_gpu_fill") {
      fill_pattern_kernel<<<1024, 256>>>(static_cast<std::uint64_t*>(data_), bytes / 8);
      GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
    } else {
      fill_pattern(data_, bytes);
    }
    if (how == "managed_advise_after_fill") { advise_host_preferred(data_, bytes); }
    if (how == "thp_registered") { registered_ = gnndirect::host_registration(data_, bytes); }
  }
  study_table(const study_table&) = delete;
  study_table& operator=(const study_table&) = delete;
  ~study_table()
  {
    registered_ = gnndirect::host_registration{};
    if (pool_ != nullptr) {
      (void)cudaFreeAsync(data_, nullptr);
      (void)cudaStreamSynchronize(nullptr);
      (void)cudaMemPoolDestroy(pool_);
    }
    if (mapped_ != nullptr) { munmap(mapped_, mapped_bytes_); }
    if (managed_raw_ != nullptr) { (void)cudaFree(managed_raw_); }
  }

  /// Device-visible address of the bytes.
  const void* device_data() const
  {
    if (how_ == "thp_registered") { return registered_.device_data(); }
    return owned_.size() > 0 ? static_cast<const void*>(owned_.data()) : data_;
  }
  /// Host address of the same bytes (for filling and checking).
  const void* host_data() const { return data_; }
  /// The view kind the library sees (every host-resident kind takes the same gather policy).
  memory_kind kind() const { return how_.rfind("managed", 0) == 0 ? memory_kind::managed_host : memory_kind::pinned; }
  const std::string& how() const { return how_; }
  std::size_t bytes() const { return bytes_; }
  /// Kernel-reported huge-page share of the process's anonymous memory (THP), for the log.
  static std::string anon_huge_pages()
  {
    std::FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
    if (f == nullptr) { return "?"; }
    char line[256];
    std::string out = "?";
    while (std::fgets(line, sizeof line, f) != nullptr) {
      if (std::strncmp(line, "AnonHugePages:", 14) == 0) { out = line + 14; }
    }
    std::fclose(f);
    return out;
  }

 private:
  /// Managed memory, populated three ways (the pages' CPU chunks, hence the GPU mappings, depend
  /// on which fault path allocates them): managed_host as the library allocates it (advised, then
  /// filled by the CPU); managed_gpu_fill (advised, then filled by a GPU kernel: pages allocated on
  /// GPU faults); managed_prefetch_fill (advised, prefetched to the host, then filled);
  /// managed_advise_after_fill (filled by the CPU first, advised afterwards).
  void* managed_allocate(const std::string& how)
  {
    if (how == "managed_advise_after_fill") {
      void* ptr = nullptr;
      GNNDIRECT_CUDA_TRY(cudaMallocManaged(&ptr, bytes_, cudaMemAttachGlobal));
      managed_raw_ = ptr;
      return ptr;
    }
    owned_ = gnndirect::buffer<std::byte>(bytes_, memory_kind::managed_host);
    if (how == "managed_prefetch_fill") {
      cudaMemLocation host{};
      host.type = cudaMemLocationTypeHost;
      GNNDIRECT_CUDA_TRY(cudaMemPrefetchAsync(owned_.host_data(), bytes_, host, 0, nullptr));
      GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(nullptr));
    }
    return owned_.host_data();
  }
  /// The library's managed_host advice: preferred location the host, accessed by device 0.
  static void advise_host_preferred(void* ptr, std::size_t bytes)
  {
    cudaMemLocation host{};
    host.type = cudaMemLocationTypeHost;
    cudaMemLocation gpu{};
    gpu.type = cudaMemLocationTypeDevice;
    gpu.id = 0;
    GNNDIRECT_CUDA_TRY(cudaMemAdvise(ptr, bytes, cudaMemAdviseSetPreferredLocation, host));
    GNNDIRECT_CUDA_TRY(cudaMemAdvise(ptr, bytes, cudaMemAdviseSetAccessedBy, gpu));
  }
  /// Pinned host memory from a CUDA memory pool (the VMM path), made accessible to device 0.
  void* pool_allocate(cudaMemLocationType type)
  {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = type;
    props.location.id = 0;
    props.maxSize = bytes_;
    GNNDIRECT_CUDA_TRY(cudaMemPoolCreate(&pool_, &props));
    cudaMemAccessDesc access{};
    access.location.type = cudaMemLocationTypeDevice;
    access.location.id = 0;
    access.flags = cudaMemAccessFlagsProtReadWrite;
    GNNDIRECT_CUDA_TRY(cudaMemPoolSetAccess(pool_, &access, 1));
    void* ptr = nullptr;
    GNNDIRECT_CUDA_TRY(cudaMallocFromPoolAsync(&ptr, bytes_, pool_, nullptr));
    GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(nullptr));
    return ptr;
  }
  /// Anonymous memory advised to transparent huge pages, 2-MiB aligned (pinned later).
  void* thp_allocate()
  {
    constexpr std::size_t huge = std::size_t{2} << 20;
    mapped_bytes_ = bytes_ + huge;
    mapped_ = mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped_ == MAP_FAILED) { throw std::runtime_error("alloc study: mmap failed"); }
    auto const base = (reinterpret_cast<std::uintptr_t>(mapped_) + huge - 1) & ~(huge - 1);
    void* aligned = reinterpret_cast<void*>(base);
    if (madvise(aligned, bytes_, MADV_HUGEPAGE) != 0) { std::fprintf(stderr, "alloc study: madvise(MADV_HUGEPAGE) failed\n"); }
    return aligned;
  }

  std::string how_;
  std::size_t bytes_;
  gnndirect::buffer<std::byte> owned_;
  gnndirect::host_registration registered_;
  cudaMemPool_t pool_{nullptr};
  void* managed_raw_{nullptr};  // managed_advise_after_fill's allocation (no owner type for it)
  void* mapped_{nullptr};
  std::size_t mapped_bytes_{0};
  void* data_{nullptr};
};

/// Compares the first rows of the last gather with the host's view of the study table, so that a
/// mis-mapped allocation cannot pass for a fast one. @throws std::runtime_error on a mismatch.
void check_last_rows(const study_table& t, const gnndirect::buffer<std::int64_t>& indices,
                     const gnndirect::buffer<float>& out, std::int64_t count, std::size_t row_bytes)
{
  std::int64_t const checked = std::min<std::int64_t>(count, 4096);
  std::vector<std::int64_t> idx(static_cast<std::size_t>(checked));
  std::vector<unsigned char> got(static_cast<std::size_t>(checked) * row_bytes);
  GNNDIRECT_CUDA_TRY(cudaMemcpy(idx.data(), indices.data(), idx.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  GNNDIRECT_CUDA_TRY(cudaMemcpy(got.data(), out.data(), got.size(), cudaMemcpyDeviceToHost));
  auto const* host = static_cast<const unsigned char*>(t.host_data());
  for (std::int64_t i = 0; i < checked; ++i) {
    if (std::memcmp(got.data() + i * row_bytes, host + idx[i] * row_bytes, row_bytes) != 0) {
      throw std::runtime_error("alloc study: " + t.how() + " gathered row " + std::to_string(idx[i]) +
                               " differs from the host's bytes");
    }
  }
}

std::unique_ptr<study_table>& study_table_slot()
{
  static std::unique_ptr<study_table> table;
  return table;
}

/// The allocation study's table `how` of --alloc-gib GiB (default 16), replacing
/// any other table first (one large table at a time).
study_table& alloc_table(const std::string& how)
{
  auto& table = study_table_slot();
  if (!table || table->how() != how) {
    table.reset();
    current_tables().reset();
    sparse_table_slot().reset();
    auto const bytes = static_cast<std::size_t>(options().alloc_gib * (1ull << 30));
    table = std::make_unique<study_table>(how, bytes);
    std::fprintf(stderr, "alloc study: %s %zu GiB, AnonHugePages %s", how.c_str(), bytes >> 30,
                 study_table::anon_huge_pages().c_str());
  }
  return *table;
}

/// 1M random rows of `row_bytes` gathered from the study table `how` with the default policy.
void bm_gather_alloc(benchmark::State& state, const std::string& key, const std::string& how, std::size_t row_bytes)
{
  study_table& t = alloc_table(how);
  std::int64_t const cols = static_cast<std::int64_t>(row_bytes / sizeof(float));
  std::int64_t const rows = static_cast<std::int64_t>(t.bytes() / row_bytes);
  std::int64_t const count = batch_rows(row_bytes);
  gnndirect::table_view<const float> const src(static_cast<const float*>(t.device_data()), rows, cols, cols, t.kind());
  gnndirect::buffer<float> out(static_cast<std::size_t>(count * cols), memory_kind::device);
  gnndirect::buffer<std::int64_t> indices(static_cast<std::size_t>(count), memory_kind::device);
  gnndirect::table_view<float> const dst(out.data(), count, cols, cols, memory_kind::device);
  gnndirect::gather_policy const policy;
  gnndirect::buffer<std::byte> ws(gnndirect::gather_workspace_bytes<std::int64_t>(count, rows, src.kind, row_bytes, policy),
                                  memory_kind::device);
  gb::event_timer timer;
  std::vector<double> times;
  std::uint64_t seed = 4242;
  for (auto _ : state) {
    gb::fill_random_indices(nullptr, indices.data(), count, rows, ++seed);
    timer.start(nullptr);
    gnndirect::gather_async(cudaStream_t{}, src, indices.data(), count, dst, {ws.data(), ws.bytes()}, policy);
    timer.stop(nullptr);
    times.push_back(timer.seconds());
    state.SetIterationTime(times.back());
  }
  gnndirect::gather_check(nullptr, {ws.data(), ws.bytes()}, rows);
  check_last_rows(t, indices, out, count, row_bytes);
  gb::record_rate(state, key, static_cast<double>(count) * row_bytes / gb::median(times) * 1e-9);
}

void register_alloc_study()
{
  for (const char* how : {"managed_host", "managed_gpu_fill", "managed_prefetch_fill", "managed_advise_after_fill",
                          "pinned", "host_pool", "host_numa_pool", "thp_registered"}) {
    for (std::size_t row_bytes : {64, 128, 512}) {
      std::string const key = std::string("gather_alloc/") + how + "/row_bytes:" + std::to_string(row_bytes);
      benchmark::RegisterBenchmark(key.c_str(), [=](benchmark::State& s) { bm_gather_alloc(s, key, how, row_bytes); })
        ->UseManualTime()->Iterations(11)->Unit(benchmark::kMillisecond);
    }
  }
}

/// fp32 input features of the codec sweep (pageable, filled once per width on all cores): a
/// smooth pseudo-random spread with differing column scales, so the affine codecs see real ranges.
std::vector<float>& codec_input(std::int64_t rows, std::int64_t cols)
{
  static std::vector<float> input;
  static std::int64_t shape[2] = {0, 0};
  if (shape[0] != rows || shape[1] != cols) {
    input.assign(static_cast<std::size_t>(rows * cols), 0.0f);
    gnndirect::host::parallel_for_ranges(rows, [&](std::int64_t b, std::int64_t e, int) {
      for (std::int64_t r = b; r < e; ++r) {
        for (std::int64_t c = 0; c < cols; ++c) {
          std::uint64_t const w = pattern_word(static_cast<std::uint64_t>(r * cols + c));
          float const u = static_cast<float>(w >> 40) / static_cast<float>(1u << 24) - 0.5f;
          input[r * cols + c] = u * static_cast<float>(1 + c % 7);
        }
      }
    });
    shape[0] = rows;
    shape[1] = cols;
  }
  return input;
}

/// Frees the codec sweep's current encoded table (null when none).
using release_fn = void (*)();
release_fn& codec_release()
{
  static release_fn release = nullptr;
  return release;
}

/// The encoded table of the sweep (one at a time: the previous is freed first).
template <class Codec>
gnndirect::encoded_table<Codec>& codec_table(std::int64_t rows, std::int64_t cols)
{
  static std::unique_ptr<gnndirect::encoded_table<Codec>> table;
  if (!table || table->rows() != rows || table->cols() != cols) {
    if (codec_release() != nullptr) { codec_release()(); }  // one encoded table at a time, any codec
    codec_release() = [] { table.reset(); };
    current_tables().reset();
    table = std::make_unique<gnndirect::encoded_table<Codec>>(codec_input(rows, cols).data(), rows, cols,
                                                              memory_kind::managed_host);
  }
  return *table;
}

/// One codec benchmark: decoded fp32 rows per second from host memory, zero-copy or CPU-centric.
/// `policy` is the gather's (default: the selector's); `variant` names a tuning variant (the
/// gather_codec_tune study), empty for the sweep.
template <class Codec>
void bm_gather_codec(benchmark::State& state, const std::string& codec_name, bool cpu_centric, std::int64_t cols,
                     const gnndirect::gather_policy& policy = {}, const std::string& variant = {})
{
  double const gib = options().codec_gib;
  std::int64_t const rows = static_cast<std::int64_t>(gib * (1ull << 30) / (cols * 4.0));
  auto& table = codec_table<Codec>(rows, cols);
  auto const view = table.view();
  std::int64_t const stride = table.stride_bytes();
  std::int64_t const count = batch_rows(static_cast<std::size_t>(cols) * 4);
  gnndirect::buffer<float> out(static_cast<std::size_t>(count * cols), memory_kind::device);
  gnndirect::table_view<float> const dst(out.data(), count, cols, cols, memory_kind::device);
  gnndirect::buffer<std::int64_t> indices(static_cast<std::size_t>(count), memory_kind::device);
  gnndirect::buffer<std::byte> ws(
    gnndirect::gather_workspace_bytes<std::int64_t>(count, rows, view.kind, static_cast<std::size_t>(view.load_bytes()), policy),
    memory_kind::device);
  using meta_type = typename Codec::meta_type;
  constexpr bool has_meta = !std::is_empty_v<meta_type>;
  // CPU-centric: pinned staging of codes (+ metadata), their device copies, identity indices.
  gnndirect::buffer<std::uint8_t> staging(cpu_centric ? static_cast<std::size_t>(count * stride) : 0, memory_kind::pinned);
  gnndirect::buffer<std::uint8_t> staged(cpu_centric ? static_cast<std::size_t>(count * stride) : 0, memory_kind::device);
  gnndirect::buffer<meta_type> meta_staging(cpu_centric && has_meta ? static_cast<std::size_t>(count) : 0, memory_kind::pinned);
  gnndirect::buffer<meta_type> meta_staged(cpu_centric && has_meta ? static_cast<std::size_t>(count) : 0, memory_kind::device);
  std::vector<std::int64_t> host_indices(cpu_centric ? static_cast<std::size_t>(count) : 0);
  std::vector<std::int64_t> iota(cpu_centric ? static_cast<std::size_t>(count) : 0);
  for (std::size_t i = 0; i < iota.size(); ++i) { iota[i] = static_cast<std::int64_t>(i); }
  gnndirect::buffer<std::int64_t> identity(iota.size(), memory_kind::device);
  if (cpu_centric) {
    GNNDIRECT_CUDA_TRY(cudaMemcpy(identity.data(), iota.data(), iota.size() * 8, cudaMemcpyHostToDevice));
  }
  auto const* host_codes = view.data;  // managed_host: the same address on the CPU
  gb::event_timer timer;
  std::vector<double> times;
  std::uint64_t seed = 777;
  for (auto _ : state) {
    gb::fill_random_indices(nullptr, indices.data(), count, rows, ++seed);
    double seconds = 0;
    if (cpu_centric) {
      GNNDIRECT_CUDA_TRY(cudaMemcpy(host_indices.data(), indices.data(), count * 8, cudaMemcpyDeviceToHost));
      auto const start = std::chrono::steady_clock::now();
      auto* codes_out = staging.host_data();
      auto* meta_out = meta_staging.host_data();
      const auto& host_meta = table.host_meta();
      gnndirect::host::parallel_for_ranges(count, [&](std::int64_t b, std::int64_t e, int) {
        for (std::int64_t i = b; i < e; ++i) {
          std::memcpy(codes_out + i * stride, host_codes + host_indices[i] * stride, static_cast<std::size_t>(stride));
          if constexpr (has_meta) { meta_out[i] = host_meta[static_cast<std::size_t>(host_indices[i])]; }
        }
      });
      GNNDIRECT_CUDA_TRY(cudaMemcpy(staged.data(), codes_out, staging.bytes(), cudaMemcpyHostToDevice));
      if constexpr (has_meta) {
        GNNDIRECT_CUDA_TRY(cudaMemcpy(meta_staged.data(), meta_out, meta_staging.bytes(), cudaMemcpyHostToDevice));
      }
      gnndirect::encoded_view<Codec> const staged_view{staged.data(), count, cols, stride, memory_kind::device,
                                                       meta_staged.data(), view.codec, stride};
      gnndirect::gather_async(cudaStream_t{}, staged_view, identity.data(), count, dst, {ws.data(), ws.bytes()}, policy);
      GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(nullptr));
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } else {
      timer.start(nullptr);
      gnndirect::gather_async(cudaStream_t{}, view, indices.data(), count, dst, {ws.data(), ws.bytes()}, policy);
      timer.stop(nullptr);
      seconds = timer.seconds();
    }
    state.SetIterationTime(seconds);
    times.push_back(seconds);
  }
  gnndirect::gather_check(nullptr, {ws.data(), ws.bytes()}, cpu_centric ? count : rows);
  double const t = gb::median(times);
  double const decoded = static_cast<double>(count) * cols * 4 / t * 1e-9;
  double const link = static_cast<double>(count) * stride / t * 1e-9;
  std::string const path = cpu_centric ? "cpu_centric" : "zero_copy";
  std::string const key = "codec/" + codec_name + "/" + path + "/" + std::to_string(cols) + variant;
  gb::record_rate(state, key, decoded, {"codec/fp32/" + path + "/" + std::to_string(cols)});
  auto const vs = state.counters.find("vs_codec/fp32/" + path + "/" + std::to_string(cols));
  if (vs != state.counters.end()) {
    state.counters["vs_fp32"] = vs->second;
    state.counters.erase(vs);
  }
  state.counters["decoded_GBps"] = decoded;
  state.counters["link_GBps"] = link;
  auto const peak = gb::results().find("link_peak");
  if (peak != gb::results().end() && peak->second > 0) {
    state.counters["decoded_x"] = decoded / peak->second;
    state.counters["link_x"] = link / peak->second;
  }
  state.counters["device_MB"] = static_cast<double>(table.device_bytes()) * 1e-6;
  state.counters["host_MB"] = static_cast<double>(table.host_bytes()) * 1e-6;
  state.counters["stride_bytes"] = static_cast<double>(stride);
  state.counters["rows"] = static_cast<double>(count);
}

template <class Codec>
void register_codec(const char* name, std::int64_t cols)
{
  for (bool cpu : {false, true}) {
    std::string const bench = std::string("gather_codec/") + name + "/" + (cpu ? "cpu_centric" : "zero_copy") +
                              "/cols:" + std::to_string(cols);
    benchmark::RegisterBenchmark(bench.c_str(), [=](benchmark::State& s) { bm_gather_codec<Codec>(s, name, cpu, cols); })
      ->UseManualTime()
      ->Iterations(cpu ? 5 : 11)
      ->Unit(benchmark::kMillisecond);
  }
}

void register_codec_sweep()
{
  namespace codecs = gnndirect::codecs;
  for (std::int64_t cols : {100, 128, 602}) {  // width outside: the fp32 input is generated once per width
    register_codec<codecs::fp32>("fp32", cols);  // first: every other codec's vs_fp32 refers to it
    register_codec<codecs::fp16>("fp16", cols);
    register_codec<codecs::bf16>("bf16", cols);
    register_codec<codecs::int8_affine>("int8_affine", cols);
    register_codec<codecs::fp8_e4m3>("fp8_e4m3", cols);
    register_codec<codecs::int4_affine>("int4_affine", cols);
  }
}

/// The tuning study (only when the filter names gather_codec_tune): the zero-copy decode of the
/// compact codecs at 128 and 602 features over tile size x rows in flight x block cap, to choose
/// the selector's defaults for encoded rows (H200, 2026-12-05: 602-feature int8/fp8/int4 rows
/// used 31-63% of the link with the defaults).
template <class Codec>
void register_codec_tune(const char* name)
{
  for (std::int64_t cols : {128, 602}) {
    for (int blocks : {32, 64, 132, 264}) {
      for (int tile : {8, 16, 32}) {
        for (int rows : {1, 2, 4}) {
          gnndirect::gather_policy policy{};
          policy.max_blocks = blocks;
          policy.tile_size = tile;
          policy.rows_in_flight = rows;
          std::string const variant =
            "/blocks:" + std::to_string(blocks) + "/tile:" + std::to_string(tile) + "/rows:" + std::to_string(rows);
          std::string const bench = std::string("gather_codec_tune/") + name + "/cols:" + std::to_string(cols) + variant;
          benchmark::RegisterBenchmark(bench.c_str(), [=](benchmark::State& s) {
            bm_gather_codec<Codec>(s, name, false, cols, policy, variant);
          })->UseManualTime()->Iterations(7)->Unit(benchmark::kMillisecond);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// gather_link: what each machine's link allows, and how close the gather and its selector come.

/// Sums a mapped pinned buffer with float4 loads, each thread striding over the whole grid: the
/// SMs' own sequential zero-copy read (the ceiling of any zero-copy gather, above or below the
/// copy engines' peak). `sink` is written only when the sum is a value no fill produces.
__global__ void stream_read_kernel(const float4* src, std::size_t count, float* sink)
{
  float4 acc{0, 0, 0, 0};
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    float4 const v = src[i];
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
  }
  if (acc.x == 1234.5f && acc.y == -1.0f) { *sink = acc.z + acc.w; }
}

/// The device's SM count.
int sm_count()
{
  return gnndirect::device_attribute(cudaDevAttrMultiProcessorCount, gnndirect::require_device());
}

/// Sequential zero-copy read of a 2 GiB pinned buffer by a full grid (SMs x 8 blocks of 256
/// threads), median of 7 reads after a warm-up, in GB/s; recorded as results()["zero_copy_peak"]
/// so that every later row reports it beside the copy engines' link_peak.
void bm_zero_copy_peak(benchmark::State& state)
{
  std::size_t const bytes = std::size_t{2} << 30;
  gnndirect::buffer<std::byte> host(bytes, memory_kind::pinned);
  gnndirect::buffer<float> sink(1, memory_kind::device);
  fill_pattern_kernel<<<1024, 256>>>(reinterpret_cast<std::uint64_t*>(host.data()), bytes / 8);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
  int const grid = sm_count() * 8;
  gb::event_timer timer;
  std::vector<double> times;
  stream_read_kernel<<<grid, 256>>>(reinterpret_cast<const float4*>(host.data()), bytes / 16, sink.data());  // warm-up
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  for (auto _ : state) {
    timer.start(nullptr);
    stream_read_kernel<<<grid, 256>>>(reinterpret_cast<const float4*>(host.data()), bytes / 16, sink.data());
    timer.stop(nullptr);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
    times.push_back(timer.seconds());
    state.SetIterationTime(times.back());
  }
  double const gbps = static_cast<double>(bytes) / gb::median(times) * 1e-9;
  gb::results()["zero_copy_peak"] = gbps;
  state.counters["GBps"] = gbps;
  auto const peak = gb::results().find("link_peak");
  if (peak != gb::results().end()) { state.counters["vs_link_peak"] = gbps / peak->second; }
}

/// One warp per row, float4 loads, rows written in the order given (the plain baseline of the
/// issue: with sorted indices and 256 x 256 blocks). `row_vecs`: float4 per row.
__global__ void warp_per_row_kernel(const float4* table, std::int64_t row_vecs, const std::int64_t* indices,
                                    std::int64_t count, float4* out)
{
  int const lane = static_cast<int>(threadIdx.x & 31u);
  std::int64_t const warps = (std::int64_t{gridDim.x} * blockDim.x) >> 5;
  for (std::int64_t i = (blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x) >> 5; i < count; i += warps) {
    const float4* src = table + indices[i] * row_vecs;
    float4* dst = out + i * row_vecs;
    for (std::int64_t v = lane; v < row_vecs; v += 32) { dst[v] = src[v]; }
  }
}

/// The link study's host tables: 16 GiB (--link-gib) in managed_host and in pinned memory. The
/// pinned table is filled by the GPU (its pages exist from the allocation: no layout to keep, and
/// a second instead of the CPU's several); the managed one on all host cores while the GPU fills
/// the other, because GPU faults would populate managed pages another way than callers do
/// (the gather_alloc study's managed_gpu_fill) and so measure another table.
struct link_table {
  std::size_t bytes{0};
  gnndirect::buffer<std::byte> managed, pinned;
  explicit link_table(std::size_t size)
    : bytes(size), managed(size, memory_kind::managed_host), pinned(size, memory_kind::pinned)
  {
    fill_pattern_kernel<<<4096, 256>>>(reinterpret_cast<std::uint64_t*>(pinned.data()), size / 8);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
    fill_pattern(managed.host_data(), size);
    GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
  }
};

std::unique_ptr<link_table>& link_table_slot()
{
  static std::unique_ptr<link_table> table;
  return table;
}

link_table& link_tables()
{
  auto& t = link_table_slot();
  if (!t) {
    current_tables().reset();
    sparse_table_slot().reset();
    t = std::make_unique<link_table>(static_cast<std::size_t>(options().link_gib * (1ull << 30)));
  }
  return *t;
}

/// How a link-study row gathers: gnndirect with a policy (the selector fills its zero fields),
/// gnndirect with the policy the selector resolves for this machine's measured ceilings
/// (gnndirect_tuned), gnndirect on indices sorted beforehand with order none (the kernel alone),
/// or the plain warp-per-row kernel.
enum class link_method { gnndirect, gnndirect_tuned, gnndirect_presorted, warp_per_row };

/// This device with its measured ceilings (measured_machine_ceilings: once per process).
const gnndirect::gather_device& tuned_device()
{
  static gnndirect::gather_device const device =
    gnndirect::query_gather_device(gnndirect::measured_machine_ceilings(nullptr));
  return device;
}

/// The selector's policy for `kind` rows of `row_bytes` in batches of `count`: on this device with
/// its measured ceilings when `tuned`, else on an unknown device (what a plain gather_async gets).
gnndirect::gather_policy selected_policy(gnndirect::gather_policy requested, memory_kind kind, std::size_t row_bytes,
                                         std::int64_t count, bool tuned)
{
  return gnndirect::select_gather_policy(requested, tuned ? tuned_device() : gnndirect::gather_device{},
                                         gnndirect::gather_source{kind, row_bytes, count, 1});
}

/// The machine's ceilings (measure_machine_ceilings) and, per placement and row size, what the
/// selector chooses with them and without (printed: the policy per source). Named link_peak_*
/// so that every filter naming link_peak runs it.
void bm_link_ceilings(benchmark::State& state)
{
  for (auto _ : state) { state.SetIterationTime(1e-3); }
  auto const& device = tuned_device();
  std::cout << "\n" << device << "\n";
  for (memory_kind kind : {memory_kind::managed_host, memory_kind::pinned, memory_kind::device}) {
    for (std::size_t row_bytes : {128, 512, 2048}) {
      std::int64_t const count = batch_rows(row_bytes);
      std::cout << "  " << gnndirect::to_string(kind) << " " << row_bytes << " B x " << count << ": default "
                << selected_policy({}, kind, row_bytes, count, false) << "\n    tuned   "
                << selected_policy({}, kind, row_bytes, count, true) << "\n";
    }
  }
  state.counters["zero_copy_read_GBps"] = device.ceilings.zero_copy_read_gbps;
  state.counters["copy_engine_GBps"] = device.ceilings.copy_engine_gbps;
  state.counters["saturating_loads"] = static_cast<double>(device.ceilings.saturating_loads_in_flight);
  state.counters["tuned_blocks_512"] =
    selected_policy({}, memory_kind::managed_host, 512, batch_rows(512), true).max_blocks;
}

/// `count` random rows of `row_bytes` (fresh indices every iteration) from the study's table in
/// `kind`; the sort of presorted methods is not timed. GB/s of gathered rows (median).
void bm_gather_link(benchmark::State& state, const std::string& key, memory_kind kind, std::size_t row_bytes,
                    link_method method, gnndirect::gather_policy policy, int plain_blocks = 256)
{
  link_table& t = link_tables();
  const void* const table = kind == memory_kind::pinned ? t.pinned.data() : t.managed.data();
  std::int64_t const cols = static_cast<std::int64_t>(row_bytes / sizeof(float));
  std::int64_t const rows = static_cast<std::int64_t>(t.bytes / row_bytes);
  std::int64_t const count = batch_rows(row_bytes);
  gnndirect::table_view<const float> const src(static_cast<const float*>(table), rows, cols, cols, kind);
  gnndirect::buffer<float> out(static_cast<std::size_t>(count * cols), memory_kind::device);
  gnndirect::buffer<std::int64_t> indices(static_cast<std::size_t>(count), memory_kind::device);
  gnndirect::buffer<std::int64_t> sorted(static_cast<std::size_t>(count), memory_kind::device);
  gnndirect::table_view<float> const dst(out.data(), count, cols, cols, memory_kind::device);
  if (method == link_method::gnndirect_presorted) { policy.order = gnndirect::locality_order::none; }
  if (method == link_method::gnndirect_tuned) { policy = selected_policy(policy, kind, row_bytes, count, true); }
  gnndirect::buffer<std::byte> ws(gnndirect::gather_workspace_bytes<std::int64_t>(count, rows, kind, row_bytes, policy),
                                  memory_kind::device);
  int key_bits = 1;  // the table's significant index bits: the sort looks at no more
  while (key_bits < 63 && (std::int64_t{1} << key_bits) < rows) { ++key_bits; }
  std::size_t sort_bytes = 0;
  GNNDIRECT_CUDA_TRY(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, indices.data(), sorted.data(), count));
  gnndirect::buffer<std::byte> sort_temp(std::max<std::size_t>(sort_bytes, 1), memory_kind::device);
  gb::event_timer timer;
  std::vector<double> times;
  std::uint64_t seed = 4242;
  for (auto _ : state) {
    gb::fill_random_indices(nullptr, indices.data(), count, rows, ++seed);
    const std::int64_t* ids = indices.data();
    if (method != link_method::gnndirect) {
      GNNDIRECT_CUDA_TRY(cub::DeviceRadixSort::SortKeys(sort_temp.data(), sort_bytes, indices.data(), sorted.data(),
                                                        count, 0, key_bits));
      ids = sorted.data();
    }
    timer.start(nullptr);
    if (method == link_method::warp_per_row) {
      warp_per_row_kernel<<<plain_blocks, 256>>>(static_cast<const float4*>(table),
                                                 static_cast<std::int64_t>(row_bytes / 16), ids, count,
                                                 reinterpret_cast<float4*>(out.data()));
      GNNDIRECT_CUDA_TRY(cudaGetLastError());
    } else {
      gnndirect::gather_async(cudaStream_t{}, src, ids, count, dst, {ws.data(), ws.bytes()}, policy);
    }
    timer.stop(nullptr);
    times.push_back(timer.seconds());
    state.SetIterationTime(times.back());
  }
  if (method != link_method::warp_per_row) { gnndirect::gather_check(nullptr, {ws.data(), ws.bytes()}, rows); }
  double const gbps = static_cast<double>(count) * static_cast<double>(row_bytes) / gb::median(times) * 1e-9;
  std::string const base = std::string(gnndirect::to_string(kind)) + "/" + std::to_string(row_bytes) + "/";
  gb::record_rate(state, key, gbps, {base + "warp_per_row"});
  auto it = state.counters.find("vs_" + base + "warp_per_row");
  if (it != state.counters.end()) {
    state.counters["vs_warp_per_row"] = it->second;
    state.counters.erase(it);
  }
  if (method != link_method::warp_per_row) {  // what the selector made of the policy
    auto const resolved = selected_policy(policy, kind, row_bytes, count, false);  // explicit when tuned
    state.counters["blocks"] = resolved.max_blocks;
    state.counters["tile"] = resolved.tile_size;
    state.counters["rows_in_flight"] = resolved.rows_in_flight;
  } else {
    state.counters["blocks"] = plain_blocks;
  }
  state.counters["rows"] = static_cast<double>(count);
}

/// The link study (only when the filter names gather_link): both peaks, then for managed_host and
/// pinned tables of --link-gib GiB at 128, 512 and 2048-B rows: the plain warp-per-row kernel
/// (first: the others' vs_warp_per_row), gnndirect's defaults, gnndirect on presorted indices,
/// and the selector sweep block cap x rows in flight x tile (the selector's tile and twice it).
/// Names: gather_link/<placement>/row_bytes:<R>/<method or blocks:B/rows:F/tile:T>.
void register_link_study()
{
  int const sms = gnndirect::device_count() > 0 ? sm_count() : 132;  // listing needs no GPU
  for (memory_kind kind : {memory_kind::managed_host, memory_kind::pinned}) {
    for (std::size_t row_bytes : {128, 512, 2048}) {
      std::string const prefix = std::string("gather_link/") + std::string(gnndirect::to_string(kind)) +
                                 "/row_bytes:" + std::to_string(row_bytes) + "/";
      std::string const base = std::string(gnndirect::to_string(kind)) + "/" + std::to_string(row_bytes) + "/";
      auto add = [&](const std::string& name, const std::string& key, link_method method,
                     gnndirect::gather_policy policy, int plain_blocks = 256) {
        benchmark::RegisterBenchmark((prefix + name).c_str(), [=](benchmark::State& s) {
          bm_gather_link(s, key, kind, row_bytes, method, policy, plain_blocks);
        })->UseManualTime()->Iterations(7)->Unit(benchmark::kMillisecond);
      };
      add("warp_per_row", base + "warp_per_row", link_method::warp_per_row, {});
      add("warp_per_row_full", base + "warp_per_row_full", link_method::warp_per_row, {}, sms * 8);
      add("gnndirect", base + "gnndirect", link_method::gnndirect, {});
      add("gnndirect_tuned", base + "gnndirect_tuned", link_method::gnndirect_tuned, {});
      add("gnndirect_presorted", base + "gnndirect_presorted", link_method::gnndirect_presorted, {});
      int const tile = selected_policy({}, kind, row_bytes, 1 << 20, false).tile_size;
      std::vector<int> tiles{tile};
      if (2 * tile <= 32) { tiles.push_back(2 * tile); }  // no tile wider than a warp
      for (int blocks : {32, 64, 128, 256, sms * 4, sms * 8}) {
        for (int rows_in_flight : {1, 2, 4}) {
          for (int t : tiles) {
            gnndirect::gather_policy policy{};
            policy.max_blocks = blocks;
            policy.rows_in_flight = rows_in_flight;
            policy.tile_size = t;
            std::string const name = "blocks:" + std::to_string(blocks) + "/rows:" + std::to_string(rows_in_flight) +
                                     "/tile:" + std::to_string(t);
            add(name, base + name, link_method::gnndirect, policy);
          }
        }
      }
    }
  }
}

void register_all()
{
  benchmark::RegisterBenchmark("link_peak", bm_link_peak)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
  // Named so that every filter naming link_peak runs it too: each later row reports both peaks.
  benchmark::RegisterBenchmark("link_peak_zero_copy", bm_zero_copy_peak)
    ->UseManualTime()->Iterations(7)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("link_peak_ceilings", bm_link_ceilings)
    ->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("device_copy", bm_device_copy)->UseManualTime()->Iterations(9)->Unit(benchmark::kMillisecond);
  for (std::size_t table_bytes : table_sizes()) {
    for (std::size_t row_bytes : {64, 128, 256, 400, 512, 1024, 2408, 4096}) {
      for (const path& p : paths()) {
        std::string const name = std::string("gather/") + p.name + "/table_MiB:" +
                                 std::to_string(table_bytes >> 20) + "/row_bytes:" + std::to_string(row_bytes);
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) { bm_gather(s, p, table_bytes, row_bytes); })
          ->UseManualTime()
          ->Iterations(p.cpu_centric ? 5 : 11)
          ->Unit(benchmark::kMillisecond);
      }
    }
  }
  // The studies are large (up to a 53 GiB table): only when the filter names them.
  if (filter_names("gather64")) { register_study64(); }
  if (filter_names("gather_sparse")) { register_sparse_study(); }
  if (filter_names("gather_alloc")) { register_alloc_study(); }
  if (filter_names("gather_link")) { register_link_study(); }
  register_codec_sweep();
  if (filter_names("gather_codec_tune")) {
    namespace codecs = gnndirect::codecs;
    register_codec_tune<codecs::int8_affine>("int8_affine");
    register_codec_tune<codecs::fp8_e4m3>("fp8_e4m3");
    register_codec_tune<codecs::int4_affine>("int4_affine");
  }
}

/// Frees the tables before main returns (CUDA must still be alive).
void release_tables()
{
  current_tables().reset();
  if (codec_release() != nullptr) { codec_release()(); }
  sparse_table_slot().reset();
  study_table_slot().reset();
  link_table_slot().reset();
}

}  // namespace

int main(int argc, char** argv)
{
  parse_options(argc, argv);
  if (options().help) {  // Google Benchmark's own options follow ours (it prints them and exits 0)
    benchmark::Initialize(&argc, argv);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  // Listing (--benchmark_list_tests) registers no table and runs nothing: it needs no GPU.
  if (gnndirect::device_count() == 0 && !options().listing) {
    std::fprintf(stderr, "bench_gather: no CUDA device; benchmarks need an NVIDIA GPU\n");
    return 1;
  }
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  release_tables();
  benchmark::Shutdown();
  return 0;
}
