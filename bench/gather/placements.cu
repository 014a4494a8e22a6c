// bench_gather's sweep (gather/PATH/table_MiB:T/row_bytes:R: the paths of base.cuh's comment over
// --tables and 8 row sizes, always registered) and the 64-byte-row study.
//
// gather64 is the 64-byte-row study (gather64/...): what limits small rows
// from host memory, one knob at a time on managed_host, on a 256 MiB and a 16 GiB table:
//   translation   the same pattern on both tables (the small one's pages stay in the GPU's TLBs)
//   request rate  rows in flight per tile, threads per row, block budget (8 to a full grid)
//   partial lines paired: each 64-B row's 128-B line partner is the next index, so every line
//                 read over the link is used whole (same bytes, half the lines of random rows)
//   locality      unsorted (caller order) against the selector's sorted order
#include "base.cuh"

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/reference/gather_reference.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gnndirect::bench::gather {
namespace {

namespace gb = gnndirect::bench;

/// A data path of the sweep: where the table lives and the policy overrides.
struct path {
  const char* name;
  memory_kind source;          ///< kind of the source view (cpu_centric: plain host memory)
  bool cpu_centric;            ///< host gather + copy instead of a GPU gather
  gnndirect::gather_policy policy;
};

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
  for (const char* base : baseline_names) { rename_counter(state, "vs_" + key + base, std::string("vs_") + base); }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * count * static_cast<std::int64_t>(row_bytes));
  state.counters["rows"] = static_cast<double>(count);
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
}  // namespace

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

void register_sweep()
{
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
}

}  // namespace gnndirect::bench::gather
