// GPU tests of the composable device layer: copy_row inside a user kernel with compile-time
// cooperative-groups tiles, a user-defined row source, scatter's last-occurrence rule on every
// placement and policy, and a user-written sampler driven by the bulk sampling call. Every test
// compares with an independent host computation on fresh random data, outputs poisoned first.
#include <doctest/doctest.h>

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/algorithms/sample_neighbors.cuh>
#include <gnndirect/cache/tiered_table.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/device/codecs.hpp>
#include <gnndirect/device/copy_row.cuh>
#include <gnndirect/device/decode_row.cuh>
#include <gnndirect/owners/encoded_table.hpp>
#include <gnndirect/device/sample_neighbors_tile.cuh>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/reference/gather_reference.hpp>

#include "support/placed_table.hpp"
#include "support/random.hpp"
#include "support/transfer.hpp"
#include "support/counting_resource.hpp"

#include <cooperative_groups.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using gnndirect::test::counting_resource;
using gnndirect::buffer;
using gnndirect::gather_policy;
using gnndirect::memory_kind;
using gnndirect::table_view;
using gnndirect::test::placed_table;
using gnndirect::test::to_buffer;
using gnndirect::test::to_host;

namespace {

namespace cg = cooperative_groups;
constexpr unsigned char poison = 0xCD;
constexpr memory_kind all_kinds[] = {memory_kind::device, memory_kind::pinned, memory_kind::registered,
                                     memory_kind::managed_host};

/// A user kernel: one compile-time tile of `Tile` threads per output row, copy_row<V, Align>.
template <int Tile, int V, bool Align>
__global__ void user_gather_kernel(table_view<const std::byte> src, const std::int64_t* indices,
                                   std::int64_t count, std::byte* out, std::size_t row_bytes)
{
  auto const tile = cg::tiled_partition<Tile>(cg::this_thread_block());
  std::int64_t const i = (blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x) / Tile;
  if (i >= count) { return; }
  const std::byte* const row = src.row(indices[i]);
  gnndirect::copy_row<V, Align>(tile, row, out + i * row_bytes, row_bytes, row);
}

/// Runs user_gather_kernel on a pinned table and compares with a host gather of the same bytes.
template <int Tile, int V, bool Align>
void check_user_gather(std::mt19937_64& rng, std::size_t row_bytes)
{
  CAPTURE(Tile);
  CAPTURE(V);
  CAPTURE(Align);
  CAPTURE(row_bytes);
  auto const rows = std::int64_t{5000}, count = std::int64_t{3001};
  placed_table<std::byte> table(memory_kind::pinned, rows, static_cast<std::int64_t>(row_bytes));
  std::vector<unsigned char> const bytes = gnndirect::test::random_bytes(rng, table.owner.bytes());
  table.fill(bytes.data());
  auto const indices = gnndirect::test::random_indices<std::int64_t>(rng, count, rows);
  auto const device_indices = to_buffer(indices);
  buffer<std::byte> out(static_cast<std::size_t>(count) * row_bytes + 64, memory_kind::device);
  gnndirect::test::fill_bytes(out.data(), poison, out.bytes());
  auto const threads = count * Tile;
  user_gather_kernel<Tile, V, Align><<<static_cast<unsigned>((threads + 255) / 256), 256>>>(
    table.view(), device_indices.data(), count, out.data(), row_bytes);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
  std::vector<unsigned char> expected(out.bytes(), poison);
  for (std::int64_t i = 0; i < count; ++i) {
    std::memcpy(expected.data() + i * row_bytes, bytes.data() + indices[i] * row_bytes, row_bytes);
  }
  CHECK(to_host(reinterpret_cast<const unsigned char*>(out.data()), static_cast<std::int64_t>(out.bytes())) == expected);
}

/// A user-defined row source: two tables behind one index space (e.g. two node types), rows of
/// the second after those of the first.
template <class T>
struct concat_source {
  using element_type = const T;
  table_view<const T> first;
  table_view<const T> second;

  std::int64_t num_rows() const { return first.rows + second.rows; }
  std::int64_t num_cols() const { return first.cols; }
  memory_kind placement() const { return first.kind; }
  std::uintptr_t address_bits() const
  {
    return reinterpret_cast<std::uintptr_t>(first.data) | reinterpret_cast<std::uintptr_t>(second.data) |
           first.stride_bytes() | second.stride_bytes();
  }
  __device__ gnndirect::row_location<const T> locate(std::int64_t row) const
  {
    if (row < first.rows) { return {first.row(row), first.kind != memory_kind::device}; }
    return {second.row(row - first.rows), second.kind != memory_kind::device};
  }
};

/// A user-written sampler for temporal graphs: up to `fanout` edges whose time is before the
/// node's query time, the most recent first (ties: the later position first).
struct recent_before_sampler {
  static constexpr bool needs_weights = false;
  const std::int64_t* edge_time;   ///< one per edge, CSR order
  const std::int64_t* query_time;  ///< one per node

  GNNDIRECT_HOST_DEVICE std::size_t scratch_bytes(int, int) const { return 0; }

  template <class Offset, class Index>
  __device__ std::int64_t sample(const gnndirect::dynamic_tile& tile, const gnndirect::csr_view<Offset, Index>&,
                                 const gnndirect::node_edges<Offset>& edges, int fanout, int, void*,
                                 const gnndirect::sampled_output<Offset, Index>& out) const
  {
    const std::int64_t* const time = edge_time + edges.first;
    std::int64_t const limit = query_time[edges.node];
    std::int64_t eligible = 0;
    for (std::int64_t base = 0; base < edges.degree; base += tile.size) {
      std::int64_t const p = base + tile.lane;
      eligible += __popc(tile.ballot(p < edges.degree && time[p] < limit));
    }
    for (std::int64_t p = tile.lane; p < edges.degree; p += tile.size) {
      if (time[p] >= limit) { continue; }
      std::int64_t rank = 0;  // eligible edges that come before p in (time desc, position desc)
      for (std::int64_t q = 0; q < edges.degree; ++q) {
        rank += time[q] < limit && (time[q] > time[p] || (time[q] == time[p] && q > p)) ? 1 : 0;
      }
      if (rank < fanout) { out.emit(p, rank); }
    }
    tile.sync();
    return eligible < fanout ? eligible : fanout;
  }
};

/// Host reference of recent_before_sampler for one node: (neighbour, edge id) in slot order.
std::vector<std::pair<std::int64_t, std::int64_t>> recent_before_reference(
  const std::vector<std::int64_t>& indptr, const std::vector<std::int64_t>& indices,
  const std::vector<std::int64_t>& edge_time, std::int64_t limit, std::int64_t node, int fanout)
{
  std::vector<std::int64_t> kept;
  for (std::int64_t e = indptr[node]; e < indptr[node + 1]; ++e) {
    if (edge_time[e] < limit) { kept.push_back(e); }
  }
  std::sort(kept.begin(), kept.end(), [&](std::int64_t a, std::int64_t b) {
    return edge_time[a] != edge_time[b] ? edge_time[a] > edge_time[b] : a > b;
  });
  if (kept.size() > static_cast<std::size_t>(fanout)) { kept.resize(static_cast<std::size_t>(fanout)); }
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (std::int64_t e : kept) { out.emplace_back(indices[e], e); }
  return out;
}

}  // namespace

TEST_CASE("copy_row inside a user kernel with compile-time cooperative-groups tiles")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  check_user_gather<4, 16, true>(rng, 48);
  check_user_gather<8, 8, true>(rng, 200);
  check_user_gather<32, 16, true>(rng, 2400);
  check_user_gather<32, 16, false>(rng, 2400);
  check_user_gather<16, 4, true>(rng, 2404);
  check_user_gather<2, 1, false>(rng, 7);
}

TEST_CASE("gather from a user-defined row source (two tables behind one index space)")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  for (memory_kind kind : {memory_kind::device, memory_kind::pinned, memory_kind::managed_host}) {
    CAPTURE(gnndirect::to_string(kind));
    std::int64_t const rows_a = 1200, rows_b = 777, cols = 37, count = 5000;
    placed_table<float> a(kind, rows_a, cols), b(memory_kind::device, rows_b, cols);
    std::vector<unsigned char> bytes = gnndirect::test::random_bytes(rng, a.owner.bytes() + b.owner.bytes());
    a.fill(bytes.data());
    b.fill(bytes.data() + a.owner.bytes());
    auto const indices = gnndirect::test::random_indices<std::int32_t>(rng, count, rows_a + rows_b);
    auto const device_indices = to_buffer(indices);
    placed_table<float> out(memory_kind::device, count, cols);
    gnndirect::test::fill_bytes(out.view().data, poison, out.owner.bytes());
    concat_source<float> const source{a.view(), b.view()};
    static_assert(gnndirect::is_row_source_v<concat_source<float>>);
    gnndirect::gather(cudaStream_t{}, source, device_indices.data(), count, out.view());
    std::vector<unsigned char> expected(out.owner.bytes());
    std::size_t const row_bytes = cols * sizeof(float);
    for (std::int64_t i = 0; i < count; ++i) {
      std::memcpy(expected.data() + i * row_bytes, bytes.data() + indices[i] * row_bytes, row_bytes);
    }
    CHECK(out.read() == expected);
    std::vector<std::int32_t> bad = indices;
    bad[17] = static_cast<std::int32_t>(rows_a + rows_b);
    auto const device_bad = to_buffer(bad);
    CHECK_THROWS_AS(gnndirect::gather(cudaStream_t{}, source, device_bad.data(), count, out.view()),
                    gnndirect::index_out_of_range);
  }
}

TEST_CASE("scatter with duplicate indices: the last occurrence wins, whole row, every placement and policy")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  std::vector<gather_policy> policies(4);
  policies[1].order = gnndirect::locality_order::none;
  policies[2].order = gnndirect::locality_order::sorted;
  policies[2].rows_in_flight = 1;
  policies[3].tile_size = 32;
  policies[3].rows_in_flight = 4;
  policies[3].check_indices = false;
  for (memory_kind kind : all_kinds) {
    for (std::size_t row_bytes : {4u, 60u, 512u, 2408u}) {
      for (std::size_t p = 0; p < policies.size(); ++p) {
        CAPTURE(gnndirect::to_string(kind));
        CAPTURE(row_bytes);
        CAPTURE(p);
        std::int64_t const rows = 3000, cols = static_cast<std::int64_t>(row_bytes / 4), count = 20000;
        placed_table<float> table(kind, rows, cols);
        std::vector<unsigned char> const before = gnndirect::test::random_bytes(rng, table.owner.bytes());
        table.fill(before.data());
        // Heavy duplicates: 20000 writes into the first 700 rows.
        auto const indices = gnndirect::test::random_indices<std::int64_t>(rng, count, 700);
        std::vector<unsigned char> const batch_bytes = gnndirect::test::random_bytes(rng, count * row_bytes);
        placed_table<float> batch(memory_kind::device, count, cols);
        batch.fill(batch_bytes.data());
        auto const device_indices = to_buffer(indices);
        gnndirect::scatter(cudaStream_t{}, table_view<const float>(batch.view()), device_indices.data(), count,
                           table.view(), policies[p]);
        std::vector<unsigned char> expected = before;  // sequential: the last occurrence wins
        for (std::int64_t i = 0; i < count; ++i) {
          std::memcpy(expected.data() + indices[i] * row_bytes, batch_bytes.data() + i * row_bytes, row_bytes);
        }
        CHECK(table.read() == expected);
      }
    }
  }
}

TEST_CASE("a user-written sampler (most recent edges before a query time) through the bulk call")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  std::int64_t const nodes = 3000, num_seeds = 2001;
  std::vector<std::int64_t> indptr{0}, indices, edge_time;
  for (std::int64_t v = 0; v < nodes; ++v) {
    auto const degree = static_cast<std::int64_t>(rng() % 8 == 0 ? rng() % 400 : rng() % 30);
    for (std::int64_t e = 0; e < degree; ++e) {
      indices.push_back(static_cast<std::int64_t>(rng() % nodes));
      edge_time.push_back(static_cast<std::int64_t>(rng() % 1000));  // ties on purpose
    }
    indptr.push_back(static_cast<std::int64_t>(indices.size()));
  }
  std::vector<std::int64_t> query_time(nodes);
  for (auto& t : query_time) { t = static_cast<std::int64_t>(rng() % 1100); }
  auto const seeds = gnndirect::test::random_indices<std::int64_t>(rng, num_seeds, nodes);
  auto const d_indptr = to_buffer(indptr), d_indices = to_buffer(indices), d_time = to_buffer(edge_time),
             d_query = to_buffer(query_time), d_seeds = to_buffer(seeds);
  gnndirect::csr_view<std::int64_t, std::int64_t> csr;
  csr.indptr = d_indptr.data();
  csr.indices = d_indices.data();
  csr.num_nodes = nodes;
  csr.num_edges = static_cast<std::int64_t>(indices.size());
  for (int fanout : {0, 1, 10, 25}) {
    CAPTURE(fanout);
    std::size_t const slots = static_cast<std::size_t>(num_seeds) * std::max(fanout, 1);
    buffer<std::int64_t> ids(slots, memory_kind::device), eids(slots, memory_kind::device);
    buffer<std::int64_t> counts(num_seeds, memory_kind::device), offsets(num_seeds + 1, memory_kind::device);
    gnndirect::test::fill_bytes(ids.data(), 0xFF, ids.bytes());
    gnndirect::test::fill_bytes(eids.data(), 0xFF, eids.bytes());
    buffer<std::byte> ws(gnndirect::sample_neighbors_workspace_bytes(num_seeds), memory_kind::device);
    gnndirect::sampling_policy tuning;
    tuning.tile_size = 8;
    recent_before_sampler const sampler{d_time.data(), d_query.data()};
    gnndirect::sample_neighbors_async(cudaStream_t{}, csr, d_seeds.data(), num_seeds, fanout, 0, sampler, tuning,
                                      gnndirect::sampled_slots_view<std::int64_t, std::int64_t>{
                                        ids.data(), eids.data(), counts.data(), offsets.data(), num_seeds,
                                        static_cast<std::int64_t>(slots)},
                                      {ws.data(), ws.bytes()});
    gnndirect::sample_neighbors_check(cudaStream_t{}, {ws.data(), ws.bytes()}, nodes);
    auto const got_counts = to_host(counts.data(), num_seeds);
    auto const got_ids = to_host(ids.data(), static_cast<std::int64_t>(slots));
    auto const got_eids = to_host(eids.data(), static_cast<std::int64_t>(slots));
    for (std::int64_t i = 0; i < num_seeds; ++i) {
      auto const expected =
        recent_before_reference(indptr, indices, edge_time, query_time[seeds[i]], seeds[i], fanout);
      REQUIRE(got_counts[i] == static_cast<std::int64_t>(expected.size()));
      for (std::size_t j = 0; j < expected.size(); ++j) {
        REQUIRE(got_ids[i * fanout + j] == expected[j].first);
        REQUIRE(got_eids[i * fanout + j] == expected[j].second);
      }
      for (std::int64_t j = static_cast<std::int64_t>(expected.size()); j < fanout; ++j) {
        REQUIRE(got_ids[i * fanout + j] == -1);  // nothing written past the count
      }
    }
  }
}

TEST_CASE("two host threads sampling with different shared-memory needs do not fail each other's launches")
{
  // The kernel's dynamic shared-memory limit is process-wide state; it used to be set per call to
  // that call's size, so a thread launching right after another thread's smaller setting failed.
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  std::int64_t const nodes = 20000, num_seeds = 4000;
  std::vector<std::int64_t> indptr{0}, indices;
  std::vector<float> weights;
  for (std::int64_t v = 0; v < nodes; ++v) {
    auto const degree = static_cast<std::int64_t>(rng() % 300);
    for (std::int64_t e = 0; e < degree; ++e) {
      indices.push_back(static_cast<std::int64_t>(rng() % nodes));
      weights.push_back(1.0f + static_cast<float>(rng() % 10));
    }
    indptr.push_back(static_cast<std::int64_t>(indices.size()));
  }
  auto const seeds = gnndirect::test::random_indices<std::int64_t>(rng, num_seeds, nodes);
  auto const d_indptr = to_buffer(indptr), d_indices = to_buffer(indices), d_seeds = to_buffer(seeds);
  auto const d_weights = to_buffer(weights);
  gnndirect::csr_view<std::int64_t, std::int64_t> csr;
  csr.indptr = d_indptr.data();
  csr.indices = d_indices.data();
  csr.weights = d_weights.data();
  csr.num_nodes = nodes;
  csr.num_edges = static_cast<std::int64_t>(indices.size());
  std::atomic<int> failures{0};
  auto const worker = [&](int fanout) {
    try {
      cudaStream_t stream;
      GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      gnndirect::sampling_policy policy;
      policy.tile_size = 32;
      for (int round = 0; round < 30; ++round) {
        auto const result = gnndirect::sample_neighbors(stream, csr, d_seeds.data(), num_seeds, fanout, 0,
                                                        gnndirect::weighted_sampler{}, policy);
        if (result.offsets.size() != static_cast<std::size_t>(num_seeds + 1)) { ++failures; }
      }
      GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
    } catch (const std::exception& e) {
      MESSAGE(e.what());
      ++failures;
    }
  };
  std::thread a(worker, 200), b(worker, 100);  // ~110 KB and ~59 KB of shared memory per block
  a.join();
  b.join();
  CHECK(failures.load() == 0);
}

TEST_CASE("the synchronous gather and the tiered table allocate from a caller's resource")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  counting_resource counter;
  static_assert(gnndirect::is_stream_ordered_resource_v<counting_resource>);
  std::int64_t const rows = 4000, cols = 16, count = 10000;
  placed_table<float> table(memory_kind::pinned, rows, cols);
  std::vector<unsigned char> const bytes = gnndirect::test::random_bytes(rng, table.owner.bytes());
  table.fill(bytes.data());
  auto const indices = gnndirect::test::random_indices<std::int64_t>(rng, count, rows);
  auto const device_indices = to_buffer(indices);
  placed_table<float> out(memory_kind::device, count, cols);
  cudaStream_t stream;
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  gnndirect::gather(stream, table_view<const float>(table.view()), device_indices.data(), count, out.view(),
                    gather_policy{}, counter);
  CHECK(counter.allocations == 1);  // the scratch (error record and sort)
  CHECK(counter.live_bytes == 0);   // returned on scope exit
  {
    gnndirect::tiered_table<float> tier(table.view(), 1000 * cols * sizeof(float), stream, counter);
    CHECK(counter.allocations == 3);  // cache rows and slot map
    auto const hot = to_buffer(gnndirect::test::random_indices<std::int64_t>(rng, 1000, rows));
    tier.rebuild(stream, hot.data(), 1000);
    CHECK(counter.allocations == 4);  // the rebuild's gather scratch
    gnndirect::gather(stream, tier.view(), device_indices.data(), count, out.view());
    std::vector<unsigned char> expected(out.owner.bytes());
    for (std::int64_t i = 0; i < count; ++i) {
      std::memcpy(expected.data() + i * cols * 4, bytes.data() + indices[i] * cols * 4, cols * 4);
    }
    CHECK(out.read() == expected);
  }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
  CHECK(counter.live_bytes == 0);
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
}

TEST_CASE("gather_async with a device-side count: only the first *count rows are checked, read and written")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  std::int64_t const rows = 50000, cols = 24, bound = 9000;
  placed_table<float> table(memory_kind::managed_host, rows, cols);
  std::vector<unsigned char> const bytes = gnndirect::test::random_bytes(rng, table.owner.bytes());
  table.fill(bytes.data());
  for (gnndirect::locality_order order : {gnndirect::locality_order::none, gnndirect::locality_order::sorted}) {
    for (std::int64_t active : {std::int64_t{0}, std::int64_t{1}, std::int64_t{4321}, bound}) {
      CAPTURE(active);
      auto indices = gnndirect::test::random_indices<std::int64_t>(rng, bound, rows);
      for (std::int64_t i = active; i < bound; ++i) { indices[i] = rows + i; }  // garbage past the count
      auto const device_indices = to_buffer(indices);
      auto const device_active = to_buffer(std::vector<std::int64_t>{active});
      placed_table<float> out(memory_kind::device, bound, cols);
      gnndirect::test::fill_bytes(out.view().data, poison, out.owner.bytes());
      gather_policy policy;
      policy.order = order;
      buffer<std::byte> ws(gnndirect::gather_workspace_bytes<std::int64_t>(bound, rows, memory_kind::managed_host,
                                                                            cols * sizeof(float), policy),
                           memory_kind::device);
      gnndirect::gather_async(cudaStream_t{}, table_view<const float>(table.view()), device_indices.data(), bound,
                              out.view(), {ws.data(), ws.bytes()}, policy, device_active.data());
      gnndirect::gather_check(cudaStream_t{}, {ws.data(), ws.bytes()}, rows);  // garbage never checked
      std::vector<unsigned char> expected(out.owner.bytes(), poison);
      std::size_t const row_bytes = cols * sizeof(float);
      for (std::int64_t i = 0; i < active; ++i) {
        std::memcpy(expected.data() + i * row_bytes, bytes.data() + indices[i] * row_bytes, row_bytes);
      }
      CHECK(out.read() == expected);
    }
  }
}

namespace {

/// A user kernel that decodes int8 rows with decode_row and a compile-time tile of 8 threads per
/// row (one warp = 4 rows), as a framework would inline it in its own loader.
__global__ void user_decode_kernel(gnndirect::encoded_view<gnndirect::codecs::int8_affine> src,
                                   const std::int64_t* indices, std::int64_t count, float* out)
{
  namespace cg = cooperative_groups;
  auto const tile = cg::tiled_partition<8>(cg::this_thread_block());
  std::int64_t const row = (blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x) / 8;
  if (row >= count) { return; }
  std::int64_t const id = indices[row];
  gnndirect::decode_row<16, 16, float>(tile, src.codec, src.row(id), src.meta[id], out + row * src.cols,
                                       static_cast<std::size_t>(src.load_bytes()),
                                       static_cast<std::size_t>(src.cols) * sizeof(float), src.row(id));
}

}  // namespace

TEST_CASE("decode_row inside a user kernel equals the host decode (int8, 128 features, pinned)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::int64_t const rows = 3000, cols = 128, count = 1001;
  std::normal_distribution<float> normal;
  std::vector<float> x(static_cast<std::size_t>(rows * cols));
  for (float& v : x) { v = normal(rng); }
  gnndirect::encoded_table<gnndirect::codecs::int8_affine> const table(x.data(), rows, cols, memory_kind::pinned);
  std::vector<std::int64_t> const indices = gnndirect::test::random_indices<std::int64_t>(rng, count, rows);
  auto const d_indices = to_buffer(indices);
  buffer<float> out(static_cast<std::size_t>((count + 1) * cols), memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemset(out.data(), 0xCD, out.bytes()));
  user_decode_kernel<<<static_cast<unsigned>((count * 8 + 255) / 256), 256>>>(table.view(), d_indices.data(), count,
                                                                              out.data());
  GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
  std::vector<float> const got = to_host(out.data(), static_cast<std::int64_t>(out.size()));
  std::vector<float> expected(static_cast<std::size_t>(cols));
  for (std::int64_t i = 0; i < count; ++i) {
    table.host_decode(indices[i], expected.data());
    REQUIRE(std::memcmp(got.data() + i * cols, expected.data(), cols * sizeof(float)) == 0);
  }
  std::vector<unsigned char> tail(cols * sizeof(float));
  std::memcpy(tail.data(), got.data() + count * cols, tail.size());
  for (unsigned char b : tail) { REQUIRE(b == 0xCD); }
}

