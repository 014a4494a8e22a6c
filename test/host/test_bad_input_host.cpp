// Bad-input matrix, host rows (docs/reliability.md, "Fault matrix"): every TEST_CASE is one row,
// named "bad-input: ..." exactly as in the doc table. Each row asserts the exception type, the key
// message content and position()/value() where the exception has them, and that nothing the call
// was not allowed to write changed. Inputs are fresh random data (seed CAPTUREd) with the bad
// entry at a random position, so the "first bad position" logic is exercised everywhere.
// GPU rows live in test/gpu/test_bad_input.cu.
//
// Not a runtime row: an element type mismatch between gather/scatter source and destination is
// a compile-time error, static_assert "gnndirect gather/scatter: source and destination element
// types differ" (algorithms/gather.cuh; the host reference has "host reference: source and
// destination element types differ"), and an index type other than int32/int64 is
// "gnndirect gather/scatter: indices must be int32_t or int64_t". No failing-compile test is
// built for them.
#include <doctest/doctest.h>

#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/algorithms/validate.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/io/edge_list.hpp>
#include <gnndirect/io/npy.hpp>
#include <gnndirect/device/codecs.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/encoded_table.hpp>
#include <gnndirect/owners/registration.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/reference/gather_reference.hpp>
#include <gnndirect/reference/sample_reference.hpp>

#include "support/random.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

using gnndirect::corrupt_graph;
using gnndirect::csr_array;
using gnndirect::csr_view;
using gnndirect::memory_kind;
using gnndirect::table_view;

namespace {

/// A random valid CSR in host memory (degrees 0..24), with weights and edge ids.
template <class Offset, class Index>
struct random_csr {
  std::vector<Offset> indptr;
  std::vector<Index> indices;
  std::vector<float> weights;
  std::vector<Offset> edge_ids;
  std::int64_t num_nodes{0};

  random_csr(std::mt19937_64& rng, std::int64_t nodes) : num_nodes(nodes)
  {
    indptr.push_back(0);
    for (std::int64_t v = 0; v < nodes; ++v) {
      auto const degree = static_cast<std::int64_t>(rng() % 25);
      for (std::int64_t e = 0; e < degree; ++e) {
        indices.push_back(static_cast<Index>(rng() % static_cast<std::uint64_t>(nodes)));
        weights.push_back(static_cast<float>(rng() % 1000) / 100.0f);
        edge_ids.push_back(static_cast<Offset>(indices.size() - 1));
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
    v.edge_ids = edge_ids.data();
    v.num_nodes = num_nodes;
    v.num_edges = num_edges();
    v.indptr_kind = memory_kind::pinned;
    v.indices_kind = memory_kind::pinned;
    return v;
  }
};

/// A random position in [low, high) (high > low).
std::int64_t pick(std::mt19937_64& rng, std::int64_t low, std::int64_t high)
{
  return low + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(high - low));
}

/// Runs host validate, returns the corrupt_graph (fails the row if there is none or another type).
template <class Offset, class Index>
corrupt_graph expect_corrupt(const csr_view<Offset, Index>& graph)
{
  try {
    gnndirect::validate(graph);
  } catch (const corrupt_graph& error) {
    return error;
  }
  FAIL("validate accepted a corrupt graph");
  return corrupt_graph(__FILE__, __LINE__, csr_array::indptr, -2, "unreachable");
}

/// Checks array, position and a message fragment of validate's error, and that validate wrote
/// nothing (the arrays equal `before`).
template <class Offset, class Index>
void check_row(const random_csr<Offset, Index>& g, const random_csr<Offset, Index>& before,
               csr_array array, std::int64_t position, const std::string& text)
{
  corrupt_graph const error = expect_corrupt(g.view());
  CAPTURE(error.what());
  CHECK(error.array() == array);
  CHECK(error.position() == position);
  CHECK(std::string(error.what()).find(text) != std::string::npos);
  CHECK(std::string(error.what()).find("corrupt CSR graph: ") != std::string::npos);
  CHECK(g.indptr == before.indptr);
  CHECK(g.indices == before.indices);
  CHECK(g.weights == before.weights);
}

/// A unique temporary file, removed on destruction.
struct temp_file {
  std::string path;
  explicit temp_file(const char* suffix)
    : path("/tmp/gnndirect_bad_input_" + std::to_string(::getpid()) + "_" + std::to_string(next()) + suffix)
  {
  }
  ~temp_file() { std::remove(path.c_str()); }
  static int next()
  {
    static int counter = 0;
    return counter++;
  }
  void write(const std::string& bytes) const { std::ofstream(path, std::ios::binary) << bytes; }
};

/// A version 1.0 .npy file image with the given header dict and payload (padded like NumPy).
std::string npy_image(const std::string& dict, const std::string& payload)
{
  std::string text = dict;
  while ((10 + text.size() + 1) % 64 != 0) { text.push_back(' '); }
  text.push_back('\n');
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes.push_back(static_cast<char>(text.size() & 0xff));
  bytes.push_back(static_cast<char>(text.size() >> 8));
  return bytes + text + payload;
}

std::string payload_bytes(std::mt19937_64& rng, std::size_t bytes)
{
  std::vector<unsigned char> const random = gnndirect::test::random_bytes(rng, bytes);
  return std::string(random.begin(), random.end());
}

/// Opens `image` as a file through npy_array and expects invalid_argument naming the file and
/// `text`.
void expect_npy_file_error(const std::string& image, const std::string& text)
{
  temp_file const file(".npy");
  file.write(image);
  try {
    gnndirect::npy_array const array(file.path);
    FAIL("npy_array accepted a bad file");
  } catch (const gnndirect::invalid_argument& e) {
    CAPTURE(e.what());
    CHECK(std::string(e.what()).find(text) != std::string::npos);
    CHECK(std::string(e.what()).find("npy '" + file.path + "'") != std::string::npos);
  }
}

/// Host gather/scatter rows: the reference checks every index before copying, so on a bad index
/// the destination is entirely unchanged (stronger than the GPU, which zero-fills bad rows).
template <class Index>
void host_reference_row(bool scatter, bool negative)
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::int64_t const rows = pick(rng, 100, 400), cols = pick(rng, 1, 40), count = pick(rng, 50, 300);
  std::vector<float> table(static_cast<std::size_t>(rows * cols));
  std::vector<float> batch(static_cast<std::size_t>(count * cols));
  for (auto& x : table) { x = static_cast<float>(rng() % 10000); }
  for (auto& x : batch) { x = static_cast<float>(rng() % 10000); }
  auto indices = gnndirect::test::random_indices<Index>(rng, count, rows);
  std::int64_t const first = pick(rng, 0, count - 1);
  std::int64_t const later = pick(rng, first + 1, count);
  Index const bad = negative ? static_cast<Index>(-1 - static_cast<std::int64_t>(rng() % 1000))
                             : static_cast<Index>(rows + static_cast<std::int64_t>(rng() % 5));
  indices[static_cast<std::size_t>(first)] = bad;
  indices[static_cast<std::size_t>(later)] = std::numeric_limits<Index>::min();
  auto const table_before = table;
  auto const batch_before = batch;
  table_view<float> const table_view_(table.data(), rows, cols, cols, memory_kind::pinned);
  table_view<float> const batch_view(batch.data(), count, cols, cols, memory_kind::pinned);
  try {
    if (scatter) {
      gnndirect::host::scatter_reference(table_view<const float>(batch_view), indices.data(), count, table_view_);
    } else {
      gnndirect::host::gather_reference(table_view<const float>(table_view_), indices.data(), count, batch_view);
    }
    FAIL("expected index_out_of_range");
  } catch (const gnndirect::index_out_of_range& e) {
    CHECK(e.position() == first);
    CHECK(e.value() == static_cast<std::int64_t>(bad));
    CHECK(std::string(e.what()).find("indices[" + std::to_string(first) + "] = " + std::to_string(bad) +
                                     " is out of range [0, " + std::to_string(rows) + ")") != std::string::npos);
  }
  CHECK(table == table_before);
  CHECK(batch == batch_before);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Corrupt CSR through host validate().

TEST_CASE("bad-input: validate decreasing indptr (host)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  random_csr<std::int64_t, std::int32_t> g(rng, 3000);
  std::int64_t const p = pick(rng, 1, g.num_nodes);
  std::int64_t const q = pick(rng, p, g.num_nodes) + 1;  // a later decrease must not be reported
  g.indptr[static_cast<std::size_t>(p)] = g.indptr[static_cast<std::size_t>(p - 1)] - 1;
  if (q > p + 1 && q < g.num_nodes) { g.indptr[static_cast<std::size_t>(q)] = -100; }
  auto const before = g;
  check_row(g, before, csr_array::indptr, p,
            "indptr[" + std::to_string(p) + "] = " + std::to_string(g.indptr[static_cast<std::size_t>(p)]) +
              " < indptr[" + std::to_string(p - 1) + "]");
}

TEST_CASE("bad-input: validate indptr[0] != 0 (host)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  random_csr<std::int32_t, std::int32_t> g(rng, 500);
  g.indptr[0] = -1;
  auto const before = g;
  check_row(g, before, csr_array::indptr, 0, "indptr[0] = -1, expected 0");
}

TEST_CASE("bad-input: validate id >= num_nodes (host)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  random_csr<std::int64_t, std::int64_t> g(rng, 3000);
  std::int64_t const p = pick(rng, 0, g.num_edges() - 1);
  std::int64_t const q = pick(rng, p + 1, g.num_edges());
  g.indices[static_cast<std::size_t>(p)] = g.num_nodes + static_cast<std::int64_t>(rng() % 7);
  g.indices[static_cast<std::size_t>(q)] = std::int64_t{1} << 40;
  auto const before = g;
  check_row(g, before, csr_array::indices, p,
            "indices[" + std::to_string(p) + "] = " + std::to_string(g.indices[static_cast<std::size_t>(p)]) +
              " is out of range [0, 3000)");
}

TEST_CASE("bad-input: validate negative id (host)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  random_csr<std::int64_t, std::int32_t> g(rng, 3000);
  std::int64_t const p = pick(rng, 0, g.num_edges() - 1);
  g.indices[static_cast<std::size_t>(p)] = -7;
  g.indices.back() = std::numeric_limits<std::int32_t>::min();
  auto const before = g;
  check_row(g, before, csr_array::indices, p,
            "indices[" + std::to_string(p) + "] = -7 is out of range [0, 3000)");
}

TEST_CASE("bad-input: validate indptr[n] != num_edges (host)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  random_csr<std::int64_t, std::int32_t> g(rng, 2000);
  std::int64_t const m = g.num_edges();
  auto const n = static_cast<std::size_t>(g.num_nodes);
  SUBCASE("indptr[n] larger than the arrays")
  {
    g.indptr[n] = m + 1;
    auto const before = g;
    check_row(g, before, csr_array::indptr, g.num_nodes,
              "indptr[2000] = " + std::to_string(m + 1) + ", expected num_edges = " + std::to_string(m));
  }
  SUBCASE("num_edges smaller than indptr[n] (arrays longer than declared)")
  {
    auto const before = g;
    auto view = g.view();
    view.num_edges = m - 1;
    corrupt_graph const error = expect_corrupt(view);
    CHECK(error.array() == csr_array::indptr);
    CHECK(error.position() == g.num_nodes);
    CHECK(std::string(error.what()).find("expected num_edges = " + std::to_string(m - 1)) != std::string::npos);
    CHECK(g.indptr == before.indptr);
  }
}

TEST_CASE("bad-input: validate NaN weight (host)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  random_csr<std::int64_t, std::int32_t> g(rng, 3000);
  std::int64_t const p = pick(rng, 0, g.num_edges() - 1);
  g.weights[static_cast<std::size_t>(p)] = std::numeric_limits<float>::quiet_NaN();
  g.weights.back() = -1.0f;
  auto const before = g;
  corrupt_graph const error = expect_corrupt(g.view());
  CHECK(error.array() == csr_array::weights);
  CHECK(error.position() == p);
  CHECK(std::string(error.what()).find("weights[" + std::to_string(p) + "] = nan is not a finite non-negative number") !=
        std::string::npos);
  CHECK(g.indices == before.indices);  // NaN != NaN: compare the other arrays only
}

TEST_CASE("bad-input: validate negative weight (host)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  random_csr<std::int32_t, std::int64_t> g(rng, 3000);
  std::int64_t const p = pick(rng, 0, g.num_edges() - 1);
  g.weights[static_cast<std::size_t>(p)] = -0.5f;
  g.weights.back() = std::numeric_limits<float>::infinity();
  auto const before = g;
  check_row(g, before, csr_array::weights, p,
            "weights[" + std::to_string(p) + "] = -0.5 is not a finite non-negative number");
}

TEST_CASE("bad-input: validate negative edge id (host)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  random_csr<std::int64_t, std::int32_t> g(rng, 1000);
  std::int64_t const p = pick(rng, 0, g.num_edges());
  g.edge_ids[static_cast<std::size_t>(p)] = -3;
  auto const before = g;
  check_row(g, before, csr_array::edge_ids, p, "edge_ids[" + std::to_string(p) + "] = -3 is negative");
}

TEST_CASE("bad-input: validate null arrays and bad sizes (host)")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  random_csr<std::int32_t, std::int32_t> const g(rng, 100);
  auto expect_shape = [](csr_view<std::int32_t, std::int32_t> view, csr_array array, const char* text) {
    corrupt_graph const error = expect_corrupt(view);
    CAPTURE(error.what());
    CHECK(error.array() == array);
    CHECK(error.position() == -1);  // whole-array problem
    CHECK(std::string(error.what()).find(text) != std::string::npos);
  };
  auto v = g.view();
  v.indptr = nullptr;
  expect_shape(v, csr_array::indptr, "indptr is null but num_nodes = 100");
  v = g.view();
  v.indices = nullptr;
  expect_shape(v, csr_array::indices, "indices is null but num_edges");
  v = g.view();
  v.num_nodes = -1;
  expect_shape(v, csr_array::indptr, "num_nodes = -1 < 0");
  v = g.view();
  v.num_edges = -5;
  expect_shape(v, csr_array::indices, "num_edges = -5 < 0");
  v = g.view();
  v.num_edges = std::int64_t{1} << 31;  // does not fit int32 offsets (checked before any read)
  expect_shape(v, csr_array::indptr, "exceeds the range of the offset type");
  v = g.view();
  v.num_nodes = (std::int64_t{1} << 31) + 1;  // ids 0..2^31 do not fit int32
  expect_shape(v, csr_array::indices, "exceeds the range of the index type");
}

TEST_CASE("bad-input: validate device-resident view on the host")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  random_csr<std::int64_t, std::int32_t> const g(rng, 10);
  auto v = g.view();
  v.indptr_kind = memory_kind::device;  // the CPU must not dereference it
  CHECK_THROWS_WITH_AS(gnndirect::validate(v), doctest::Contains("validate it on the GPU"),
                       gnndirect::invalid_argument);
}

TEST_CASE("bad-input: zero-size validate (host)")
{
  csr_view<std::int64_t, std::int32_t> empty;  // 0 nodes, 0 edges, null arrays
  CHECK_NOTHROW(gnndirect::validate(empty));
  std::vector<std::int64_t> const indptr(8, 0);  // 7 isolated nodes, no edge, null indices
  empty.indptr = indptr.data();
  empty.num_nodes = 7;
  empty.indptr_kind = memory_kind::pinned;
  CHECK_NOTHROW(gnndirect::validate(empty));
}

// ---------------------------------------------------------------------------------------------
// Host reference gather/scatter and sampling.

TEST_CASE_TEMPLATE("bad-input: host gather_reference / scatter_reference index out of range", Index, std::int32_t,
                   std::int64_t)
{
  SUBCASE("gather_reference negative index") { host_reference_row<Index>(false, true); }
  SUBCASE("gather_reference index >= rows") { host_reference_row<Index>(false, false); }
  SUBCASE("scatter_reference negative index") { host_reference_row<Index>(true, true); }
  SUBCASE("scatter_reference index >= rows") { host_reference_row<Index>(true, false); }
}

TEST_CASE("bad-input: host sample reference bad seed")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  random_csr<std::int64_t, std::int32_t> const g(rng, 800);
  auto seeds = gnndirect::test::random_indices<std::int32_t>(rng, 300, 800);
  std::int64_t const p = pick(rng, 0, 299);
  seeds[static_cast<std::size_t>(p)] = 800;
  seeds.back() = -1;
  gnndirect::uniform_sampler const policy{};
  try {
    (void)gnndirect::host::sample_neighbors_reference(g.view(), seeds.data(), 300, 5, 0, policy);
    FAIL("expected index_out_of_range");
  } catch (const gnndirect::index_out_of_range& e) {
    CHECK(e.position() == p);
    CHECK(e.value() == 800);
    CHECK(std::string(e.what()).find("seeds[" + std::to_string(p) + "] = 800 is out of range [0, 800)") !=
          std::string::npos);
  }
  CHECK_THROWS_WITH_AS((void)gnndirect::host::sample_blocks_reference(g.view(), seeds.data(), 300, {3, 2}, policy),
                       doctest::Contains(("seeds of layer 0[" + std::to_string(p) + "] = 800").c_str()),
                       gnndirect::index_out_of_range);
}

TEST_CASE("bad-input: host sample_blocks_reference names an out-of-range neighbour id in the last layer")
{
  // 4 nodes; node 0 lists the id 4 (out of range). Fanout 5 >= every degree, so every list is
  // taken whole and the bad id is certainly sampled: in layer 0 from seed 0, in layer 1 (the last)
  // from seed 1 (1 -> 0, then 0 -> 4). Before the fix the last layer's ids were never checked and
  // 4 came back as an input node.
  std::vector<std::int64_t> const indptr{0, 2, 3, 3, 4};
  std::vector<std::int32_t> const indices{1, 4, 0, 2};
  gnndirect::csr_view<std::int64_t, std::int32_t> csr;
  csr.indptr = indptr.data();
  csr.indices = indices.data();
  csr.num_nodes = 4;
  csr.num_edges = 4;
  csr.indptr_kind = csr.indices_kind = gnndirect::memory_kind::pinned;
  gnndirect::uniform_sampler const sampler{7};
  std::int32_t const seed0[] = {0};
  std::int32_t const seed1[] = {1};
  CHECK_THROWS_WITH_AS((void)gnndirect::host::sample_blocks_reference(csr, seed0, 1, {5}, sampler, 1),
                       doctest::Contains("sampled neighbour ids (csr.indices) of layer 0"),
                       gnndirect::index_out_of_range);
  CHECK_THROWS_WITH_AS((void)gnndirect::host::sample_blocks_reference(csr, seed1, 1, {5, 5}, sampler, 1),
                       doctest::Contains("sampled neighbour ids (csr.indices) of layer 1"),
                       gnndirect::index_out_of_range);
  try {
    (void)gnndirect::host::sample_blocks_reference(csr, seed0, 1, {5}, sampler, 1);
  } catch (const gnndirect::index_out_of_range& e) {
    CHECK(e.value() == 4);
  }
}

namespace {
/// The host-visible part of a user's weighted sampler (validation reads only needs_weights).
struct weighted_user_sampler {
  static constexpr bool needs_weights = true;
};
}  // namespace

TEST_CASE("bad-input: sampler and policy rejected by validate(sampler, policy) (host)")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  random_csr<std::int64_t, std::int32_t> const g(rng, 50);
  auto const view = g.view();
  gnndirect::uniform_sampler const uniform{};
  gnndirect::sampling_policy policy{};
  policy.tile_size = 3;
  CHECK_THROWS_WITH_AS(gnndirect::validate(uniform, policy, view, 5),
                       doctest::Contains("tile_size must be a power of two in [1, 32], got 3"),
                       gnndirect::invalid_argument);
  policy = {};
  auto unweighted = view;
  unweighted.weights = nullptr;
  CHECK_THROWS_WITH_AS(gnndirect::validate(gnndirect::weighted_sampler{}, policy, unweighted, 5),
                       doctest::Contains("the sampler needs csr_view::weights"),
                       gnndirect::invalid_argument);
  // Any sampler type with needs_weights is checked the same way (not only the library's).
  CHECK_THROWS_WITH_AS(gnndirect::validate(weighted_user_sampler{}, policy, unweighted, 5),
                       doctest::Contains("the sampler needs csr_view::weights"),
                       gnndirect::invalid_argument);
  CHECK_NOTHROW(gnndirect::validate(weighted_user_sampler{}, policy, view, 5));
  policy.max_blocks = -1;
  CHECK_THROWS_WITH_AS(gnndirect::validate(uniform, policy, view, 5), doctest::Contains("max_blocks must be >= 0"),
                       gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::validate(uniform, gnndirect::sampling_policy{}, view, -1),
                       doctest::Contains("fanout must be >= 0, got -1"), gnndirect::invalid_argument);
  auto no_indptr = view;
  no_indptr.indptr = nullptr;
  CHECK_THROWS_WITH_AS(gnndirect::validate(uniform, gnndirect::sampling_policy{}, no_indptr, 5),
                       doctest::Contains("null indptr"), gnndirect::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// Views, owners and registration: argument checks that need no GPU.

TEST_CASE("bad-input: table_view shape errors (host)")
{
  std::vector<float> data(64);
  CHECK_THROWS_WITH_AS(gnndirect::validate(table_view<float>(data.data(), 4, 8, 7, memory_kind::pinned), "t"),
                       doctest::Contains("table_view 't': row_stride 7 < cols 8"), gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::validate(table_view<float>(data.data(), -1, 8, 8, memory_kind::pinned), "t"),
                       doctest::Contains("negative shape"), gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::validate(table_view<float>(nullptr, 4, 8, 8, memory_kind::device), "t"),
                       doctest::Contains("null data with non-zero size"), gnndirect::invalid_argument);
  CHECK_NOTHROW(gnndirect::validate(table_view<float>(nullptr, 0, 8, 8, memory_kind::device), "t"));
  CHECK_NOTHROW(gnndirect::validate(table_view<float>(nullptr, 5, 0, 0, memory_kind::device), "t"));
}

TEST_CASE("bad-input: null pointer registration")
{
  CHECK_THROWS_WITH_AS(gnndirect::host_registration(nullptr, 4096), doctest::Contains("null pointer"),
                       gnndirect::invalid_argument);
  std::vector<char> bytes(4096);
  CHECK_THROWS_WITH_AS(gnndirect::host_registration(bytes.data(), 0), doctest::Contains("zero-size range"),
                       gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::host_registration(bytes.data(), 4096, 0), doctest::Contains("zero chunk size"),
                       gnndirect::invalid_argument);
  // Argument errors never record the range: a later (device-dependent) attempt is not refused
  // as an overlap. Checked without a device through the registry itself.
  auto const begin = reinterpret_cast<std::uintptr_t>(bytes.data());
  CHECK_NOTHROW(gnndirect::detail::registration_registry::instance().add(begin, begin + 4096));
  gnndirect::detail::registration_registry::instance().remove(begin);
}

TEST_CASE("bad-input: table size overflow and negative shape")
{
  CHECK_THROWS_WITH_AS(gnndirect::table<float>(4, -1, memory_kind::device), doctest::Contains("negative shape"),
                       gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::table<std::int64_t>(std::int64_t{1} << 62, 4, memory_kind::managed_host),
                       doctest::Contains("overflows"), gnndirect::invalid_argument);
  std::vector<float> host(16);
  CHECK_THROWS_WITH_AS(gnndirect::table<float>::adopt_by_registration(host.data(), 4, 4, 3),
                       doctest::Contains("row_stride < cols"), gnndirect::invalid_argument);
}

TEST_CASE("bad-input: buffer size overflow is refused before allocating")
{
  // Issue #42 item 3: 2^61 + 4 int64 elements wrapped to 32 bytes (size() 2^61 + 4, bytes() 32)
  // in pinned, device and stream-ordered memory. The check comes before any CUDA call, so this
  // runs without a GPU too.
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  std::size_t const wraps = (std::size_t{1} << 61) + 1 + rng() % 1000;  // x 8 wraps past 2^64
  CAPTURE(wraps);
  for (memory_kind kind : {memory_kind::device, memory_kind::pinned, memory_kind::managed_host}) {
    std::string const where(gnndirect::to_string(kind));
    CAPTURE(where);
    CHECK_THROWS_WITH_AS(gnndirect::buffer<std::int64_t>(wraps, kind), doctest::Contains("size * sizeof(T) overflows"),
                         gnndirect::invalid_argument);
  }
  CHECK_THROWS_WITH_AS(gnndirect::buffer<std::int64_t>(wraps, cudaStream_t{}), doctest::Contains("overflows"),
                       gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::buffer<std::int64_t>(wraps, cudaStream_t{}, cudaMemPool_t{}),
                       doctest::Contains("overflows"), gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::buffer<double>(std::numeric_limits<std::size_t>::max(), memory_kind::pinned),
                       doctest::Contains("overflows"), gnndirect::invalid_argument);
  // The helper itself, at the edge: the largest product that fits passes, one more does not.
  std::size_t const max = std::numeric_limits<std::size_t>::max();
  CHECK(gnndirect::detail::checked_product(max / 8, 8, "edge") == max / 8 * 8);
  CHECK_THROWS_AS(gnndirect::detail::checked_product(max / 8 + 1, 8, "edge"), gnndirect::invalid_argument);
  CHECK(gnndirect::detail::checked_product(0, max, "zero") == 0);
  CHECK_THROWS_AS(gnndirect::detail::checked_sum(max, 1, "sum"), gnndirect::invalid_argument);
}

TEST_CASE("bad-input: encoded table size overflow is refused before allocating")
{
  // Issue #42 item 3: 2^58 + 1 rows of 64-byte encoded rows threw std::bad_alloc; now the
  // documented invalid_argument, before anything is allocated or read (the input is never
  // touched: a pointer to a few values stands for it), in every placement.
  std::vector<float> const few(64, 1.0f);
  std::int64_t const rows = (std::int64_t{1} << 58) + 1;
  for (memory_kind kind : {memory_kind::device, memory_kind::pinned, memory_kind::registered, memory_kind::managed_host}) {
    std::string const where(gnndirect::to_string(kind));
    CAPTURE(where);
    CHECK_THROWS_WITH_AS(gnndirect::encoded_table<gnndirect::codecs::int8_affine>(few.data(), rows, 64, kind),
                         doctest::Contains("rows * stride bytes overflows"), gnndirect::invalid_argument);
    CHECK_THROWS_WITH_AS(gnndirect::encoded_table<gnndirect::codecs::fp32>(few.data(), 2, std::int64_t{1} << 62, kind),
                         doctest::Contains("overflows"), gnndirect::invalid_argument);
  }
}

// ---------------------------------------------------------------------------------------------
// Non-regular files passed to the loaders (issue #42 item 4).

namespace {

/// Runs `call` on a thread and expects it to throw invalid_argument containing `text` within
/// 10 seconds. A call still blocked then (the old open() of a FIFO's read end waited for a
/// writer forever) is released by opening `fifo`'s write end, and the row fails.
template <class Call>
void expect_refused_in_time(Call call, const std::string& text, const std::string& fifo)
{
  std::promise<std::string> result;
  std::future<std::string> done = result.get_future();
  std::thread worker([&] {
    try {
      call();
      result.set_value("accepted");
    } catch (const gnndirect::invalid_argument& e) {
      result.set_value(std::string("invalid_argument: ") + e.what());
    } catch (const std::exception& e) {
      result.set_value(std::string("other exception: ") + e.what());
    }
  });
  bool const in_time = done.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  if (!in_time) {
    int const writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // ends a blocked open(); EOF on close
    if (writer >= 0) { ::close(writer); }
  }
  worker.join();
  CHECK_MESSAGE(in_time, "the loader blocked on a non-regular file");
  std::string const what = done.get();
  CAPTURE(what);
  CHECK(what.rfind("invalid_argument: ", 0) == 0);
  CHECK(what.find(text) != std::string::npos);
}

}  // namespace

TEST_CASE("bad-input: loaders refuse FIFOs, devices and directories without blocking")
{
  temp_file const fifo(".npy");
  REQUIRE(::mkfifo(fifo.path.c_str(), 0600) == 0);
  temp_file const directory(".npy");
  REQUIRE(::mkdir(directory.path.c_str(), 0700) == 0);
  temp_file const good(".npy");  // a valid file beside the bad one, so each loader reaches it
  gnndirect::save_npy(good.path, std::vector<std::int64_t>{0, 1, 2});
  struct bad_path {
    std::string path;
    std::string kind;
  };
  std::vector<bad_path> const bad{{fifo.path, "is a FIFO"}, {directory.path, "is a directory"},
                                  {"/dev/null", "is a character device"}};
  for (const bad_path& b : bad) {
    CAPTURE(b.path);
    expect_refused_in_time([&] { gnndirect::npy_array const a(b.path); }, "npy '" + b.path + "': " + b.kind, fifo.path);
    expect_refused_in_time([&] { (void)gnndirect::load_table_npy<float>(b.path, memory_kind::pinned); }, b.kind,
                           fifo.path);
    expect_refused_in_time(
      [&] { (void)gnndirect::load_csr_npy<std::int64_t, std::int32_t>(b.path, good.path, {}); }, b.kind, fifo.path);
    expect_refused_in_time(
      [&] { (void)gnndirect::load_csr_npy<std::int64_t, std::int32_t>(good.path, b.path, {}); }, b.kind, fifo.path);
    expect_refused_in_time([&] { (void)gnndirect::load_coo_npy<std::int32_t>(good.path, b.path); }, b.kind,
                           fifo.path);
    expect_refused_in_time([&] { (void)gnndirect::read_edge_list<std::int32_t>(b.path); },
                           "edge list '" + b.path + "': " + b.kind, fifo.path);
  }
  // A missing file still says so.
  expect_refused_in_time([&] { (void)gnndirect::read_edge_list<std::int32_t>(good.path + ".missing"); },
                         "cannot open", fifo.path);
  ::rmdir(directory.path.c_str());
}

// ---------------------------------------------------------------------------------------------
// .npy files (through npy_array on real files, and the loaders).

TEST_CASE("bad-input: npy truncated data")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  auto const elements = pick(rng, 2, 1000);
  std::string const dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (" + std::to_string(elements) + ",), }";
  auto const missing = pick(rng, 1, elements * 8);
  std::string const image = npy_image(dict, payload_bytes(rng, static_cast<std::size_t>(elements * 8 - missing)));
  expect_npy_file_error(image, "truncated data: the header declares " + std::to_string(elements * 8) +
                                 " bytes, the file holds " + std::to_string(elements * 8 - missing));
}

TEST_CASE("bad-input: npy truncated header")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  std::string const image = npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", "");
  auto const cut = static_cast<std::size_t>(pick(rng, 10, static_cast<std::int64_t>(image.size()) - 1));
  CAPTURE(cut);
  expect_npy_file_error(image.substr(0, cut), "truncated header");
}

TEST_CASE("bad-input: npy big-endian dtype")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  for (const char* descr : {">i4", ">f8", ">u2", ">i8"}) {
    CAPTURE(descr);
    std::string const dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2,), }";
    expect_npy_file_error(npy_image(dict, payload_bytes(rng, 16)), "big-endian dtype");
  }
}

TEST_CASE("bad-input: npy fortran order")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  expect_npy_file_error(npy_image("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 2), }", payload_bytes(rng, 24)),
                        "Fortran-order arrays are not supported");
}

TEST_CASE("bad-input: npy object dtype")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  expect_npy_file_error(npy_image("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", payload_bytes(rng, 16)),
                        "object arrays ('|O') are not supported");
}

TEST_CASE("bad-input: npy loaders refuse wrong dtype or rank or values")
{
  // Only checks that run before any allocation here (CPU CI has no GPU): the CSR loader's shape
  // checks, and the host COO loader's dtype and range checks (the same conversion code).
  temp_file const indptr(".npy");
  temp_file const indices(".npy");
  temp_file const weights(".npy");
  gnndirect::save_npy(indices.path, std::vector<std::int64_t>{0, 1, 2});
  std::vector<std::int64_t> const square{0, 1, 2, 3};
  gnndirect::save_npy(indptr.path, gnndirect::npy_dtype::int64, {2, 2}, square.data());
  CHECK_THROWS_WITH_AS((gnndirect::load_csr_npy<std::int64_t, std::int32_t>(indptr.path, indices.path, {})),
                       doctest::Contains("expected a 1-D array, found 2 dimensions"), gnndirect::invalid_argument);
  gnndirect::save_npy(indptr.path, std::vector<std::int64_t>{});
  CHECK_THROWS_WITH_AS((gnndirect::load_csr_npy<std::int64_t, std::int32_t>(indptr.path, indices.path, {})),
                       doctest::Contains("indptr needs at least one entry"), gnndirect::invalid_argument);
  gnndirect::save_npy(indptr.path, std::vector<std::int64_t>{0, 1, 3});
  gnndirect::save_npy(weights.path, std::vector<float>{1, 2});
  CHECK_THROWS_WITH_AS(
    (gnndirect::load_csr_npy<std::int64_t, std::int32_t>(indptr.path, indices.path, {}, weights.path)),
    doctest::Contains("has 2 elements, indices has 3"), gnndirect::invalid_argument);

  temp_file const src(".npy");
  gnndirect::save_npy(src.path, std::vector<float>{0, 1, 3});
  CHECK_THROWS_WITH_AS(gnndirect::load_coo_npy<std::int32_t>(src.path, indices.path),
                       doctest::Contains("expected an integer dtype, found <f4"), gnndirect::invalid_argument);
  gnndirect::save_npy(src.path, std::vector<std::int64_t>{0, std::int64_t{1} << 35, 1});
  CHECK_THROWS_WITH_AS(gnndirect::load_coo_npy<std::int32_t>(src.path, indices.path),
                       doctest::Contains("element 1 = 34359738368 does not fit the target type"),
                       gnndirect::invalid_argument);
  // Mapped access with the wrong element type.
  gnndirect::npy_array const mapped(indptr.path);
  CHECK_THROWS_WITH_AS((void)mapped.data_as<std::int32_t>(), doctest::Contains("dtype <i8 does not match the requested <i4"),
                       gnndirect::invalid_argument);
}

TEST_CASE("bad-input: npy random bytes never crash the parser")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::string const valid = npy_image("{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", std::string(16, '\0'));
  int refused = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bytes = valid;
    int const flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) { bytes[rng() % bytes.size()] = static_cast<char>(rng()); }
    if (rng() % 4 == 0) { bytes.resize(rng() % bytes.size()); }
    try {
      (void)gnndirect::parse_npy_header(bytes.data(), bytes.size(), "fuzz.npy");
    } catch (const gnndirect::invalid_argument& e) {
      ++refused;
      CHECK(std::string(e.what()).find("npy 'fuzz.npy': ") != std::string::npos);
    }
    // Any other exception type escapes and fails the row.
  }
  MESSAGE("random corruptions refused: " << refused << " of 2000");
  CHECK(refused > 0);
}

// ---------------------------------------------------------------------------------------------
// Edge lists.

TEST_CASE("bad-input: edge-list garbage")
{
  auto fails = [](const std::string& text, const std::string& message, std::int64_t nodes = -1) {
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(gnndirect::parse_edge_list<std::int32_t>(text, "g.txt", nodes), doctest::Contains(message.c_str()),
                         gnndirect::invalid_argument);
  };
  fails(std::string("0 1\n\x01\x02\xff\xfe 3\n", 13), "edge list 'g.txt', line 2: '");
  fails(std::string("0 1\n2\0003\n", 8), "line 2:");                // embedded NUL
  fails("0 1\n1 2\n3 4 5 6\n", "line 3: expected 'src dst [weight]', found more than 3");
  fails("0 1\n1 +2\n", "line 2: '+2' is not a node id");
  fails("0 1\n1 0x10\n", "line 2: '0x10' is not a node id");
  fails("0 99999999999999999999\n", "'99999999999999999999' is not a node id");
  fails("0 1 inf\n", "'inf' is not a weight");
  fails("0 1 -0.25\n", "'-0.25' is not a weight");
  fails("0 1 1e39\n", "'1e39' is not a weight");                    // overflows float
  fails("3 4\n", "'4' is not a node id (a non-negative integer <= 3)", 4);
  CHECK_THROWS_WITH_AS(gnndirect::parse_edge_list<std::int64_t>("0 1\n2 3 0.5\n", "h.txt"),
                       doctest::Contains("edge list 'h.txt', line 2: has a weight but earlier edges do not"),
                       gnndirect::invalid_argument);
}

TEST_CASE("bad-input: edge-list random garbage never crashes the parser")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const char alphabet[] = "0123456789 \t\n\r#.-+eEx,;\x01\xff";
  int refused = 0, accepted = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text;
    auto const length = rng() % 64;
    for (std::uint64_t i = 0; i < length; ++i) { text.push_back(alphabet[rng() % (sizeof(alphabet) - 1)]); }
    try {
      auto const coo = gnndirect::parse_edge_list<std::int32_t>(text, "r.txt");
      ++accepted;
      CHECK(coo.src.size() == coo.dst.size());
      for (std::size_t e = 0; e < coo.src.size(); ++e) {
        CHECK(coo.src[e] >= 0);
        CHECK(coo.dst[e] < coo.num_nodes);
      }
    } catch (const gnndirect::invalid_argument& e) {
      ++refused;
      CHECK(std::string(e.what()).find("edge list 'r.txt', line ") != std::string::npos);
    }
  }
  MESSAGE("edge-list garbage: " << accepted << " accepted, " << refused << " refused");
  CHECK(refused > 0);
}

// ---------------------------------------------------------------------------------------------
// Pointer residency and alignment (detail/core/pointer_checks.hpp): the decision is a pure function of
// what cudaPointerGetAttributes reports, so every branch is checked here without a GPU; the GPU
// rows (test_gpu_bad_input) run it through the entry points.

TEST_CASE("bad-input: pointer checks accept reachable memory and name the argument otherwise (host)")
{
  using gnndirect::detail::access_context;
  using gnndirect::detail::access_problem;
  using gnndirect::detail::pointer_facts;
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  auto const* p = reinterpret_cast<const void*>(std::uintptr_t{0x7f0000000000} + 256 * (rng() % 1000));
  access_context here{0, false, false};
  CHECK(access_problem(p, pointer_facts{cudaMemoryTypeDevice, 0, p}, here, "indices").empty());
  CHECK(access_problem(p, pointer_facts{cudaMemoryTypeManaged, 0, p}, here, "indices").empty());
  CHECK(access_problem(p, pointer_facts{cudaMemoryTypeHost, -2, p}, here, "indices").empty());
  // Pageable host memory: only with cudaDevAttrPageableMemoryAccess.
  std::string const pageable = access_problem(p, pointer_facts{}, here, "seeds");
  CAPTURE(pageable);
  CHECK(pageable.find("seeds (0x") == 0);
  CHECK(pageable.find("is pageable host memory, which device 0 cannot access") != std::string::npos);
  CHECK(access_problem(p, pointer_facts{}, access_context{0, true, false}, "seeds").empty());
  // Page-locked but not mapped, or passed by its host address where the device address differs.
  CHECK(access_problem(p, pointer_facts{cudaMemoryTypeHost, -2, nullptr}, here, "dst").find("not mapped") != std::string::npos);
  auto const* other = reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(p) + 4096);
  CHECK(access_problem(p, pointer_facts{cudaMemoryTypeHost, -2, other}, here, "dst").find("cudaHostGetDevicePointer") != std::string::npos);
  // Device memory of another GPU: only with peer access.
  std::string const foreign = access_problem(p, pointer_facts{cudaMemoryTypeDevice, 3, p}, access_context{1, false, false}, "src");
  CHECK(foreign.find("src (0x") == 0);
  CHECK(foreign.find("memory of device 3, which the current device 1 cannot access") != std::string::npos);
  CHECK(access_problem(p, pointer_facts{cudaMemoryTypeDevice, 3, p}, access_context{1, false, true}, "src").empty());
}

TEST_CASE("bad-input: misaligned pointers are refused before any CUDA call (host)")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  std::vector<std::int64_t> storage(64);
  auto* const base = reinterpret_cast<unsigned char*>(storage.data());
  // An int64 array 4 bytes off: a sticky misaligned-address fault on the GPU before the check.
  std::size_t const offset = 4 * (1 + 2 * (rng() % 2));  // 4 or 12
  CAPTURE(offset);
  CHECK_THROWS_WITH_AS(gnndirect::detail::check_device_accessible(base + offset, 64, alignof(std::int64_t), "indices"),
                       doctest::Contains("indices at 0x"), gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::detail::check_device_accessible(base + offset, 64, 8, "indices"),
                       doctest::Contains("is not 8-byte aligned (4 bytes past a boundary)"), gnndirect::invalid_argument);
  CHECK(gnndirect::detail::alignment_problem(base + 8, 8, "x").empty());
  CHECK(gnndirect::detail::alignment_problem(base + 2, 1, "x").empty());
  std::uintptr_t const boundary = (reinterpret_cast<std::uintptr_t>(base) + 255) / 256 * 256;
  std::string const ws_problem = gnndirect::detail::alignment_problem(reinterpret_cast<void*>(boundary + 4), 256, "workspace");
  CHECK(ws_problem.find("workspace at 0x") == 0);
  CHECK(ws_problem.find("is not 256-byte aligned (4 bytes past a boundary)") != std::string::npos);
  CHECK_THROWS_AS(gnndirect::detail::check_device_accessible(base, 8, 3, "x"), gnndirect::invalid_argument);
  // Null: accepted only for an empty range.
  CHECK_NOTHROW(gnndirect::detail::check_device_accessible(nullptr, 0, 8, "indices"));
  CHECK_THROWS_WITH_AS(gnndirect::detail::check_device_accessible(nullptr, 16, 8, "indices"),
                       doctest::Contains("indices is null but 16 bytes would be accessed"), gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::detail::check_device_accessible(base, ~std::size_t{0}, 8, "indices"),
                       doctest::Contains("wraps around the address space"), gnndirect::invalid_argument);
  if (gnndirect::device_count() == 0) {  // a well-formed pointer needs the driver to classify it
    CHECK_THROWS_AS(gnndirect::detail::check_device_accessible(base, 64, 8, "indices"), gnndirect::no_device_error);
  }
}
