// gather_link/...: bench_gather's link study (issue #44: what each machine's link allows, and how
// close the gather and its selector come), registered when the filter names it: on --link-gib
// GiB tables (default 16) in managed_host (filled on the host cores, as callers fill it) and
// pinned memory (filled by the GPU), at 128, 512 and 2048-B rows:
// warp_per_row (a plain one-warp-per-row kernel, float4 loads, indices sorted untimed, 256
// blocks of 256 threads; warp_per_row_full: a full grid), gnndirect
// (the selector's defaults, its sort timed), gnndirect_tuned (the policy the selector resolves
// for this machine's measured ceilings, measured_machine_ceilings; link_peak_ceilings prints the
// ceilings and both policies per placement and row size), gnndirect_presorted (the same presorted indices,
// order none: the row kernel alone) and the selector sweep blocks:B/rows:F/tile:T (B in 32, 64,
// 128, 256, SMs x 4, SMs x 8; F in 1, 2, 4; T the selector's tile and twice it). Counters:
// vs_warp_per_row, and the resolved blocks, tile, rows_in_flight.
#include "base.cuh"

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/algorithms/machine_ceilings.cuh>
#include <gnndirect/core/gather_tuning.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace gnndirect::bench::gather {
namespace {

namespace gb = gnndirect::bench;

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
    fill_pattern_gpu(pinned.data(), size, 4096);
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
  rename_counter(state, "vs_" + base + "warp_per_row", "vs_warp_per_row");
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
}  // namespace

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

void release_link_tables() { link_table_slot().reset(); }

}  // namespace gnndirect::bench::gather
