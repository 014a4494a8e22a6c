// gather_sparse is the sparse-gather study (gather_sparse/...): 512-B rows as the
// papers100M demo gathers them (about 130K rows per batch from a 53 GiB table, so nearly every
// row lies on a page of its own), managed_host only, the default policy unless named:
//   span          the same 131072 rows drawn from the first 4 or 16 GiB or the whole table
//   rows          1M rows per gather instead of 131072 (denser pages)
//   blocks        the block cap: 32 (the selector's), 64, 128, 256, a full grid
//   streams       1, 2, 4 or 6 gathers at once, each on its own stream (as pipeline workers)
// --sparse-gib sets the table size in GiB (default 53).
#include "base.cuh"

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/cuda_handles.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace gnndirect::bench::gather {
namespace {

namespace gb = gnndirect::bench;

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
}  // namespace

// On the GPU machine's largest table.
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

}  // namespace gnndirect::bench::gather
