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
#include "base.cuh"

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/device/codecs.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/encoded_table.hpp>
#include <gnndirect/util/parallel.hpp>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace gnndirect::bench::gather {
namespace {

namespace gb = gnndirect::bench;

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
  rename_counter(state, "vs_codec/fp32/" + path + "/" + std::to_string(cols), "vs_fp32");
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
}  // namespace

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

void register_codec_tune_study()
{
  namespace codecs = gnndirect::codecs;
  register_codec_tune<codecs::int8_affine>("int8_affine");
  register_codec_tune<codecs::fp8_e4m3>("fp8_e4m3");
  register_codec_tune<codecs::int4_affine>("int4_affine");
}

void release_codec_tables()
{
  if (codec_release() != nullptr) { codec_release()(); }
}

}  // namespace gnndirect::bench::gather
