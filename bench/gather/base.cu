// bench_gather's shared part: options, the pattern the tables hold, the sweep's tables, and the
// peaks every row is compared with (see base.cuh).
#include "base.cuh"

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/util/parallel.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace gnndirect::bench::gather {

namespace gb = gnndirect::bench;

gather_options& options()
{
  static gather_options o;
  return o;
}

namespace {

constexpr char const* usage_text =
  "usage: bench_gather [--tables GIB,GIB,...] [--sparse-gib GIB] [--alloc-gib GIB] [--codec-gib GIB] [--link-gib GIB]\n"
  "                    [Google Benchmark options, e.g. --benchmark_filter=REGEX]\n"
  "Random row gathers from host memory, path by path (see bench/gather/base.cuh).\n"
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

/// fill_pattern's words, written by the GPU.
__global__ void fill_pattern_kernel(std::uint64_t* words, std::size_t count)
{
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    words[i] = pattern_word(i);
  }
}

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

/// Sequential zero-copy read of a 2 GiB pinned buffer by a full grid (SMs x 8 blocks of 256
/// threads), median of 7 reads after a warm-up, in GB/s; recorded as results()["zero_copy_peak"]
/// so that every later row reports it beside the copy engines' link_peak.
void bm_zero_copy_peak(benchmark::State& state)
{
  std::size_t const bytes = std::size_t{2} << 30;
  gnndirect::buffer<std::byte> host(bytes, memory_kind::pinned);
  gnndirect::buffer<float> sink(1, memory_kind::device);
  fill_pattern_gpu(host.data(), bytes);
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

}  // namespace

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

bool filter_names(const char* study)
{
  return options().filter.find(study) != std::string::npos;
}

gnndirect::gather_policy with(void (*edit)(gnndirect::gather_policy&))
{
  gnndirect::gather_policy p;
  edit(p);
  return p;
}

void fill_pattern(void* dst, std::size_t bytes)
{
  gnndirect::host::parallel_for_ranges(static_cast<std::int64_t>(bytes / 8), [dst](std::int64_t b, std::int64_t e, int) {
    auto* words = static_cast<std::uint64_t*>(dst);
    for (std::int64_t i = b; i < e; ++i) { words[i] = pattern_word(static_cast<std::uint64_t>(i)); }
  });
}

void fill_pattern_gpu(void* dst, std::size_t bytes, int blocks)
{
  fill_pattern_kernel<<<blocks, 256>>>(static_cast<std::uint64_t*>(dst), bytes / 8);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
}

table_set::table_set(std::size_t size)
  : bytes(size), device(size, memory_kind::device), pinned(size, memory_kind::pinned),
    managed(size, memory_kind::managed_host), plain(new unsigned char[size])
{
  fill_pattern(pinned.host_data(), size);
  fill_pattern(managed.host_data(), size);
  fill_pattern(plain.get(), size);
  GNNDIRECT_CUDA_TRY(cudaMemcpy(device.data(), pinned.host_data(), size, cudaMemcpyHostToDevice));
  registered = gnndirect::host_registration(plain.get(), size);
}

std::unique_ptr<table_set>& current_tables()
{
  static std::unique_ptr<table_set> current;
  return current;
}

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

std::int64_t batch_rows(std::size_t row_bytes)
{
  return std::min<std::int64_t>(1 << 20, (std::int64_t{512} << 20) / static_cast<std::int64_t>(row_bytes));
}

int sm_count()
{
  return gnndirect::device_attribute(cudaDevAttrMultiProcessorCount, gnndirect::require_device());
}

void rename_counter(benchmark::State& state, const std::string& from, const std::string& to)
{
  auto const it = state.counters.find(from);
  if (it != state.counters.end()) {
    state.counters[to] = it->second;
    state.counters.erase(it);
  }
}

void register_peaks()
{
  benchmark::RegisterBenchmark("link_peak", bm_link_peak)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
  // Named so that every filter naming link_peak runs it too: each later row reports both peaks.
  benchmark::RegisterBenchmark("link_peak_zero_copy", bm_zero_copy_peak)
    ->UseManualTime()->Iterations(7)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("link_peak_ceilings", bm_link_ceilings)
    ->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("device_copy", bm_device_copy)->UseManualTime()->Iterations(9)->Unit(benchmark::kMillisecond);
}

}  // namespace gnndirect::bench::gather
