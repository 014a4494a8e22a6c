// GPU tests of gather/scatter against the host reference on fresh random data, outputs poisoned
// first and guarded against writes past their end.
#include <doctest/doctest.h>

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/reference/gather_reference.hpp>

#include "support/placed_table.hpp"
#include "support/random.hpp"
#include "support/transfer.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using gnndirect::gather_policy;
using gnndirect::locality_order;
using gnndirect::memory_kind;
using gnndirect::table_view;
using gnndirect::test::placed_table;

namespace {

using gnndirect::test::to_buffer;
using gnndirect::test::to_host;

constexpr unsigned char poison = 0xCD;
constexpr std::int64_t guard_rows = 3;

struct alignas(16) sixteen_bytes {
  std::uint32_t words[4];
};

constexpr memory_kind all_kinds[] = {memory_kind::device, memory_kind::pinned, memory_kind::registered,
                                     memory_kind::managed_host};

bool quick() { return std::getenv("GNNDIRECT_TEST_QUICK") != nullptr; }

/// A device output of `count` rows plus guard rows, all poisoned.
template <class T>
struct poisoned_output {
  gnndirect::buffer<T> storage;
  std::int64_t count, cols;
  poisoned_output(std::int64_t count_, std::int64_t cols_)
    : storage(static_cast<std::size_t>((count_ + guard_rows) * cols_), memory_kind::device), count(count_), cols(cols_)
  {
    gnndirect::test::fill_bytes(storage.data(), poison, storage.bytes());
  }
  table_view<T> view() const { return {storage.data(), count, cols, cols, memory_kind::device}; }
  std::vector<unsigned char> read() const
  {
    std::vector<unsigned char> out(storage.bytes());
    GNNDIRECT_CUDA_TRY(cudaMemcpy(out.data(), storage.data(), out.size(), cudaMemcpyDeviceToHost));
    return out;
  }
};

/// Expected output bytes: the reference gather into a poisoned host copy of the same shape.
template <class T, class Index>
std::vector<unsigned char> expected_gather(const std::vector<unsigned char>& table_bytes, std::int64_t rows,
                                           std::int64_t cols, const std::vector<Index>& indices)
{
  auto const count = static_cast<std::int64_t>(indices.size());
  std::vector<unsigned char> out(static_cast<std::size_t>((count + guard_rows) * cols) * sizeof(T), poison);
  gnndirect::host::gather_reference(
    table_view<const T>(reinterpret_cast<const T*>(table_bytes.data()), rows, cols, cols, memory_kind::pinned),
    indices.data(), count, table_view<T>(reinterpret_cast<T*>(out.data()), count, cols, cols, memory_kind::device));
  return out;
}

/// The policy variant used for the n-th case: cycles through defaults and every knob.
gather_policy policy_variant(int n)
{
  gather_policy p;
  switch (n % 6) {
    case 1: p.order = locality_order::sorted; break;
    case 2: p.align_128 = false; break;
    case 3: p.max_blocks = 32; break;
    case 4: p.tile_size = 32; p.rows_in_flight = 1; break;
    case 5: p.check_indices = false; p.order = locality_order::none; break;
    default: break;
  }
  return p;
}

template <class T, class Index>
int run_gather_matrix(std::mt19937_64& rng, memory_kind kind, int variant)
{
  int cases = 0;
  std::vector<std::size_t> const row_sizes{1, 3, 4, 60, 64, 100, 128, 400, 512, 2408, 4096, 10000};
  std::vector<std::int64_t> const batches =
    quick() ? std::vector<std::int64_t>{0, 1, 33, 1000} : std::vector<std::int64_t>{0, 1, 31, 32, 33, 100000};
  for (std::size_t row_bytes : row_sizes) {
    if (row_bytes % sizeof(T) != 0) { continue; }
    std::int64_t const cols = static_cast<std::int64_t>(row_bytes / sizeof(T));
    std::int64_t const rows = 1 + static_cast<std::int64_t>(rng() % 3000);
    placed_table<T> src(kind, rows, cols);
    std::vector<unsigned char> const table_bytes = gnndirect::test::random_bytes(rng, src.owner.bytes());
    src.fill(table_bytes.data());
    for (std::int64_t count : batches) {
      if (count * static_cast<std::int64_t>(row_bytes) > (std::int64_t{256} << 20)) { count = (std::int64_t{256} << 20) / row_bytes; }
      CAPTURE(row_bytes);
      CAPTURE(count);
      CAPTURE(variant);
      std::vector<Index> indices = gnndirect::test::random_indices<Index>(rng, count, rows);
      if (variant % 2 == 1) { std::sort(indices.begin(), indices.end()); }  // caller-sorted input
      auto const device_indices = to_buffer(indices);
      poisoned_output<T> out(count, cols);
      gnndirect::gather(cudaStream_t{}, src.view(), device_indices.data(), count, out.view(),
                        policy_variant(variant));
      bool const same = out.read() == expected_gather<T>(table_bytes, rows, cols, indices);
      CHECK(same);
      ++variant;
      ++cases;
    }
  }
  return cases;
}

template <class T>
int run_gather_matrix_for_type(std::mt19937_64& rng)
{
  int cases = 0;
  for (memory_kind kind : all_kinds) {
    CAPTURE(gnndirect::to_string(kind));
    cases += run_gather_matrix<T, std::int32_t>(rng, kind, cases);
    cases += run_gather_matrix<T, std::int64_t>(rng, kind, cases + 1);
  }
  return cases;
}

}  // namespace

TEST_CASE("gather equals the host reference: placement x element size x index type x row size x batch")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  int cases = 0;
  SUBCASE("1-byte elements") { cases = run_gather_matrix_for_type<std::uint8_t>(rng); }
  SUBCASE("2-byte elements") { cases = run_gather_matrix_for_type<std::uint16_t>(rng); }
  SUBCASE("4-byte elements") { cases = run_gather_matrix_for_type<float>(rng); }
  SUBCASE("8-byte elements") { cases = run_gather_matrix_for_type<std::int64_t>(rng); }
  SUBCASE("16-byte elements") { cases = run_gather_matrix_for_type<sixteen_bytes>(rng); }
  MESSAGE("gather cases run: " << cases);
  CHECK(cases > 0);
}

namespace {

/// Where each narrow feature type's table lives and its row stride (elements): one placement each.
template <class T>
struct narrow_table;
template <>
struct narrow_table<__half> {
  static constexpr memory_kind kind = memory_kind::managed_host;
  static constexpr std::int64_t stride = 53;
};
template <>
struct narrow_table<__nv_bfloat16> {
  static constexpr memory_kind kind = memory_kind::pinned;
  static constexpr std::int64_t stride = 64;
};
template <>
struct narrow_table<std::int8_t> {
  static constexpr memory_kind kind = memory_kind::registered;
  static constexpr std::int64_t stride = 37;
};

}  // namespace

TEST_CASE_TEMPLATE("gather of fp16, bf16 and int8 features, strided and misaligned views", T, __half, __nv_bfloat16,
                   std::int8_t)
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::int64_t const rows = 777, stride = narrow_table<T>::stride, count = 5000;
  placed_table<T> src(narrow_table<T>::kind, rows, stride);
  std::vector<unsigned char> const bytes = gnndirect::test::random_bytes(rng, src.owner.bytes());
  src.fill(bytes.data());
  auto const indices = gnndirect::test::random_indices<std::int32_t>(rng, count, rows - 1);
  auto const device_indices = to_buffer(indices);

  // The whole table (rows as wide as the stride).
  poisoned_output<T> whole(count, stride);
  gnndirect::gather(cudaStream_t{}, src.view(), device_indices.data(), count, whole.view());
  CHECK(whole.read() == expected_gather<T>(bytes, rows, stride, indices));

  // A strided view that starts one element in, 3 columns narrower than its stride: only
  // one-element vectors are legal.
  std::int64_t const cols = stride - 3;
  table_view<const T> const view(src.view().data + 1, rows - 1, cols, stride, narrow_table<T>::kind);
  poisoned_output<T> out(count, cols);
  gnndirect::gather(cudaStream_t{}, view, device_indices.data(), count, out.view());
  std::vector<unsigned char> expected(out.storage.bytes(), poison);
  gnndirect::host::gather_reference(
    table_view<const T>(reinterpret_cast<const T*>(bytes.data()) + 1, rows - 1, cols, stride, memory_kind::pinned),
    indices.data(), count, table_view<T>(reinterpret_cast<T*>(expected.data()), count, cols, cols, memory_kind::device));
  CHECK(out.read() == expected);
}

TEST_CASE("bad indices: exception names the first bad position, nothing out of bounds, context usable")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  for (memory_kind kind : all_kinds) {
    for (locality_order order : {locality_order::none, locality_order::sorted}) {
      CAPTURE(gnndirect::to_string(kind));
      CAPTURE(static_cast<int>(order));
      std::int64_t const rows = 500, cols = 40, count = 10000;
      placed_table<float> src(kind, rows, cols);
      std::vector<unsigned char> const bytes = gnndirect::test::random_bytes(rng, src.owner.bytes());
      src.fill(bytes.data());
      auto indices = gnndirect::test::random_indices<std::int64_t>(rng, count, rows);
      indices[7000] = rows;          // too large, later position
      indices[4321] = -5;            // negative, first bad position
      indices[9000] = std::int64_t{1} << 40;
      auto const device_indices = to_buffer(indices);
      poisoned_output<float> out(count, cols);
      gather_policy policy;
      policy.order = order;
      try {
        gnndirect::gather(cudaStream_t{}, src.view(), device_indices.data(), count, out.view(), policy);
        FAIL("expected index_out_of_range");
      } catch (const gnndirect::index_out_of_range& e) {
        CHECK(e.position() == 4321);
        CHECK(e.value() == -5);
        CHECK(std::string(e.what()).find("indices[4321] = -5 is out of range [0, 500)") != std::string::npos);
      }
      // Rows with good indices are right; rejected rows are zero; guard rows untouched.
      std::vector<unsigned char> const got = out.read();
      std::size_t const row_bytes = cols * sizeof(float);
      std::size_t wrong = 0;
      for (std::int64_t i = 0; i < count; ++i) {
        const unsigned char* row = got.data() + i * row_bytes;
        bool const bad = indices[i] < 0 || indices[i] >= rows;
        if (bad) {
          for (std::size_t b = 0; b < row_bytes; ++b) { wrong += row[b] != 0; }
        } else {
          wrong += std::memcmp(row, bytes.data() + indices[i] * row_bytes, row_bytes) != 0;
        }
      }
      for (std::size_t b = count * row_bytes; b < got.size(); ++b) { wrong += got[b] != poison; }
      CHECK(wrong == 0);
      CHECK(cudaGetLastError() == cudaSuccess);
      indices[4321] = indices[7000] = indices[9000] = 0;
      auto const good_indices = to_buffer(indices);
      CHECK_NOTHROW(gnndirect::gather(cudaStream_t{}, src.view(), good_indices.data(), count, out.view(), policy));
    }
  }
}

TEST_CASE("shape and argument errors are raised before any launch")
{
  placed_table<float> src(memory_kind::device, 10, 4);
  poisoned_output<float> out(5, 4);
  gnndirect::buffer<std::int32_t> indices(5, memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemset(indices.data(), 0, indices.bytes()));
  cudaStream_t const s{};
  CHECK_THROWS_WITH_AS(gnndirect::gather(s, src.view(), indices.data(), 4, out.view()),
                       doctest::Contains("dst has 5 rows but 4 indices"), gnndirect::invalid_argument);
  poisoned_output<float> narrow(5, 3);
  CHECK_THROWS_WITH_AS(gnndirect::gather(s, src.view(), indices.data(), 5, narrow.view()),
                       doctest::Contains("columns"), gnndirect::invalid_argument);
  CHECK_THROWS_AS(gnndirect::gather(s, src.view(), static_cast<const std::int32_t*>(nullptr), 5, out.view()),
                  gnndirect::invalid_argument);
  gather_policy bad;
  bad.tile_size = 3;
  CHECK_THROWS_AS(gnndirect::gather(s, src.view(), indices.data(), 5, out.view(), bad), gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::gather_async(s, src.view(), indices.data(), 5, out.view(),
                                               gnndirect::workspace_view{out.storage.data(), 8}),
                       doctest::Contains("workspace too small"), gnndirect::invalid_argument);
  // Zero rows: works without a kernel.
  poisoned_output<float> none(0, 4);
  CHECK_NOTHROW(gnndirect::gather(s, src.view(), indices.data(), 0, none.view()));
  CHECK(none.read() == std::vector<unsigned char>(guard_rows * 4 * sizeof(float), poison));
}

TEST_CASE("scatter equals the host reference in every placement; bad indices write nothing")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  for (memory_kind kind : all_kinds) {
    for (std::size_t row_bytes : {4u, 60u, 512u, 2408u}) {
      CAPTURE(gnndirect::to_string(kind));
      CAPTURE(row_bytes);
      std::int64_t const rows = 3000, cols = row_bytes / 4, count = 1000;
      placed_table<float> table(kind, rows, cols);
      std::vector<unsigned char> const before = gnndirect::test::random_bytes(rng, table.owner.bytes());
      table.fill(before.data());
      std::vector<std::int32_t> perm(rows);
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      std::vector<std::int32_t> indices(perm.begin(), perm.begin() + count);  // unique
      std::vector<unsigned char> const batch_bytes = gnndirect::test::random_bytes(rng, count * row_bytes);
      placed_table<float> batch(memory_kind::device, count, cols);
      batch.fill(batch_bytes.data());
      auto const device_indices = to_buffer(indices);
      gnndirect::scatter(cudaStream_t{}, batch.view(), device_indices.data(), count, table.view());
      std::vector<unsigned char> expected = before;
      gnndirect::host::scatter_reference(
        table_view<const float>(reinterpret_cast<const float*>(batch_bytes.data()), count, cols, cols, memory_kind::device),
        indices.data(), count, table_view<float>(reinterpret_cast<float*>(expected.data()), rows, cols, cols, kind));
      CHECK(table.read() == expected);

      indices[10] = rows + 7;
      auto const bad_indices = to_buffer(indices);
      table.fill(before.data());
      CHECK_THROWS_AS(gnndirect::scatter(cudaStream_t{}, batch.view(), bad_indices.data(), count, table.view()),
                      gnndirect::index_out_of_range);
      std::vector<unsigned char> const after = table.read();
      std::size_t changed_unindexed = 0;
      std::vector<bool> indexed(rows, false);
      for (std::int64_t i = 0; i < count; ++i) { if (indices[i] < rows) { indexed[indices[i]] = true; } }
      for (std::int64_t r = 0; r < rows; ++r) {
        if (!indexed[r]) { changed_unindexed += std::memcmp(after.data() + r * row_bytes, before.data() + r * row_bytes, row_bytes) != 0; }
      }
      CHECK(changed_unindexed == 0);
    }
  }
}

TEST_CASE("gather_async with a caller workspace is capturable in a CUDA graph")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  std::int64_t const rows = 20000, cols = 32, count = 50000;
  placed_table<float> src(memory_kind::pinned, rows, cols);
  std::vector<unsigned char> const bytes = gnndirect::test::random_bytes(rng, src.owner.bytes());
  src.fill(bytes.data());
  gather_policy policy;
  policy.order = locality_order::sorted;  // the capture must include the sort
  std::size_t const ws_bytes = gnndirect::gather_workspace_bytes<std::int64_t>(count, rows, memory_kind::pinned,
                                                                               cols * sizeof(float), policy);
  gnndirect::buffer<std::byte> ws(ws_bytes, memory_kind::device);
  gnndirect::buffer<std::int64_t> device_indices(count, memory_kind::device);
  poisoned_output<float> out(count, cols);
  cudaStream_t stream;
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  GNNDIRECT_CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  gnndirect::gather_async(stream, src.view(), device_indices.data(), count, out.view(), {ws.data(), ws.bytes()}, policy);
  GNNDIRECT_CUDA_TRY(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  GNNDIRECT_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    auto const indices = gnndirect::test::random_indices<std::int64_t>(rng, count, rows);
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(device_indices.data(), indices.data(), count * 8, cudaMemcpyHostToDevice, stream));
    GNNDIRECT_CUDA_TRY(cudaGraphLaunch(exec, stream));
    gnndirect::gather_check(stream, {ws.data(), ws.bytes()}, rows);
    CHECK(out.read() == expected_gather<float>(bytes, rows, cols, indices));
  }
  GNNDIRECT_CUDA_TRY(cudaGraphExecDestroy(exec));
  GNNDIRECT_CUDA_TRY(cudaGraphDestroy(graph));
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
}

TEST_CASE("a table larger than 4 GiB is read correctly near its end (64-bit offsets)")
{
  if (quick()) { return; }
  std::int64_t const cols = 600;  // 2400-byte rows
  std::int64_t const rows = ((std::int64_t{9} << 29) / (cols * 4)) + 17;  // ~4.5 GiB
  gnndirect::table<float> big(rows, cols, memory_kind::pinned);
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  std::vector<std::int64_t> indices;
  for (std::int64_t r = rows - 64; r < rows; ++r) { indices.push_back(r); }
  for (int i = 0; i < 64; ++i) { indices.push_back(static_cast<std::int64_t>(rng() % 64)); }
  for (std::int64_t r : indices) {
    float* row = big.host_view().row(r);
    for (std::int64_t c = 0; c < cols; ++c) { row[c] = static_cast<float>(r % 100003) + static_cast<float>(c) * 1e-3f; }
  }
  auto const device_indices = to_buffer(indices);
  auto const count = static_cast<std::int64_t>(indices.size());
  poisoned_output<float> out(count, cols);
  gnndirect::gather(cudaStream_t{}, big.view(), device_indices.data(), count, out.view());
  std::vector<unsigned char> const got = out.read();
  std::size_t wrong = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    wrong += std::memcmp(got.data() + i * cols * 4, big.host_view().row(indices[i]), cols * 4) != 0;
  }
  CHECK(big.bytes() > (std::size_t{1} << 32));
  CHECK(wrong == 0);
}
