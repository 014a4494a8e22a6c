// Bad-input matrix, GPU rows (docs/reliability.md, "Fault matrix"): every TEST_CASE is one row,
// named "bad-input: ..." exactly as in the doc table (a typed case: one row per index type, its
// SUBCASEs the combinations the row lists). Each row asserts
//   - the exact exception type (typeid), its key message, and position()/value() where present;
//   - that nothing was written where it must not be: outputs are poisoned first and followed by
//     guard rows, sources are re-read and compared, and argument errors are shown to enqueue
//     nothing at all (the call runs under stream capture and the captured graph must be empty);
//   - that the CUDA context stays usable: cudaGetLastError() == cudaSuccess and a follow-up valid
//     call gives the host reference's result.
// Inputs are fresh random data (seed CAPTUREd); bad entries sit at random positions, with a
// second bad entry later, so "first bad position" is what is checked. Host-only rows are in
// test/host/test_bad_input_host.cpp.
//
// Not a runtime row: an element type mismatch between gather/scatter src and dst is rejected at
// compile time by static_assert "gnndirect gather/scatter: source and destination element types
// differ", and an index type other than int32/int64 by "gnndirect gather/scatter: indices must
// be int32_t or int64_t" (algorithms/gather.cuh). No failing-compile test is built for them.
#include <doctest/doctest.h>

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/algorithms/sample_blocks.cuh>
#include <gnndirect/algorithms/sample_neighbors.cuh>
#include <gnndirect/algorithms/validate.cuh>
#include <gnndirect/cache/tiered_table.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/reference/gather_reference.hpp>
#include <gnndirect/reference/sample_reference.hpp>

#include "support/capture.hpp"
#include "support/placed_table.hpp"
#include "support/random.hpp"
#include "support/transfer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <typeinfo>
#include <vector>

using gnndirect::buffer;
using gnndirect::csr_array;
using gnndirect::csr_view;
using gnndirect::gather_policy;
using gnndirect::locality_order;
using gnndirect::memory_kind;
using gnndirect::sampling_policy;
using gnndirect::table_view;
using gnndirect::workspace_view;
using gnndirect::test::placed_table;

namespace {

using gnndirect::test::to_buffer;
using gnndirect::test::to_host;

constexpr unsigned char poison = 0xCD;
constexpr std::int64_t guard_rows = 3;

bool quick() { return std::getenv("GNNDIRECT_TEST_QUICK") != nullptr; }

bool contains(const char* text, const std::string& part) { return std::string(text).find(part) != std::string::npos; }

/// A random value in [low, high) (high > low).
std::int64_t pick(std::mt19937_64& rng, std::int64_t low, std::int64_t high)
{
  return low + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(high - low));
}

/// A device buffer whose every byte is `poison`.
template <class T>
buffer<T> poisoned(std::size_t n)
{
  buffer<T> out(n, memory_kind::device);
  gnndirect::test::fill_bytes(out.data(), poison, out.bytes());
  return out;
}

/// True when every byte of the device-visible range is `poison`.
bool all_poison(const void* data, std::size_t bytes)
{
  std::vector<unsigned char> host(bytes);
  if (bytes > 0) { GNNDIRECT_CUDA_TRY(cudaMemcpy(host.data(), data, bytes, cudaMemcpyDefault)); }
  return std::all_of(host.begin(), host.end(), [](unsigned char b) { return b == poison; });
}

// Stream capture (nodes enqueued, refusals before the first enqueue): test/support/capture.hpp.
using capture_stream = gnndirect::test::capture_stream;
using gnndirect::test::capture_census;
using gnndirect::test::capture_result;
using gnndirect::test::check_refused_before_enqueue;

/// Checks that `call()` throws exactly E whose what() contains `text`.
template <class E, class Call>
void check_throws_exactly(Call&& call, const std::string& text)
{
  try {
    call();
    FAIL("expected an exception");
  } catch (const std::exception& e) {
    CAPTURE(e.what());
    CHECK(typeid(e) == typeid(E));
    CHECK(contains(e.what(), text));
  }
}

/// Host bytes of `rows` x `cols` T, each row `stride` elements, starting `offset` elements in.
template <class T>
table_view<T> host_view(std::vector<unsigned char>& bytes, std::int64_t offset, std::int64_t rows, std::int64_t cols,
                        std::int64_t stride)
{
  return {reinterpret_cast<T*>(bytes.data()) + offset, rows, cols, stride, memory_kind::pinned};
}

/// The CUDA context still works: no pending error, and a small gather equals the host reference.
void check_context_usable()
{
  CHECK(cudaGetLastError() == cudaSuccess);
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  std::int64_t const rows = 300, cols = 17, count = 500;
  placed_table<float> src(memory_kind::device, rows, cols);
  std::vector<unsigned char> table_bytes = gnndirect::test::random_bytes(rng, src.owner.bytes());
  src.fill(table_bytes.data());
  auto const indices = gnndirect::test::random_indices<std::int32_t>(rng, count, rows);
  auto const device_indices = to_buffer(indices);
  auto out = poisoned<float>(static_cast<std::size_t>(count * cols));
  gnndirect::gather(cudaStream_t{}, src.view(), device_indices.data(), count,
                    table_view<float>(out.data(), count, cols, cols, memory_kind::device));
  std::vector<unsigned char> expected(out.bytes(), poison);
  gnndirect::host::gather_reference(table_view<const float>(host_view<float>(table_bytes, 0, rows, cols, cols)),
                                    indices.data(), count, host_view<float>(expected, 0, count, cols, cols));
  CHECK(to_host(reinterpret_cast<const unsigned char*>(out.data()), static_cast<std::int64_t>(out.bytes())) == expected);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

// ---------------------------------------------------------------------------------------------
// Gather/scatter with bad indices (checked policy).

enum class bad_value { negative, too_large };

/// One row of the index matrix: `scatter` or gather, int32/int64 indices, caller order or sorted,
/// negative or too large, table in device memory and in a host-resident kind.
template <class Index>
void bad_index_row(bool scatter, bad_value bad, locality_order order)
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  memory_kind const host_kind = scatter ? memory_kind::managed_host : memory_kind::pinned;
  for (memory_kind const kind : {memory_kind::device, host_kind}) {
    CAPTURE(gnndirect::to_string(kind));
    std::int64_t const rows = scatter ? pick(rng, 3000, 4000) : pick(rng, 500, 2000);
    std::int64_t const cols = pick(rng, 1, 70);
    std::int64_t const count = quick() ? pick(rng, 1000, 1500) : scatter ? pick(rng, 1500, 2500) : pick(rng, 3000, 8000);
    CAPTURE(rows);
    CAPTURE(cols);
    CAPTURE(count);
    auto const row_bytes = static_cast<std::size_t>(cols) * sizeof(float);
    // Scatter targets are unique (a permutation prefix) so that the result is deterministic.
    std::vector<Index> indices;
    if (scatter) {
      std::vector<Index> perm(static_cast<std::size_t>(rows));
      std::iota(perm.begin(), perm.end(), Index{0});
      std::shuffle(perm.begin(), perm.end(), rng);
      indices.assign(perm.begin(), perm.begin() + count);
    } else {
      indices = gnndirect::test::random_indices<Index>(rng, count, rows);
    }
    std::vector<Index> const good = indices;
    std::int64_t const first = pick(rng, 0, count / 2);
    std::int64_t const later = pick(rng, first + 1, count);
    auto const first_value = static_cast<Index>(bad == bad_value::negative ? -1 - pick(rng, 0, 1000)
                                                                           : rows + pick(rng, 0, 5));
    Index const later_value = bad == bad_value::negative ? std::numeric_limits<Index>::min()
                                                         : std::numeric_limits<Index>::max();
    indices[static_cast<std::size_t>(first)] = first_value;
    indices[static_cast<std::size_t>(later)] = later_value;
    CAPTURE(first);

    // The indexed table (`rows` rows + guard rows, random) and the batch (`count` rows + guard
    // rows: random as a scatter source, poisoned as a gather output).
    placed_table<float> table(kind, rows + guard_rows, cols);
    std::vector<unsigned char> const table_bytes = gnndirect::test::random_bytes(rng, table.owner.bytes());
    table.fill(table_bytes.data());
    placed_table<float> batch(memory_kind::device, count + guard_rows, cols);
    std::vector<unsigned char> const batch_bytes =
      scatter ? gnndirect::test::random_bytes(rng, batch.owner.bytes()) : std::vector<unsigned char>(batch.owner.bytes(), poison);
    batch.fill(batch_bytes.data());
    table_view<float> const table_v(table.view().data, rows, cols, cols, kind);
    table_view<float> const batch_v(batch.view().data, count, cols, cols, memory_kind::device);
    auto const device_indices = to_buffer(indices);
    gather_policy policy;
    policy.order = order;
    auto const run = [&](const Index* idx) {
      if (scatter) {
        gnndirect::scatter(cudaStream_t{}, table_view<const float>(batch_v), idx, count, table_v, policy);
      } else {
        gnndirect::gather(cudaStream_t{}, table_view<const float>(table_v), idx, count, batch_v, policy);
      }
    };
    try {
      run(device_indices.data());
      FAIL("expected index_out_of_range");
    } catch (const gnndirect::index_out_of_range& e) {
      CHECK(e.position() == first);
      CHECK(e.value() == static_cast<std::int64_t>(first_value));
      CHECK(contains(e.what(), "indices[" + std::to_string(first) + "] = " + std::to_string(first_value) +
                                 " is out of range [0, " + std::to_string(rows) + ")"));
    }
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(to_host(device_indices.data(), count) == indices);  // sorting never touches the caller's array

    std::vector<unsigned char> const got_table = table.read();
    std::vector<unsigned char> const got_batch = batch.read();
    auto const is_bad = [&](std::int64_t i) {
      auto const v = static_cast<std::int64_t>(indices[static_cast<std::size_t>(i)]);
      return v < 0 || v >= rows;
    };
    if (scatter) {
      CHECK(got_batch == batch_bytes);  // the source is never written
      // Good rows land; rows named only by bad indices, and the guard rows, keep their bytes.
      std::vector<unsigned char> expected = table_bytes;
      for (std::int64_t i = 0; i < count; ++i) {
        if (is_bad(i)) { continue; }
        auto const r = static_cast<std::size_t>(indices[static_cast<std::size_t>(i)]);
        std::memcpy(expected.data() + r * row_bytes, batch_bytes.data() + static_cast<std::size_t>(i) * row_bytes, row_bytes);
      }
      CHECK(got_table == expected);
    } else {
      CHECK(got_table == table_bytes);  // the source is never written
      std::size_t wrong_rows = 0;
      for (std::int64_t i = 0; i < count; ++i) {
        const unsigned char* row = got_batch.data() + static_cast<std::size_t>(i) * row_bytes;
        if (is_bad(i)) {  // rejected rows are zero-filled, never garbage
          wrong_rows += std::any_of(row, row + row_bytes, [](unsigned char b) { return b != 0; }) ? 1 : 0;
        } else {
          auto const r = static_cast<std::size_t>(indices[static_cast<std::size_t>(i)]);
          wrong_rows += std::memcmp(row, table_bytes.data() + r * row_bytes, row_bytes) != 0 ? 1 : 0;
        }
      }
      CHECK(wrong_rows == 0);
      CHECK(std::all_of(got_batch.begin() + static_cast<std::ptrdiff_t>(count) * static_cast<std::ptrdiff_t>(row_bytes),
                        got_batch.end(), [](unsigned char b) { return b == poison; }));
    }

    // The same call with the bad entries repaired equals the host reference.
    auto const good_indices = to_buffer(good);
    table.fill(table_bytes.data());
    batch.fill(batch_bytes.data());
    run(good_indices.data());
    std::vector<unsigned char> expected_table = table_bytes;
    std::vector<unsigned char> expected_batch = batch_bytes;
    if (scatter) {
      gnndirect::host::scatter_reference(table_view<const float>(host_view<float>(expected_batch, 0, count, cols, cols)),
                                         good.data(), count, host_view<float>(expected_table, 0, rows, cols, cols));
    } else {
      gnndirect::host::gather_reference(table_view<const float>(host_view<float>(expected_table, 0, rows, cols, cols)),
                                        good.data(), count, host_view<float>(expected_batch, 0, count, cols, cols));
    }
    CHECK(table.read() == expected_table);
    CHECK(batch.read() == expected_batch);
  }
  check_context_usable();
}

}  // namespace

TEST_CASE_TEMPLATE("bad-input: gather or scatter index out of range", Index, std::int32_t, std::int64_t)
{
  for (bool const scatter : {false, true}) {
    for (bad_value const bad : {bad_value::negative, bad_value::too_large}) {
      for (locality_order const order : {locality_order::none, locality_order::sorted}) {
        // One subcase each (a fresh seed and table; a failure names its combination).
        std::string const name = std::string(scatter ? "scatter " : "gather ") +
                                 (bad == bad_value::negative ? "negative index" : "index >= rows") +
                                 (order == locality_order::sorted ? ", sorted" : ", unsorted");
        SUBCASE(name.c_str()) { bad_index_row<Index>(scatter, bad, order); }
      }
    }
  }
}

TEST_CASE("bad-input: gather_async bad index raised by gather_check")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::int64_t const rows = 5000, cols = 32, count = 6000;
  placed_table<float> src(memory_kind::pinned, rows, cols);
  std::vector<unsigned char> table_bytes = gnndirect::test::random_bytes(rng, src.owner.bytes());
  src.fill(table_bytes.data());
  auto indices = gnndirect::test::random_indices<std::int64_t>(rng, count, rows);
  auto const good = indices;
  std::int64_t const first = pick(rng, 0, count - 1);
  indices[static_cast<std::size_t>(first)] = -rows;
  indices.back() = rows;
  auto const bad_indices = to_buffer(indices);
  auto const good_indices = to_buffer(good);
  gather_policy policy;
  policy.order = locality_order::sorted;
  std::size_t const ws_bytes =
    gnndirect::gather_workspace_bytes<std::int64_t>(count, rows, memory_kind::pinned, cols * sizeof(float), policy);
  buffer<std::byte> ws(ws_bytes, memory_kind::device);
  auto out = poisoned<float>(static_cast<std::size_t>((count + guard_rows) * cols));
  table_view<float> const dst(out.data(), count, cols, cols, memory_kind::device);
  capture_stream const s;
  CHECK_NOTHROW(gnndirect::gather_async(s.stream, src.view(), bad_indices.data(), count, dst, {ws.data(), ws.bytes()}, policy));
  try {
    gnndirect::gather_check(s.stream, {ws.data(), ws.bytes()}, rows);
    FAIL("expected index_out_of_range");
  } catch (const gnndirect::index_out_of_range& e) {
    CHECK(e.position() == first);
    CHECK(e.value() == -rows);
  }
  CHECK(all_poison(out.data() + count * cols, guard_rows * cols * sizeof(float)));
  // The same workspace serves the next batch: the record is reset by every gather_async.
  gnndirect::gather_async(s.stream, src.view(), good_indices.data(), count, dst, {ws.data(), ws.bytes()}, policy);
  CHECK_NOTHROW(gnndirect::gather_check(s.stream, {ws.data(), ws.bytes()}, rows));
  std::vector<unsigned char> expected(out.bytes(), poison);
  gnndirect::host::gather_reference(table_view<const float>(host_view<float>(table_bytes, 0, rows, cols, cols)), good.data(),
                                    count, host_view<float>(expected, 0, count, cols, cols));
  CHECK(to_host(reinterpret_cast<const unsigned char*>(out.data()), static_cast<std::int64_t>(out.bytes())) == expected);
  check_context_usable();
}

TEST_CASE("bad-input: scatter_async bad index raised by scatter_check, the target's valid rows written")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::int64_t const rows = 4000, cols = 16, count = 3000;
  placed_table<float> target(memory_kind::managed_host, rows, cols);
  std::vector<unsigned char> target_bytes = gnndirect::test::random_bytes(rng, target.owner.bytes());
  target.fill(target_bytes.data());
  std::vector<std::int64_t> indices(static_cast<std::size_t>(rows));  // unique: a random prefix of a permutation
  std::iota(indices.begin(), indices.end(), std::int64_t{0});
  std::shuffle(indices.begin(), indices.end(), rng);
  indices.resize(static_cast<std::size_t>(count));
  std::int64_t const first = pick(rng, 0, count - 1);
  indices[static_cast<std::size_t>(first)] = rows + 7;
  auto const device_indices = to_buffer(indices);
  std::vector<unsigned char> batch_bytes = gnndirect::test::random_bytes(rng, static_cast<std::size_t>(count * cols) * sizeof(float));
  auto const batch = to_buffer(batch_bytes);
  gather_policy policy;
  std::size_t const ws_bytes = gnndirect::scatter_workspace_bytes<std::int64_t>(count, rows, memory_kind::managed_host,
                                                                                cols * sizeof(float), policy);
  buffer<std::byte> ws(ws_bytes, memory_kind::device);
  capture_stream const s;
  table_view<const float> const src(reinterpret_cast<const float*>(batch.data()), count, cols, cols, memory_kind::device);
  CHECK_NOTHROW(gnndirect::scatter_async(s.stream, src, device_indices.data(), count, target.view(), {ws.data(), ws.bytes()}, policy));
  try {
    gnndirect::scatter_check(s.stream, {ws.data(), ws.bytes()}, rows);
    FAIL("expected index_out_of_range");
  } catch (const gnndirect::index_out_of_range& e) {
    CHECK(e.position() == first);
    CHECK(e.value() == rows + 7);
  }
  // The bad row is skipped; every other row lands, nothing else of the target changes.
  std::vector<unsigned char> expected = target_bytes;
  for (std::int64_t i = 0; i < count; ++i) {
    if (i == first) { continue; }
    std::memcpy(expected.data() + indices[static_cast<std::size_t>(i)] * cols * sizeof(float),
                batch_bytes.data() + i * cols * sizeof(float), cols * sizeof(float));
  }
  CHECK(target.read() == expected);
  check_context_usable();
}

// ---------------------------------------------------------------------------------------------
// Sampling with bad seeds.

namespace {

/// A random host graph (degrees 0..max_degree-1) with weights; all ids valid.
template <class Offset, class Index>
struct host_graph {
  std::vector<Offset> indptr{0};
  std::vector<Index> indices;
  std::vector<float> weights;
  std::int64_t num_nodes{0};

  host_graph(std::mt19937_64& rng, std::int64_t nodes, std::int64_t max_degree) : num_nodes(nodes)
  {
    for (std::int64_t v = 0; v < nodes; ++v) {
      std::int64_t const degree = pick(rng, 0, max_degree);
      for (std::int64_t e = 0; e < degree; ++e) {
        indices.push_back(static_cast<Index>(pick(rng, 0, nodes)));
        weights.push_back(static_cast<float>(pick(rng, 0, 1000)) / 64.0f);
      }
      indptr.push_back(static_cast<Offset>(indices.size()));
    }
  }
  std::int64_t num_edges() const { return static_cast<std::int64_t>(indices.size()); }
  csr_view<Offset, Index> view() const
  {
    csr_view<Offset, Index> v;
    v.indptr = indptr.data();
    v.indices = indices.data();
    v.weights = weights.data();
    v.num_nodes = num_nodes;
    v.num_edges = num_edges();
    v.indptr_kind = memory_kind::pinned;
    v.indices_kind = memory_kind::pinned;
    return v;
  }
};

/// The same graph in device-visible buffers of `kind`.
template <class Offset, class Index>
struct device_graph {
  buffer<Offset> indptr;
  buffer<Index> indices;
  buffer<float> weights;
  csr_view<Offset, Index> view;

  device_graph(const host_graph<Offset, Index>& g, memory_kind kind)
    : indptr(to_buffer(g.indptr, kind)), indices(to_buffer(g.indices, kind)), weights(to_buffer(g.weights, kind))
  {
    view = g.view();
    view.indptr = indptr.data();
    view.indices = indices.data();
    view.weights = weights.data();
    view.indptr_kind = kind;
    view.indices_kind = kind;
  }
};

template <class Offset, class Index>
void check_sample_equals_reference(const host_graph<Offset, Index>& g, const device_graph<Offset, Index>& d,
                                   const std::vector<Index>& seeds, int fanout, const gnndirect::uniform_sampler& policy)
{
  auto const n = static_cast<std::int64_t>(seeds.size());
  auto const expected = gnndirect::host::sample_neighbors_reference(g.view(), seeds.data(), n, fanout, 0, policy);
  auto const device_seeds = to_buffer(seeds);
  auto const actual = gnndirect::sample_neighbors(cudaStream_t{}, d.view, device_seeds.data(), n, fanout, 0, policy);
  REQUIRE(to_host(actual.offsets.data(), n + 1) == expected.offsets);
  CHECK(to_host(actual.neighbors.data(), expected.offsets.back()) == expected.neighbors);
}

/// sample_neighbors with a bad seed at a random position (and another later).
template <class Offset, class Index>
void bad_seed_row(bad_value bad)
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  host_graph<Offset, Index> const g(rng, 2000, 40);
  device_graph<Offset, Index> const d(g, memory_kind::device);
  std::int64_t const count = quick() ? 1000 : 3000;
  auto seeds = gnndirect::test::random_indices<Index>(rng, count, g.num_nodes);
  auto const good = seeds;
  std::int64_t const first = pick(rng, 0, count / 2);
  auto const first_value =
    static_cast<Index>(bad == bad_value::negative ? -1 - pick(rng, 0, 100) : g.num_nodes + pick(rng, 0, 5));
  seeds[static_cast<std::size_t>(first)] = first_value;
  seeds.back() = bad == bad_value::negative ? std::numeric_limits<Index>::min() : std::numeric_limits<Index>::max();
  auto const device_seeds = to_buffer(seeds);
  gnndirect::uniform_sampler const policy{seed};
  try {
    (void)gnndirect::sample_neighbors(cudaStream_t{}, d.view, device_seeds.data(), count, 10, 0, policy);
    FAIL("expected index_out_of_range");
  } catch (const gnndirect::index_out_of_range& e) {
    CHECK(e.position() == first);
    CHECK(e.value() == static_cast<std::int64_t>(first_value));
    CHECK(contains(e.what(), "seeds[" + std::to_string(first) + "] = " + std::to_string(first_value) +
                               " is out of range [0, 2000)"));
  }
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(to_host(device_seeds.data(), count) == seeds);
  check_sample_equals_reference(g, d, good, 10, policy);
}

}  // namespace

// T: (offset type, seed and id type).
TEST_CASE_TEMPLATE("bad-input: sample_neighbors seed out of range", T, std::pair<std::int32_t, std::int32_t>,
                   std::pair<std::int64_t, std::int32_t>, std::pair<std::int64_t, std::int64_t>)
{
  using Offset = typename T::first_type;
  using Index = typename T::second_type;
  SUBCASE("negative seed") { bad_seed_row<Offset, Index>(bad_value::negative); }
  SUBCASE("seed >= num_nodes") { bad_seed_row<Offset, Index>(bad_value::too_large); }
}

TEST_CASE("bad-input: sample_neighbors_async bad seed leaves its slots untouched")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  using Offset = std::int64_t;
  using Index = std::int32_t;
  host_graph<Offset, Index> const g(rng, 1500, 60);
  device_graph<Offset, Index> const d(g, memory_kind::managed_host);
  std::int64_t const count = 1200;
  int const fanout = 12;
  auto seeds = gnndirect::test::random_indices<Index>(rng, count, g.num_nodes);
  auto good = seeds;
  std::int64_t const first = pick(rng, 0, count - 1);
  seeds[static_cast<std::size_t>(first)] = static_cast<Index>(g.num_nodes);
  good[static_cast<std::size_t>(first)] = 0;  // for the reference of the other seeds
  auto const device_seeds = to_buffer(seeds);
  std::size_t const slots = static_cast<std::size_t>(count * fanout);
  auto neighbors = poisoned<Index>(slots + guard_rows * fanout);
  auto edge_ids = poisoned<Offset>(slots + guard_rows * fanout);
  auto counts = poisoned<std::int64_t>(static_cast<std::size_t>(count + guard_rows));
  auto offsets = poisoned<std::int64_t>(static_cast<std::size_t>(count + 1 + guard_rows));
  buffer<std::byte> ws(gnndirect::sample_neighbors_workspace_bytes(count), memory_kind::device);
  gnndirect::uniform_sampler const policy{seed};
  capture_stream const s;
  gnndirect::sampled_slots_view<Offset, Index> const out{neighbors.data(), edge_ids.data(), counts.data(), offsets.data(),
                                                        count, count * fanout};
  CHECK_NOTHROW(gnndirect::sample_neighbors_async(s.stream, d.view, device_seeds.data(), count, fanout, 0, policy, sampling_policy{},
                                                  out, {ws.data(), ws.bytes()}));
  try {
    gnndirect::sample_neighbors_check(s.stream, {ws.data(), ws.bytes()}, g.num_nodes);
    FAIL("expected index_out_of_range");
  } catch (const gnndirect::index_out_of_range& e) {
    CHECK(e.position() == first);
    CHECK(e.value() == g.num_nodes);
  }
  auto const got_counts = to_host(counts.data(), count);
  auto const got_neighbors = to_host(neighbors.data(), static_cast<std::int64_t>(slots));
  auto const expected = gnndirect::host::sample_neighbors_reference(g.view(), good.data(), count, fanout, 0, policy);
  CHECK(got_counts[static_cast<std::size_t>(first)] == 0);
  CHECK(all_poison(neighbors.data() + first * fanout, fanout * sizeof(Index)));  // the bad seed's slots
  CHECK(all_poison(neighbors.data() + slots, guard_rows * fanout * sizeof(Index)));
  CHECK(all_poison(edge_ids.data() + slots, guard_rows * fanout * sizeof(Offset)));
  CHECK(all_poison(counts.data() + count, guard_rows * sizeof(std::int64_t)));
  CHECK(all_poison(offsets.data() + count + 1, guard_rows * sizeof(std::int64_t)));
  std::size_t wrong = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    if (i == first) { continue; }
    auto const begin = expected.offsets[static_cast<std::size_t>(i)];
    auto const n = expected.offsets[static_cast<std::size_t>(i) + 1] - begin;
    wrong += got_counts[static_cast<std::size_t>(i)] != n ? 1 : 0;
    for (std::int64_t j = 0; j < n && j < fanout; ++j) {
      wrong += got_neighbors[static_cast<std::size_t>(i * fanout + j)] !=
                   expected.neighbors[static_cast<std::size_t>(begin + j)] ? 1 : 0;
    }
  }
  CHECK(wrong == 0);
  check_context_usable();
}

TEST_CASE("bad-input: sample_blocks bad seed")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  host_graph<std::int64_t, std::int64_t> const g(rng, 3000, 30);
  device_graph<std::int64_t, std::int64_t> const d(g, memory_kind::device);
  std::int64_t const count = 700;
  auto seeds = gnndirect::test::random_indices<std::int64_t>(rng, count, g.num_nodes);
  std::int64_t const first = pick(rng, 0, count - 1);
  seeds[static_cast<std::size_t>(first)] = -(std::int64_t{1} << 40);
  seeds.back() = g.num_nodes;
  auto const device_seeds = to_buffer(seeds);
  try {
    (void)gnndirect::sample_blocks(cudaStream_t{}, d.view, device_seeds.data(), count, {10, 5}, gnndirect::uniform_sampler{});
    FAIL("expected index_out_of_range");
  } catch (const gnndirect::index_out_of_range& e) {
    CHECK(e.position() == first);
    CHECK(e.value() == -(std::int64_t{1} << 40));
    CHECK(contains(e.what(), "seeds of layer 0[" + std::to_string(first) + "] = -1099511627776 is out of range [0, 3000)"));
  }
  CHECK(to_host(device_seeds.data(), count) == seeds);
  check_context_usable();
}

TEST_CASE("bad-input: sample_blocks out-of-range neighbour id is reported in its layer")
{
  // A corrupt CSR (one neighbour id >= num_nodes) that was not validated: layer 0 copies the id
  // (sampling trusts the graph), relabelling stays in bounds, and layer 1's seed check names it.
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  host_graph<std::int64_t, std::int32_t> g(rng, 2000, 6);  // degrees < fanout: every edge is taken
  std::int64_t node = pick(rng, 0, g.num_nodes);
  while (g.indptr[static_cast<std::size_t>(node) + 1] == g.indptr[static_cast<std::size_t>(node)]) {
    node = (node + 1) % g.num_nodes;
  }
  auto const edge = static_cast<std::size_t>(g.indptr[static_cast<std::size_t>(node)]);
  g.indices[edge] = static_cast<std::int32_t>(g.num_nodes + 3);
  device_graph<std::int64_t, std::int32_t> const d(g, memory_kind::pinned);
  std::int64_t const count = 300;
  auto seeds = gnndirect::test::random_indices<std::int32_t>(rng, count, g.num_nodes);
  seeds[static_cast<std::size_t>(pick(rng, 0, count))] = static_cast<std::int32_t>(node);
  auto const device_seeds = to_buffer(seeds);
  try {
    (void)gnndirect::sample_blocks(cudaStream_t{}, d.view, device_seeds.data(), count, {10, 10}, gnndirect::uniform_sampler{});
    FAIL("expected index_out_of_range");
  } catch (const gnndirect::index_out_of_range& e) {
    CHECK(typeid(e) == typeid(gnndirect::index_out_of_range));
    CHECK(e.value() == g.num_nodes + 3);
    CHECK(e.position() >= 0);  // the corrupt edge's position in layer 0's sampled edges
    // Reported where it is sampled (layer 0's neighbours), before it could become a seed of layer 1.
    CHECK(contains(e.what(), "sampled neighbours of layer 0["));
  }
  CHECK(cudaGetLastError() == cudaSuccess);
  // The documented defence: validate() names the corrupt edge before any sampling.
  try {
    gnndirect::validate(cudaStream_t{}, d.view);
    FAIL("expected corrupt_graph");
  } catch (const gnndirect::corrupt_graph& e) {
    CHECK(e.array() == csr_array::indices);
    CHECK(e.position() == static_cast<std::int64_t>(edge));
  }
  check_context_usable();
}

// ---------------------------------------------------------------------------------------------
// Corrupt CSR through GPU validate(stream, graph): same exception and message as the host.

namespace {

/// Corrupts a fresh random graph with `corrupt(graph, rng)` (returns the expected first bad
/// position), then validates it on the host and on the GPU in device and pinned memory.
template <class Offset, class Index, class Corrupt>
void validate_row(csr_array array, Corrupt&& corrupt)
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  host_graph<Offset, Index> g(rng, quick() ? 3000 : 20000, 25);
  std::int64_t const position = corrupt(g, rng);
  CAPTURE(position);
  std::string host_what;
  try {
    gnndirect::validate(g.view());
    FAIL("host validate accepted a corrupt graph");
  } catch (const gnndirect::corrupt_graph& e) {
    host_what = e.what();
  }
  for (memory_kind const kind : {memory_kind::device, memory_kind::pinned}) {
    CAPTURE(gnndirect::to_string(kind));
    device_graph<Offset, Index> const d(g, kind);
    try {
      gnndirect::validate(cudaStream_t{}, d.view);
      FAIL("GPU validate accepted a corrupt graph");
    } catch (const gnndirect::corrupt_graph& e) {
      CHECK(typeid(e) == typeid(gnndirect::corrupt_graph));
      CHECK(e.array() == array);
      CHECK(e.position() == position);
      CHECK(std::string(e.what()) == host_what);
    }
    CHECK(to_host(d.indptr.data(), g.num_nodes + 1) == g.indptr);  // validation never writes
    CHECK(to_host(d.indices.data(), g.num_edges()) == g.indices);
  }
  check_context_usable();
}

}  // namespace

TEST_CASE("bad-input: validate decreasing indptr (GPU)")
{
  validate_row<std::int64_t, std::int32_t>(csr_array::indptr, [](auto& g, std::mt19937_64& rng) {
    std::int64_t const p = pick(rng, 1, g.num_nodes);
    g.indptr[static_cast<std::size_t>(p)] = g.indptr[static_cast<std::size_t>(p - 1)] - 1;
    return p;
  });
}

TEST_CASE("bad-input: validate id >= num_nodes (GPU)")
{
  validate_row<std::int32_t, std::int64_t>(csr_array::indices, [](auto& g, std::mt19937_64& rng) {
    std::int64_t const p = pick(rng, 0, g.num_edges() - 1);
    g.indices[static_cast<std::size_t>(p)] = g.num_nodes;
    g.indices.back() = std::int64_t{1} << 40;
    return p;
  });
}

TEST_CASE("bad-input: validate negative id (GPU)")
{
  validate_row<std::int64_t, std::int32_t>(csr_array::indices, [](auto& g, std::mt19937_64& rng) {
    std::int64_t const p = pick(rng, 0, g.num_edges() - 1);
    g.indices[static_cast<std::size_t>(p)] = -1;
    g.indices.back() = std::numeric_limits<std::int32_t>::min();
    return p;
  });
}

TEST_CASE("bad-input: validate indptr[n] != num_edges (GPU)")
{
  // indptr's last entry disagrees with num_edges (the arrays' length): must not read past them.
  validate_row<std::int64_t, std::int64_t>(csr_array::indptr, [](auto& g, std::mt19937_64&) {
    g.indptr.back() = g.num_edges() + 1;
    return g.num_nodes;
  });
}

TEST_CASE("bad-input: validate NaN weight (GPU)")
{
  validate_row<std::int64_t, std::int32_t>(csr_array::weights, [](auto& g, std::mt19937_64& rng) {
    std::int64_t const p = pick(rng, 0, g.num_edges() - 1);
    g.weights[static_cast<std::size_t>(p)] = std::numeric_limits<float>::quiet_NaN();
    g.weights.back() = -1.0f;
    return p;
  });
}

TEST_CASE("bad-input: validate negative weight (GPU)")
{
  validate_row<std::int64_t, std::int32_t>(csr_array::weights, [](auto& g, std::mt19937_64& rng) {
    std::int64_t const p = pick(rng, 0, g.num_edges() - 1);
    g.weights[static_cast<std::size_t>(p)] = -0.25f;
    g.weights.back() = std::numeric_limits<float>::infinity();
    return p;
  });
}

// ---------------------------------------------------------------------------------------------
// Shapes, strides, sizes, null pointers, workspaces and policies: rejected before any launch.

namespace {

/// A device table, valid indices and a poisoned batch, for the argument-error rows.
struct move_fixture {
  std::int64_t rows, cols, count;
  placed_table<float> table;
  std::vector<unsigned char> table_bytes;
  buffer<float> batch;  // count + guard rows, poisoned
  buffer<std::int32_t> indices;
  buffer<std::byte> ws;  // ample workspace for the async forms

  explicit move_fixture(std::mt19937_64& rng)
    : rows(pick(rng, 100, 1000)), cols(pick(rng, 2, 40)), count(pick(rng, 10, 500)),
      table(memory_kind::device, rows, cols), table_bytes(gnndirect::test::random_bytes(rng, table.owner.bytes())),
      batch(poisoned<float>(static_cast<std::size_t>((count + guard_rows) * cols))),
      indices(to_buffer(gnndirect::test::random_indices<std::int32_t>(rng, count, rows))),
      ws(std::size_t{1} << 20, memory_kind::device)
  {
    table.fill(table_bytes.data());
  }
  table_view<float> src() const { return table.view(); }
  table_view<float> dst(std::int64_t n) const { return {batch.data(), n, cols, cols, memory_kind::device}; }
  workspace_view workspace() const { return {ws.data(), ws.bytes()}; }
  /// Nothing was written: the table and the whole poisoned batch are as before.
  void check_untouched() const
  {
    CHECK(table.read() == table_bytes);
    CHECK(all_poison(batch.data(), batch.bytes()));
  }
};

/// A gather row: the synchronous call throws E (text) and writes nothing; gather_async under
/// capture throws the same and enqueues nothing.
template <class E>
void gather_rejected(const move_fixture& f, table_view<const float> src, const std::int32_t* indices, std::int64_t count,
                     table_view<float> dst, const gather_policy& policy, const std::string& text)
{
  check_throws_exactly<E>([&] { gnndirect::gather(cudaStream_t{}, src, indices, count, dst, policy); }, text);
  f.check_untouched();
  check_refused_before_enqueue<E>(
    [&](cudaStream_t s) { gnndirect::gather_async(s, src, indices, count, dst, f.workspace(), policy); }, text);
  f.check_untouched();
}

/// A fresh, CAPTUREd random engine named `name` for the current row.
#define ROW_RNG(name)                                                   \
  std::uint64_t const name##_seed = gnndirect::test::fresh_seed();      \
  CAPTURE(name##_seed);                                                 \
  std::mt19937_64 name(name##_seed)

}  // namespace

TEST_CASE("bad-input: gather dst rows != count")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  gather_rejected<gnndirect::invalid_argument>(f, f.src(), f.indices.data(), f.count - 1, f.dst(f.count), {},
                                               "dst has " + std::to_string(f.count) + " rows but " +
                                                 std::to_string(f.count - 1) + " indices were given");
  check_context_usable();
}

TEST_CASE("bad-input: scatter src rows != count")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  std::string const text = "src has " + std::to_string(f.count) + " rows but " + std::to_string(f.count + 1) + " indices";
  check_throws_exactly<gnndirect::invalid_argument>(
    [&] { gnndirect::scatter(cudaStream_t{}, f.dst(f.count), f.indices.data(), f.count + 1, f.src()); }, text);
  f.check_untouched();
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    [&](cudaStream_t s) { gnndirect::scatter_async(s, f.dst(f.count), f.indices.data(), f.count + 1, f.src(), f.workspace()); },
    text);
  f.check_untouched();
  check_context_usable();
}

TEST_CASE("bad-input: gather column count mismatch")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  table_view<float> const narrow(f.batch.data(), f.count, f.cols - 1, f.cols, memory_kind::device);
  gather_rejected<gnndirect::invalid_argument>(f, f.src(), f.indices.data(), f.count, narrow, {},
                                               "src has " + std::to_string(f.cols) + " columns but dst has " +
                                                 std::to_string(f.cols - 1));
  check_context_usable();
}

TEST_CASE("bad-input: row_stride < cols")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  table_view<float> src = f.src();
  src.row_stride = f.cols - 1;
  gather_rejected<gnndirect::invalid_argument>(f, src, f.indices.data(), f.count, f.dst(f.count), {},
                                               "table_view 'src': row_stride " + std::to_string(f.cols - 1) + " < cols");
  check_context_usable();
}

TEST_CASE("bad-input: negative count")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  gather_rejected<gnndirect::invalid_argument>(f, f.src(), f.indices.data(), -1, f.dst(f.count), {},
                                               "negative index count -1");
  check_context_usable();
}

TEST_CASE("bad-input: negative view shape")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  table_view<float> src = f.src();
  src.rows = -5;
  gather_rejected<gnndirect::invalid_argument>(f, src, f.indices.data(), f.count, f.dst(f.count), {},
                                               "table_view 'src': negative shape");
  check_context_usable();
}

TEST_CASE("bad-input: null table data with non-zero size")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  table_view<float> src = f.src();
  src.data = nullptr;
  gather_rejected<gnndirect::invalid_argument>(f, src, f.indices.data(), f.count, f.dst(f.count), {},
                                               "table_view 'src': null data with non-zero size");
  table_view<float> dst = f.dst(f.count);
  dst.data = nullptr;
  gather_rejected<gnndirect::invalid_argument>(f, f.src(), f.indices.data(), f.count, dst, {},
                                               "table_view 'dst': null data with non-zero size");
  check_context_usable();
}

TEST_CASE("bad-input: null indices with count > 0")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  gather_rejected<gnndirect::invalid_argument>(f, f.src(), nullptr, f.count, f.dst(f.count), {},
                                               "null indices with count > 0");
  check_context_usable();
}

TEST_CASE("bad-input: null workspace")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    [&](cudaStream_t s) { gnndirect::gather_async(s, f.src(), f.indices.data(), f.count, f.dst(f.count), workspace_view{}); },
    "null workspace");
  CHECK_THROWS_WITH_AS(gnndirect::gather_check(cudaStream_t{}, workspace_view{}, f.rows), doctest::Contains("null workspace"),
                       gnndirect::invalid_argument);
  f.check_untouched();
  check_context_usable();
}

TEST_CASE("bad-input: gather workspace too small")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  gather_policy policy;
  policy.order = locality_order::sorted;  // the sort's scratch makes the workspace large
  std::size_t const needed = gnndirect::gather_workspace_bytes<std::int32_t>(f.count, f.rows, memory_kind::device,
                                                                            static_cast<std::size_t>(f.cols) * 4, policy);
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    [&](cudaStream_t s) {
      gnndirect::gather_async(s, f.src(), f.indices.data(), f.count, f.dst(f.count), {f.ws.data(), needed - 1}, policy);
    },
    "workspace too small: needs at least " + std::to_string(needed) + " bytes, got " + std::to_string(needed - 1));
  f.check_untouched();
  check_context_usable();
}

TEST_CASE("bad-input: gather policy tile_size 3")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  gather_policy policy;
  policy.tile_size = 3;
  gather_rejected<gnndirect::invalid_argument>(f, f.src(), f.indices.data(), f.count, f.dst(f.count), policy,
                                               "tile_size must be 1, 2, 4, 8, 16 or 32, got 3");
  check_context_usable();
}

TEST_CASE("bad-input: gather policy rows_in_flight 3")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  gather_policy policy;
  policy.rows_in_flight = 3;
  gather_rejected<gnndirect::invalid_argument>(f, f.src(), f.indices.data(), f.count, f.dst(f.count), policy,
                                               "rows_in_flight must be 1, 2 or 4, got 3");
  check_context_usable();
}

TEST_CASE("bad-input: gather policy block_threads 100")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  gather_policy policy;
  policy.block_threads = 100;
  gather_rejected<gnndirect::invalid_argument>(f, f.src(), f.indices.data(), f.count, f.dst(f.count), policy,
                                               "block_threads must be a multiple of 32 in [32, 1024], got 100");
  check_context_usable();
}

TEST_CASE("bad-input: gather policy negative budget")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  gather_policy policy;
  policy.max_blocks = -1;
  gather_rejected<gnndirect::invalid_argument>(f, f.src(), f.indices.data(), f.count, f.dst(f.count), policy,
                                               "negative max_blocks");
  check_context_usable();
}

namespace {

/// Poisoned caller outputs, workspace and a small graph, for the sampling argument-error rows.
struct sample_fixture {
  host_graph<std::int64_t, std::int32_t> g;
  device_graph<std::int64_t, std::int32_t> d;
  std::int64_t count;
  int fanout{8};
  buffer<std::int32_t> seeds;
  buffer<std::int32_t> neighbors;
  buffer<std::int64_t> counts;
  buffer<std::int64_t> offsets;
  buffer<std::byte> ws;

  explicit sample_fixture(std::mt19937_64& rng)
    : g(rng, 500, 20), d(g, memory_kind::device), count(pick(rng, 10, 300)),
      seeds(to_buffer(gnndirect::test::random_indices<std::int32_t>(rng, count, 500))),
      neighbors(poisoned<std::int32_t>(static_cast<std::size_t>(count * fanout))),
      counts(poisoned<std::int64_t>(static_cast<std::size_t>(count))),
      offsets(poisoned<std::int64_t>(static_cast<std::size_t>(count + 1))),
      ws(gnndirect::sample_neighbors_workspace_bytes(count), memory_kind::device)
  {
  }
  gnndirect::sampled_slots_view<std::int64_t, std::int32_t> out() const
  {
    return {neighbors.data(), nullptr, counts.data(), offsets.data(), count, count * fanout};
  }
  void check_untouched() const
  {
    CHECK(all_poison(neighbors.data(), neighbors.bytes()));
    CHECK(all_poison(counts.data(), counts.bytes()));
    CHECK(all_poison(offsets.data(), offsets.bytes()));
  }
  /// sample_neighbors_async with these arguments throws exactly invalid_argument (text) before
  /// enqueueing anything, and so does the synchronous sample_neighbors.
  template <class Sampler = gnndirect::uniform_sampler>
  void rejected(const csr_view<std::int64_t, std::int32_t>& csr, const std::int32_t* seed_ids, std::int64_t n, int k,
                const sampling_policy& policy, workspace_view w, const std::string& text,
                const Sampler& sampler = Sampler{}) const
  {
    check_refused_before_enqueue<gnndirect::invalid_argument>(
      [&](cudaStream_t s) { gnndirect::sample_neighbors_async(s, csr, seed_ids, n, k, 0, sampler, policy, out(), w); },
      text);
    check_untouched();
    if (w.data == ws.data() && w.bytes == ws.bytes()) {  // the synchronous form brings its own workspace
      check_throws_exactly<gnndirect::invalid_argument>(
        [&] { (void)gnndirect::sample_neighbors(cudaStream_t{}, csr, seed_ids, n, k, 0, sampler, policy); }, text);
    }
    CHECK(cudaGetLastError() == cudaSuccess);
  }
  workspace_view workspace() const { return {ws.data(), ws.bytes()}; }
};

}  // namespace

TEST_CASE("bad-input: sampling policy tile_size 3")
{
  ROW_RNG(rng);
  sample_fixture const f(rng);
  sampling_policy policy{};
  policy.tile_size = 3;
  f.rejected(f.d.view, f.seeds.data(), f.count, f.fanout, policy, f.workspace(),
             "tile_size must be a power of two in [1, 32], got 3");
  check_context_usable();
}

TEST_CASE("bad-input: weighted sampling without weights")
{
  ROW_RNG(rng);
  sample_fixture const f(rng);
  auto csr = f.d.view;
  csr.weights = nullptr;
  f.rejected(csr, f.seeds.data(), f.count, f.fanout, sampling_policy{}, f.workspace(),
             "the sampler needs csr_view::weights", gnndirect::weighted_sampler{});
  check_throws_exactly<gnndirect::invalid_argument>(
    [&] { (void)gnndirect::sample_blocks(cudaStream_t{}, csr, f.seeds.data(), f.count, {5, 5}, gnndirect::weighted_sampler{}); },
    "needs csr_view::weights");
  check_context_usable();
}

TEST_CASE("bad-input: sampling negative fanout or budget")
{
  ROW_RNG(rng);
  sample_fixture const f(rng);
  f.rejected(f.d.view, f.seeds.data(), f.count, -1, sampling_policy{}, f.workspace(), "fanout must be >= 0, got -1");
  sampling_policy policy{};
  policy.max_blocks = -2;
  f.rejected(f.d.view, f.seeds.data(), f.count, f.fanout, policy, f.workspace(), "max_blocks must be >= 0");
  check_throws_exactly<gnndirect::invalid_argument>(
    [&] { (void)gnndirect::sample_blocks(cudaStream_t{}, f.d.view, f.seeds.data(), f.count, {}, gnndirect::uniform_sampler{}); },
    "at least one fanout");
  check_context_usable();
}

TEST_CASE("bad-input: null seeds")
{
  ROW_RNG(rng);
  sample_fixture const f(rng);
  f.rejected(f.d.view, nullptr, f.count, f.fanout, sampling_policy{}, f.workspace(), "null seeds");
  check_throws_exactly<gnndirect::invalid_argument>(
    [&] { (void)gnndirect::sample_blocks(cudaStream_t{}, f.d.view, static_cast<const std::int32_t*>(nullptr), f.count, {5}, gnndirect::uniform_sampler{}); },
    "null seeds");
  f.rejected(f.d.view, f.seeds.data(), -3, f.fanout, sampling_policy{}, f.workspace(), "num_seeds must be >= 0");
  check_context_usable();
}

TEST_CASE("bad-input: null sampling outputs or graph arrays or workspace")
{
  ROW_RNG(rng);
  sample_fixture const f(rng);
  auto no_indptr = f.d.view;
  no_indptr.indptr = nullptr;
  f.rejected(no_indptr, f.seeds.data(), f.count, f.fanout, sampling_policy{}, f.workspace(), "null indptr");
  auto no_indices = f.d.view;
  no_indices.indices = nullptr;
  f.rejected(no_indices, f.seeds.data(), f.count, f.fanout, sampling_policy{}, f.workspace(), "null indices");
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    [&](cudaStream_t s) {
      auto out = f.out();
      out.counts = nullptr;
      gnndirect::sample_neighbors_async(s, f.d.view, f.seeds.data(), f.count, f.fanout, 0, gnndirect::uniform_sampler{}, sampling_policy{}, out, f.workspace());
    },
    "null counts or offsets");
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    [&](cudaStream_t s) {
      auto out = f.out();
      out.neighbors = nullptr;
      gnndirect::sample_neighbors_async(s, f.d.view, f.seeds.data(), f.count, f.fanout, 0, gnndirect::uniform_sampler{}, sampling_policy{}, out, f.workspace());
    },
    "null neighbour slots");
  f.rejected(f.d.view, f.seeds.data(), f.count, f.fanout, sampling_policy{}, workspace_view{}, "null workspace");
  f.check_untouched();
  // Whole-graph problems found by GPU validate before any kernel: corrupt_graph, position -1.
  check_refused_before_enqueue<gnndirect::corrupt_graph>([&](cudaStream_t s) { gnndirect::validate(s, no_indptr); },
                                                          "indptr is null but num_nodes = 500");
  check_context_usable();
}

TEST_CASE("bad-input: sampling workspace too small")
{
  ROW_RNG(rng);
  sample_fixture const f(rng);
  std::size_t const needed = gnndirect::sample_neighbors_workspace_bytes(f.count);
  f.rejected(f.d.view, f.seeds.data(), f.count, f.fanout, sampling_policy{}, {f.ws.data(), needed - 1},
             "workspace too small: needs at least " + std::to_string(needed) + " bytes, got " + std::to_string(needed - 1));
  check_context_usable();
}

TEST_CASE("bad-input: sampling outputs without their capacities are refused, never trusted")
{
  ROW_RNG(rng);
  sample_fixture const f(rng);
  using slots_view = gnndirect::sampled_slots_view<std::int64_t, std::int32_t>;
  auto const sample = [&](const slots_view& out, std::int64_t n) {
    return [&f, out, n](cudaStream_t s) {
      gnndirect::sample_neighbors_async(s, f.d.view, f.seeds.data(), n, f.fanout, 0, gnndirect::uniform_sampler{},
                                        sampling_policy{}, out, f.workspace());
    };
  };
  // Built from the pointers alone (aggregate init that forgets the capacities): refused before
  // anything is enqueued, naming the call and the field.
  slots_view const bare{f.neighbors.data(), nullptr, f.counts.data(), f.offsets.data()};
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    sample(bare, f.count), "sample_neighbors_async: out.seed_capacity is not given (-1");
  slots_view no_slots = f.out();
  no_slots.slot_capacity = -1;
  check_refused_before_enqueue<gnndirect::invalid_argument>(sample(no_slots, f.count),
                                                             "sample_neighbors_async: out.slot_capacity is not given");
  // Given but too small: names the array, its capacity and the need.
  slots_view few_seeds = f.out();
  few_seeds.seed_capacity = f.count - 1;
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    sample(few_seeds, f.count), "counts (offsets: one more) holds " + std::to_string(f.count - 1) +
                                  " entries (out.seed_capacity), the call may write " + std::to_string(f.count));
  slots_view few_slots = f.out();
  few_slots.slot_capacity = f.count * f.fanout - 1;
  check_refused_before_enqueue<gnndirect::invalid_argument>(sample(few_slots, f.count),
                                                             "neighbors (and edge_ids) holds " +
                                                               std::to_string(f.count * f.fanout - 1) + " entries");
  // An empty call refuses a missing capacity too, and accepts capacity 0.
  check_refused_before_enqueue<gnndirect::invalid_argument>(sample(bare, 0), "out.seed_capacity is not given");
  slots_view zero = bare;
  zero.seed_capacity = 0;
  zero.slot_capacity = 0;
  capture_result const empty = capture_census(sample(zero, 0));
  CHECK(!empty.error);
  CHECK(empty.kernels == 0);
  // compact_sampled_async reads through the ref: refused the same way.
  auto compacted = poisoned<std::int32_t>(static_cast<std::size_t>(f.count * f.fanout));
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    [&](cudaStream_t s) {
      gnndirect::compact_sampled_async(s, bare, f.count, f.fanout, compacted.data(), static_cast<std::int64_t*>(nullptr));
    },
    "compact_sampled_async: slots.seed_capacity is not given");
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    [&](cudaStream_t s) {
      gnndirect::compact_sampled_async(s, few_slots, f.count, f.fanout, compacted.data(), static_cast<std::int64_t*>(nullptr));
    },
    "compact_sampled_async: neighbors (and edge_ids) holds");
  CHECK(all_poison(compacted.data(), compacted.bytes()));
  // A caller who wants no check says so with a large capacity: accepted (captured, not run).
  slots_view unchecked = bare;
  unchecked.seed_capacity = std::numeric_limits<std::int64_t>::max();
  unchecked.slot_capacity = std::numeric_limits<std::int64_t>::max();
  capture_result const trusted = capture_census(sample(unchecked, f.count));
  CHECK(!trusted.error);
  CHECK(trusted.kernels > 0);
  f.check_untouched();
  check_context_usable();
}

// ---------------------------------------------------------------------------------------------
// Where pointers live and how they are aligned (checked up front, issue #19 items 2-3): before
// the checks these rows lost the CUDA context (sticky illegal-address / misaligned-address).

namespace {

/// Pretends, for one scope, that the device lacks (0) or has (1) pageable-memory access, so that
/// GPUs with HMM/ATS also exercise the rejection path.
class pageable_access_as {
 public:
  explicit pageable_access_as(int value) { gnndirect::detail::pageable_access_override() = value; }
  ~pageable_access_as() { gnndirect::detail::pageable_access_override() = -1; }
  pageable_access_as(const pageable_access_as&) = delete;
  pageable_access_as& operator=(const pageable_access_as&) = delete;
};

/// A pointer `offset` bytes past the start of device buffer `b`, as T*.
template <class T, class B>
T* offset_by(const buffer<B>& b, std::size_t offset)
{
  return reinterpret_cast<T*>(reinterpret_cast<char*>(b.data()) + offset);
}

}  // namespace

TEST_CASE("bad-input: pageable index array")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  std::vector<std::int32_t> const pageable = gnndirect::test::random_indices<std::int32_t>(rng, f.count, f.rows);
  std::vector<std::int32_t> const pageable_before = pageable;
  {
    pageable_access_as const no(0);
    gather_rejected<gnndirect::invalid_argument>(f, f.src(), pageable.data(), f.count, f.dst(f.count), gather_policy{},
                                                 "is pageable host memory");
    gather_rejected<gnndirect::invalid_argument>(f, f.src(), pageable.data(), f.count, f.dst(f.count), gather_policy{},
                                                 "indices (0x");
    // scatter into the table from a pageable index array
    check_refused_before_enqueue<gnndirect::invalid_argument>(
      [&](cudaStream_t s) {
        gnndirect::scatter_async(s, table_view<const float>(f.dst(f.count)), pageable.data(), f.count, f.src(), f.workspace());
      },
      "indices (0x");
    f.check_untouched();
    // tiered gather over a pinned table
    placed_table<float> pinned(memory_kind::pinned, f.rows, f.cols);
    pinned.fill(f.table_bytes.data());
    gnndirect::tiered_table<float> tier(pinned.view(), 0);
    check_throws_exactly<gnndirect::invalid_argument>(
      [&] { gnndirect::gather(cudaStream_t{}, tier.view(), pageable.data(), f.count, f.dst(f.count)); }, "indices (0x");
    f.check_untouched();
    // sampling seeds
    sample_fixture const sf(rng);
    std::vector<std::int32_t> const seeds = gnndirect::test::random_indices<std::int32_t>(rng, sf.count, 500);
    sf.rejected(sf.d.view, seeds.data(), sf.count, sf.fanout, sampling_policy{}, sf.workspace(), "seeds (0x");
    sf.rejected(sf.d.view, seeds.data(), sf.count, sf.fanout, sampling_policy{}, sf.workspace(), "is pageable host memory");
    check_throws_exactly<gnndirect::invalid_argument>(
      [&] { (void)gnndirect::sample_blocks(cudaStream_t{}, sf.d.view, seeds.data(), sf.count, {5, 3}, gnndirect::uniform_sampler{}); }, "seeds (0x");
  }
  CHECK(pageable == pageable_before);
  check_context_usable();
  int pageable_access = 0;
  GNNDIRECT_CUDA_TRY(cudaDeviceGetAttribute(&pageable_access, cudaDevAttrPageableMemoryAccess, gnndirect::require_device()));
  MESSAGE("cudaDevAttrPageableMemoryAccess = " << pageable_access);
  if (pageable_access != 0) {  // HMM/ATS: the device reads pageable memory, so the call is valid
    gnndirect::gather(cudaStream_t{}, f.src(), pageable.data(), f.count, f.dst(f.count));
    std::vector<unsigned char> expected(f.batch.bytes(), poison);
    gnndirect::host::gather_reference(table_view<const float>(host_view<float>(const_cast<std::vector<unsigned char>&>(f.table_bytes), 0, f.rows, f.cols, f.cols)),
                                      pageable.data(), f.count, host_view<float>(expected, 0, f.count, f.cols, f.cols));
    CHECK(to_host(reinterpret_cast<const unsigned char*>(f.batch.data()), static_cast<std::int64_t>(f.batch.bytes())) == expected);
  }
}

TEST_CASE("bad-input: int64 indices or outputs at a 4-byte offset")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  auto const values = gnndirect::test::random_indices<std::int64_t>(rng, f.count, f.rows);
  buffer<std::int64_t> storage(static_cast<std::size_t>(f.count + 1), memory_kind::device);
  auto* const misaligned = offset_by<std::int64_t>(storage, 4);
  gnndirect::test::copy_from_host(misaligned, values.data(), values.size() * sizeof(std::int64_t));
  check_throws_exactly<gnndirect::invalid_argument>(
    [&] { gnndirect::gather(cudaStream_t{}, f.src(), static_cast<const std::int64_t*>(misaligned), f.count, f.dst(f.count)); },
    "is not 8-byte aligned (4 bytes past a boundary)");
  f.check_untouched();
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    [&](cudaStream_t s) {
      gnndirect::gather_async(s, f.src(), static_cast<const std::int64_t*>(misaligned), f.count, f.dst(f.count), f.workspace());
    },
    "indices at 0x");
  f.check_untouched();
  // Sampling: int64 seeds and int64 counts/offsets outputs 4 bytes off.
  sample_fixture const sf(rng);
  buffer<std::int64_t> out_storage(static_cast<std::size_t>(sf.count + 2), memory_kind::device);
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    [&](cudaStream_t s) {
      auto out = sf.out();
      out.offsets = offset_by<std::int64_t>(out_storage, 4);
      gnndirect::sample_neighbors_async(s, sf.d.view, sf.seeds.data(), sf.count, sf.fanout, 0, gnndirect::uniform_sampler{}, sampling_policy{}, out, sf.workspace());
    },
    "offsets at 0x");
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    [&](cudaStream_t s) {
      auto out = sf.out();
      out.counts = offset_by<std::int64_t>(out_storage, 4);
      gnndirect::sample_neighbors_async(s, sf.d.view, sf.seeds.data(), sf.count, sf.fanout, 0, gnndirect::uniform_sampler{}, sampling_policy{}, out, sf.workspace());
    },
    "is not 8-byte aligned");
  sf.check_untouched();
  check_context_usable();
}

TEST_CASE("bad-input: workspace 4 bytes off its alignment")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  workspace_view const off{offset_by<std::byte>(f.ws, 4), f.ws.bytes() - 4};
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    [&](cudaStream_t s) { gnndirect::gather_async(s, f.src(), f.indices.data(), f.count, f.dst(f.count), off); },
    "4 bytes past a boundary");  // the carver's or the pointer check's message, whichever runs first
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    [&](cudaStream_t s) { gnndirect::scatter_async(s, table_view<const float>(f.dst(f.count)), f.indices.data(), f.count, f.src(), off); },
    "256-byte aligned");
  f.check_untouched();
  sample_fixture const sf(rng);
  sf.rejected(sf.d.view, sf.seeds.data(), sf.count, sf.fanout, sampling_policy{},
              {offset_by<std::byte>(sf.ws, 4), sf.ws.bytes() - 4}, "256-byte aligned");
  // gather_check reads the error record at the workspace's start: refused too, nothing read.
  CHECK_THROWS_WITH_AS(gnndirect::gather_check(cudaStream_t{}, off, f.rows), doctest::Contains("256-byte aligned"),
                       gnndirect::invalid_argument);
  check_context_usable();
}

TEST_CASE("bad-input: workspace too small names the total needed")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  gather_policy policy;
  policy.order = locality_order::sorted;
  std::size_t const needed = gnndirect::gather_workspace_bytes<std::int32_t>(f.count, f.rows, memory_kind::device,
                                                                            static_cast<std::size_t>(f.cols) * 4, policy);
  // Room for the error record only: carving fails at the second slice, the message names all.
  std::size_t const given = gnndirect::workspace_alignment + 8;
  REQUIRE(needed > 2 * gnndirect::workspace_alignment);
  check_refused_before_enqueue<gnndirect::invalid_argument>(
    [&](cudaStream_t s) { gnndirect::gather_async(s, f.src(), f.indices.data(), f.count, f.dst(f.count), {f.ws.data(), given}, policy); },
    "workspace too small: needs at least " + std::to_string(needed) + " bytes, got " + std::to_string(given));
  f.check_untouched();
  check_context_usable();
}

// ---------------------------------------------------------------------------------------------
// Zero sizes: everything works and no kernel runs.

TEST_CASE("bad-input: zero-size gather and scatter")
{
  ROW_RNG(rng);
  move_fixture const f(rng);
  table_view<float> const empty_table(nullptr, 0, f.cols, f.cols, memory_kind::pinned);
  table_view<float> const no_rows = f.dst(0);
  table_view<float> const no_cols(f.batch.data(), f.count, 0, 0, memory_kind::device);
  table_view<float> const src_no_cols(f.table.view().data, f.rows, 0, 0, memory_kind::device);
  // count 0 from an empty table (null data), count 0 from a real one, and rows of zero bytes.
  CHECK_NOTHROW(gnndirect::gather(cudaStream_t{}, empty_table, static_cast<const std::int32_t*>(nullptr), 0, no_rows));
  CHECK_NOTHROW(gnndirect::gather(cudaStream_t{}, f.src(), f.indices.data(), 0, no_rows));
  CHECK_NOTHROW(gnndirect::gather(cudaStream_t{}, src_no_cols, f.indices.data(), f.count, no_cols));
  CHECK_NOTHROW(gnndirect::scatter(cudaStream_t{}, no_rows, static_cast<const std::int64_t*>(nullptr), 0, f.src()));
  CHECK_NOTHROW(gnndirect::scatter(cudaStream_t{}, no_cols, f.indices.data(), f.count, src_no_cols));
  f.check_untouched();
  std::size_t const ws_bytes = gnndirect::gather_workspace_bytes<std::int32_t>(0, 0, memory_kind::pinned, 0);
  CHECK(ws_bytes > 0);  // the error record only
  capture_result const c = capture_census([&](cudaStream_t s) {
    gnndirect::gather_async(s, empty_table, static_cast<const std::int32_t*>(nullptr), 0, no_rows, f.workspace());
    gnndirect::gather_async(s, src_no_cols, f.indices.data(), f.count, no_cols, f.workspace());
    gnndirect::scatter_async(s, no_rows, f.indices.data(), 0, f.src(), f.workspace());
  });
  CHECK(!c.error);
  CHECK(c.kernels == 0);  // only the error-record resets
  gnndirect::gather_async(cudaStream_t{}, empty_table, static_cast<const std::int32_t*>(nullptr), 0, no_rows, f.workspace());
  CHECK_NOTHROW(gnndirect::gather_check(cudaStream_t{}, f.workspace(), 0));
  f.check_untouched();
  check_context_usable();
}

TEST_CASE("bad-input: zero-size sampling")
{
  ROW_RNG(rng);
  sample_fixture const f(rng);
  auto const none = gnndirect::sample_neighbors(cudaStream_t{}, f.d.view, f.seeds.data(), 0, f.fanout, 0, gnndirect::uniform_sampler{});
  CHECK(none.offsets.size() == 1);
  CHECK(to_host(none.offsets.data(), 1) == std::vector<std::int64_t>{0});
  CHECK(none.neighbors.size() == 0);
  capture_result const c = capture_census([&](cudaStream_t s) {
    gnndirect::sample_neighbors_async(s, f.d.view, static_cast<const std::int32_t*>(nullptr), 0, f.fanout, 0, gnndirect::uniform_sampler{}, sampling_policy{},
                                      f.out(), f.workspace());
  });
  CHECK(!c.error);
  CHECK(c.kernels == 0);
  // Fanout 0: every count is 0 (a kernel runs; nothing is sampled).
  auto const zero_fanout = gnndirect::sample_neighbors(cudaStream_t{}, f.d.view, f.seeds.data(), f.count, 0, 0, gnndirect::uniform_sampler{});
  CHECK(to_host(zero_fanout.offsets.data(), f.count + 1) == std::vector<std::int64_t>(static_cast<std::size_t>(f.count + 1), 0));
  // An empty graph with no seeds, and blocks from no seeds.
  csr_view<std::int64_t, std::int32_t> const empty;
  CHECK_NOTHROW((void)gnndirect::sample_neighbors(cudaStream_t{}, empty, static_cast<const std::int32_t*>(nullptr), 0, 5, 0, gnndirect::uniform_sampler{}));
  auto const blocks = gnndirect::sample_blocks(cudaStream_t{}, f.d.view, f.seeds.data(), 0, {5, 5}, gnndirect::uniform_sampler{});
  REQUIRE(blocks.layers.size() == 2);
  CHECK(blocks.layers[1].num_src() == 0);
  CHECK(blocks.layers[1].num_edges() == 0);
  check_context_usable();
}

TEST_CASE("bad-input: zero-size validate (GPU)")
{
  csr_view<std::int64_t, std::int32_t> empty;
  CHECK_NOTHROW(gnndirect::validate(cudaStream_t{}, empty));
  buffer<std::int64_t> indptr(8, memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemset(indptr.data(), 0, indptr.bytes()));
  empty.indptr = indptr.data();
  empty.num_nodes = 7;  // 7 isolated nodes, no edge, null indices
  CHECK_NOTHROW(gnndirect::validate(cudaStream_t{}, empty));
  check_context_usable();
}

// ---------------------------------------------------------------------------------------------
// Unaligned (offset by one element) and non-contiguous (row_stride > cols) views.

namespace {

/// Gather or scatter between a remote table in `kind` and a device batch, both viewed from
/// `offset` elements into their allocation with strides `table_stride`/`batch_stride`, compared
/// byte for byte (padding and guard rows included) with the host reference on the same views.
template <class T>
void view_row(bool scatter, std::int64_t offset, bool strided, memory_kind kind, std::mt19937_64& rng)
{
  std::int64_t const rows = pick(rng, 800, 2000);
  std::int64_t const cols = pick(rng, 1, 600 / static_cast<std::int64_t>(sizeof(T)));
  std::int64_t const count = quick() ? pick(rng, 300, 700) : pick(rng, 4096, 6000);
  std::int64_t const table_stride = strided ? cols + pick(rng, 1, 9) : cols;
  std::int64_t const batch_stride = strided ? cols + pick(rng, 1, 5) : cols;
  CAPTURE(gnndirect::to_string(kind));
  CAPTURE(sizeof(T));
  CAPTURE(cols);
  CAPTURE(table_stride);
  CAPTURE(batch_stride);
  CAPTURE(count);
  // Allocations hold the view plus the offset and guard rows.
  placed_table<T> table(kind, rows + guard_rows + 1, table_stride);
  placed_table<T> batch(memory_kind::device, count + guard_rows + 1, batch_stride);
  std::vector<unsigned char> table_bytes = gnndirect::test::random_bytes(rng, table.owner.bytes());
  std::vector<unsigned char> batch_bytes =
    scatter ? gnndirect::test::random_bytes(rng, batch.owner.bytes()) : std::vector<unsigned char>(batch.owner.bytes(), poison);
  table.fill(table_bytes.data());
  batch.fill(batch_bytes.data());
  table_view<T> const table_v(table.view().data + offset, rows, cols, table_stride, kind);
  table_view<T> const batch_v(batch.view().data + offset, count, cols, batch_stride, memory_kind::device);
  std::vector<std::int64_t> indices;
  if (scatter) {  // unique targets: a deterministic result
    std::vector<std::int64_t> perm(static_cast<std::size_t>(rows));
    std::iota(perm.begin(), perm.end(), std::int64_t{0});
    std::shuffle(perm.begin(), perm.end(), rng);
    indices.assign(perm.begin(), perm.begin() + std::min(count, rows));
  } else {
    indices = gnndirect::test::random_indices<std::int64_t>(rng, count, rows);
  }
  auto const n = static_cast<std::int64_t>(indices.size());
  table_view<T> const batch_n(batch_v.data, n, cols, batch_stride, memory_kind::device);
  auto const device_indices = to_buffer(indices);
  if (scatter) {
    gnndirect::scatter(cudaStream_t{}, table_view<const T>(batch_n), device_indices.data(), n, table_v);
    gnndirect::host::scatter_reference(table_view<const T>(host_view<T>(batch_bytes, offset, n, cols, batch_stride)),
                                       indices.data(), n, host_view<T>(table_bytes, offset, rows, cols, table_stride));
  } else {
    gnndirect::gather(cudaStream_t{}, table_view<const T>(table_v), device_indices.data(), n, batch_n);
    gnndirect::host::gather_reference(table_view<const T>(host_view<T>(table_bytes, offset, rows, cols, table_stride)),
                                      indices.data(), n, host_view<T>(batch_bytes, offset, n, cols, batch_stride));
  }
  CHECK(table.read() == table_bytes);  // padding between rows and the guard rows included
  CHECK(batch.read() == batch_bytes);
}

template <class T>
void view_rows(bool scatter, std::int64_t offset, bool strided)
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (memory_kind const kind : {memory_kind::device, memory_kind::pinned, memory_kind::managed_host}) {
    view_row<T>(scatter, offset, strided, kind, rng);
  }
}

}  // namespace

TEST_CASE("bad-input: gather unaligned views (offset by one element)")
{
  view_rows<float>(false, 1, false);
  view_rows<std::int8_t>(false, 1, false);
  check_context_usable();
}

TEST_CASE("bad-input: scatter unaligned views (offset by one element)")
{
  view_rows<float>(true, 1, false);
  view_rows<std::int8_t>(true, 1, false);
  check_context_usable();
}

TEST_CASE("bad-input: gather non-contiguous views (row_stride > cols)")
{
  view_rows<float>(false, 0, true);
  view_rows<std::int16_t>(false, 1, true);  // strided and unaligned at once
  check_context_usable();
}

TEST_CASE("bad-input: scatter non-contiguous views (row_stride > cols)")
{
  view_rows<float>(true, 0, true);
  view_rows<std::int16_t>(true, 1, true);
  check_context_usable();
}
