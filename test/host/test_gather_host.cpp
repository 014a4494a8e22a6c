// Host tests of the gather policy selector and the host reference gather/scatter.
#include <doctest/doctest.h>

#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/core/gather_tuning.hpp>
#include <gnndirect/reference/gather_reference.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

using gnndirect::gather_policy;
using gnndirect::host_gather_max_blocks;
using gnndirect::locality_order;
using gnndirect::memory_kind;
using gnndirect::table_view;

namespace {
/// The default selector on an unknown device (the library's plain gathers): the H200 defaults.
gather_policy select_gather_policy(gather_policy policy, memory_kind kind, std::size_t row_bytes, std::int64_t count,
                                   int decode_expansion = 1)
{
  return gnndirect::select_gather_policy(policy, gnndirect::gather_device{},
                                         gnndirect::gather_source{kind, row_bytes, count, decode_expansion});
}
}  // namespace

TEST_CASE("selector: tile size grows with the row, rows in flight shrink")
{
  auto const tile = [](std::size_t row_bytes) {
    return select_gather_policy({}, memory_kind::managed_host, row_bytes, 1000).tile_size;
  };
  CHECK(tile(1) == 1);
  CHECK(tile(16) == 1);
  CHECK(tile(64) == 4);
  CHECK(tile(128) == 8);
  CHECK(tile(400) == 32);  // 400 + 127 head bytes need 33 lanes of 16 B: capped at a warp
  CHECK(tile(10000) == 32);
  CHECK(select_gather_policy({}, memory_kind::device, 64, 10).rows_in_flight == 4);
  CHECK(select_gather_policy({}, memory_kind::device, 512, 10).rows_in_flight == 2);
  CHECK(select_gather_policy({}, memory_kind::device, 4096, 10).rows_in_flight == 1);
  gather_policy no_align;
  no_align.align_128 = false;
  CHECK(select_gather_policy(no_align, memory_kind::pinned, 256, 10).tile_size == 16);
}

TEST_CASE("selector: heavy decodes (>= 4x) get small tiles, 2 rows in flight and more blocks from host memory")
{
  auto const pick = [](std::size_t encoded_row_bytes, int expansion, memory_kind kind = memory_kind::managed_host) {
    return select_gather_policy({}, kind, encoded_row_bytes, 1 << 20, expansion);
  };
  // 602 int8 features (640-B rows) into fp32: 8 threads over 6 passes, 2 rows, the plain 32 blocks.
  auto const int8_602 = pick(640, 4);
  CHECK(int8_602.tile_size == 8);
  CHECK(int8_602.rows_in_flight == 2);
  CHECK(int8_602.max_blocks == 32);
  // 602 4-bit features (384-B rows) into fp32 expand 8x: twice the block cap.
  auto const int4_602 = pick(384, 8);
  CHECK(int4_602.tile_size == 8);
  CHECK(int4_602.rows_in_flight == 2);
  CHECK(int4_602.max_blocks == 64);
  // One-pass rows keep the plain choice (128 int8 features: 8 threads, 4 rows).
  CHECK(pick(128, 4).tile_size == 8);
  CHECK(pick(128, 4).rows_in_flight == 4);
  // Light decodes (fp16 into fp32) and plain copies are unchanged, and HBM sources get no cap.
  CHECK(pick(1280, 2).tile_size == select_gather_policy({}, memory_kind::managed_host, 1280, 1 << 20).tile_size);
  CHECK(pick(1280, 2).rows_in_flight == 1);
  CHECK(pick(1280, 2).max_blocks == 32);
  CHECK(pick(384, 8, memory_kind::device).max_blocks == 0);
  // Explicit values win.
  gather_policy mine;
  mine.tile_size = 32;
  mine.rows_in_flight = 1;
  mine.max_blocks = 7;
  auto const kept = select_gather_policy(mine, memory_kind::managed_host, 640, 1 << 20, 8);
  CHECK(kept.tile_size == 32);
  CHECK(kept.rows_in_flight == 1);
  CHECK(kept.max_blocks == 7);
}

TEST_CASE("selector: sort large batches from host-resident sources only")
{
  CHECK(select_gather_policy({}, memory_kind::pinned, 128, 1 << 20).order == locality_order::sorted);
  CHECK(select_gather_policy({}, memory_kind::registered, 128, 1 << 20).order == locality_order::sorted);
  CHECK(select_gather_policy({}, memory_kind::pinned, 128, 100).order == locality_order::none);
  CHECK(select_gather_policy({}, memory_kind::managed_host, 128, 1 << 20).order == locality_order::sorted);
  CHECK(select_gather_policy({}, memory_kind::managed_host, 128, 4095).order == locality_order::none);
  CHECK(select_gather_policy({}, memory_kind::device, 128, 1 << 20).order == locality_order::none);
  gather_policy forced;
  forced.order = locality_order::sorted;
  CHECK(select_gather_policy(forced, memory_kind::device, 128, 5).order == locality_order::sorted);
  forced.tile_size = 8;
  forced.rows_in_flight = 2;
  auto const kept = select_gather_policy(forced, memory_kind::device, 4096, 5);
  CHECK(kept.tile_size == 8);
  CHECK(kept.rows_in_flight == 2);
}

TEST_CASE("selector: host-resident gathers get a 32-block budget unless the caller sets one")
{
  CHECK(select_gather_policy({}, memory_kind::managed_host, 64, 1 << 20).max_blocks == 32);
  CHECK(select_gather_policy({}, memory_kind::device, 64, 1 << 20).max_blocks == 0);
  gather_policy wide;
  wide.block_threads = 512;
  CHECK(select_gather_policy(wide, memory_kind::pinned, 64, 10).max_blocks == 16);
  wide.max_blocks = 100;
  CHECK(select_gather_policy(wide, memory_kind::pinned, 64, 10).max_blocks == 100);
}

TEST_CASE("the host-gather cap is 8192 threads in blocks of the caller's size")
{
  // The selector's default for host-resident sources and the pipeline's cap of tiered gathers.
  CHECK(host_gather_max_blocks() == 32);
  CHECK(host_gather_max_blocks(128) == 64);
  CHECK(host_gather_max_blocks(1024) == 8);
  gather_policy narrow_blocks;
  narrow_blocks.block_threads = 128;
  CHECK(select_gather_policy(narrow_blocks, memory_kind::registered, 64, 10).max_blocks == host_gather_max_blocks(128));
  static_assert(host_gather_max_blocks(256) == 32, "usable in constant expressions");
}

TEST_CASE("selector rejects invalid explicit values")
{
  for (int bad : {3, 64, -1}) {
    gather_policy p;
    p.tile_size = bad;
    CHECK_THROWS_AS(select_gather_policy(p, memory_kind::device, 64, 1), gnndirect::invalid_argument);
  }
  gather_policy rows;
  rows.rows_in_flight = 3;
  CHECK_THROWS_AS(select_gather_policy(rows, memory_kind::device, 64, 1), gnndirect::invalid_argument);
  gather_policy block;
  block.block_threads = 100;
  CHECK_THROWS_AS(select_gather_policy(block, memory_kind::device, 64, 1), gnndirect::invalid_argument);
  gather_policy budget;
  budget.max_blocks = -2;
  CHECK_THROWS_AS(select_gather_policy(budget, memory_kind::device, 64, 1), gnndirect::invalid_argument);
}

TEST_CASE("host gather reference copies the indexed rows, strided views included")
{
  std::random_device device;
  unsigned const seed = device();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::int64_t const rows = 1000, cols = 7, stride = 9, count = 4321;
  std::vector<double> table(rows * stride);
  for (auto& v : table) { v = static_cast<double>(rng() % 1000000); }
  std::vector<std::int64_t> indices(count);
  for (auto& i : indices) { i = static_cast<std::int64_t>(rng() % rows); }
  std::vector<double> out(count * cols, -1.0);
  gnndirect::host::gather_reference(table_view<const double>(table.data(), rows, cols, stride, memory_kind::pinned),
                                    indices.data(), count,
                                    table_view<double>(out.data(), count, cols, cols, memory_kind::device), 3);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    for (std::int64_t c = 0; c < cols; ++c) { wrong += out[i * cols + c] != table[indices[i] * stride + c]; }
  }
  CHECK(wrong == 0);
}

TEST_CASE("host reference rejects bad indices before writing")
{
  std::vector<float> table(10 * 4, 1.f), out(3 * 4, -5.f);
  std::vector<std::int32_t> const indices{2, 10, -1};
  table_view<const float> const src(table.data(), 10, 4, 4, memory_kind::pinned);
  table_view<float> const dst(out.data(), 3, 4, 4, memory_kind::device);
  try {
    gnndirect::host::gather_reference(src, indices.data(), 3, dst);
    FAIL("expected index_out_of_range");
  } catch (const gnndirect::index_out_of_range& e) {
    CHECK(e.position() == 1);
    CHECK(e.value() == 10);
  }
  CHECK(out == std::vector<float>(12, -5.f));
  CHECK_THROWS_AS(gnndirect::host::gather_reference(src, indices.data(), 2,
                                                     table_view<float>(out.data(), 3, 4, 4, memory_kind::device)),
                  gnndirect::invalid_argument);
}

TEST_CASE("host scatter reference: last duplicate wins")
{
  std::vector<int> batch{1, 1, 2, 2, 3, 3}, table(4 * 2, 0);
  std::vector<std::int64_t> const indices{3, 0, 3};
  gnndirect::host::scatter_reference(table_view<const int>(batch.data(), 3, 2, 2, memory_kind::device),
                                     indices.data(), 3,
                                     table_view<int>(table.data(), 4, 2, 2, memory_kind::pinned));
  CHECK(table == std::vector<int>{2, 2, 0, 0, 0, 0, 3, 3});
}
