// Host tests of graph construction, validation, generators and graph file parsers: every
// validation rule with its first bad position, COO -> CSR against a naive reference on fresh
// random inputs, generator determinism and shape, .npy and edge-list round trips and errors.
#include <doctest/doctest.h>

#include <gnndirect/algorithms/validate.hpp>
#include <gnndirect/graph/coo_to_csr.hpp>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/io/edge_list.hpp>
#include <gnndirect/io/npy.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using gnndirect::corrupt_graph;
using gnndirect::csr_array;
using gnndirect::csr_view;

namespace {

/// A small valid host CSR (4 nodes, 6 edges) that tests corrupt one entry at a time.
struct small_csr {
  std::vector<std::int64_t> indptr{0, 2, 2, 5, 6};
  std::vector<std::int32_t> indices{1, 3, 0, 1, 2, 3};
  std::vector<float> weights{0.5f, 1.f, 0.f, 2.f, 3.f, 4.f};
  std::vector<std::int64_t> edge_ids{5, 4, 3, 2, 1, 0};

  csr_view<std::int64_t, std::int32_t> view() const
  {
    csr_view<std::int64_t, std::int32_t> v;
    v.indptr = indptr.data();
    v.indices = indices.data();
    v.weights = weights.data();
    v.edge_ids = edge_ids.data();
    v.num_nodes = 4;
    v.num_edges = 6;
    v.indptr_kind = gnndirect::memory_kind::pinned;
    v.indices_kind = gnndirect::memory_kind::pinned;
    return v;
  }
};

/// Runs validate and returns the corrupt_graph it throws (fails the test if it does not).
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

void check_corrupt(const small_csr& g, csr_array array, std::int64_t position, const char* text)
{
  corrupt_graph const error = expect_corrupt(g.view());
  CHECK(error.array() == array);
  CHECK(error.position() == position);
  CHECK(std::string(error.what()).find(text) != std::string::npos);
  CAPTURE(error.what());
}

std::uint64_t fresh_seed()
{
  return (std::uint64_t{std::random_device{}()} << 32) | std::random_device{}();
}

/// Naive COO -> CSR: bucket edges by source in input order.
gnndirect::host_csr<std::int64_t, std::int32_t> naive_csr(const gnndirect::host_coo<std::int32_t>& coo)
{
  std::vector<std::vector<std::int64_t>> buckets(static_cast<std::size_t>(coo.num_nodes));
  for (std::int64_t e = 0; e < coo.num_edges(); ++e) {
    buckets[static_cast<std::size_t>(coo.src[e])].push_back(e);
  }
  gnndirect::host_csr<std::int64_t, std::int32_t> csr;
  csr.num_nodes = coo.num_nodes;
  csr.indptr.push_back(0);
  for (auto const& bucket : buckets) {
    for (std::int64_t const e : bucket) {
      csr.indices.push_back(coo.dst[e]);
      if (!coo.weights.empty()) { csr.weights.push_back(coo.weights[e]); }
      csr.edge_ids.push_back(e);
    }
    csr.indptr.push_back(static_cast<std::int64_t>(csr.indices.size()));
  }
  return csr;
}

gnndirect::host_coo<std::int32_t> random_coo(std::uint64_t seed, std::int64_t nodes, std::int64_t edges,
                                             bool weighted)
{
  std::mt19937_64 rng(seed);
  // Skewed sources (squares of uniforms) so that some nodes have many edges, others none.
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  gnndirect::host_coo<std::int32_t> coo;
  coo.num_nodes = nodes;
  for (std::int64_t e = 0; e < edges; ++e) {
    double const u = unit(rng);
    coo.src.push_back(static_cast<std::int32_t>(static_cast<double>(nodes) * u * u));
    coo.dst.push_back(static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(nodes)));
    if (weighted) { coo.weights.push_back(static_cast<float>(unit(rng))); }
  }
  return coo;
}

/// A unique temporary file name, removed on destruction.
struct temp_file {
  std::string path;
  explicit temp_file(const std::string& suffix)
    : path("/tmp/gnndirect_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++) + suffix)
  {
  }
  ~temp_file() { std::remove(path.c_str()); }
  static int& counter()
  {
    static int value = 0;
    return value;
  }
  void write(const std::string& bytes) const
  {
    std::ofstream(path, std::ios::binary) << bytes;
  }
};

/// Bytes of a .npy file with the given header dict text (version 1.0, padded like NumPy).
std::string npy_bytes(const std::string& dict, const std::string& payload, int version = 1)
{
  std::string text = dict;
  std::size_t const prefix = version == 1 ? 10 : 12;
  while ((prefix + text.size() + 1) % 64 != 0) { text.push_back(' '); }
  text.push_back('\n');
  std::string bytes("\x93NUMPY", 6);
  bytes.push_back(static_cast<char>(version));
  bytes.push_back('\0');
  std::size_t const length = text.size();
  for (std::size_t i = 0; i < prefix - 8; ++i) { bytes.push_back(static_cast<char>((length >> (8 * i)) & 0xff)); }
  return bytes + text + payload;
}

}  // namespace

TEST_CASE("validate accepts valid graphs, including empty ones")
{
  small_csr const g;
  CHECK_NOTHROW(gnndirect::validate(g.view()));
  csr_view<std::int32_t, std::int64_t> empty;  // 0 nodes, 0 edges, null arrays
  CHECK_NOTHROW(gnndirect::validate(empty));
  std::vector<std::int32_t> const zeros{0, 0, 0};
  csr_view<std::int32_t, std::int32_t> isolated;
  isolated.indptr = zeros.data();
  isolated.num_nodes = 2;
  isolated.indptr_kind = gnndirect::memory_kind::pinned;
  CHECK_NOTHROW(gnndirect::validate(isolated));
}

TEST_CASE("validate reports each rule at its first bad position")
{
  {
    small_csr g;
    g.indptr[0] = 1;
    check_corrupt(g, csr_array::indptr, 0, "indptr[0] = 1, expected 0");
  }
  {
    small_csr g;
    g.indptr[2] = 1;  // 2 -> 1 decreases at position 2; position 3 is fine again
    check_corrupt(g, csr_array::indptr, 2, "indptr[2] = 1 < indptr[1] = 2 (indptr must be non-decreasing)");
  }
  {
    small_csr g;
    g.indptr[4] = 7;
    check_corrupt(g, csr_array::indptr, 4, "indptr[4] = 7, expected num_edges = 6");
  }
  {
    small_csr g;
    g.indices[4] = 4;
    g.indices[5] = -1;
    check_corrupt(g, csr_array::indices, 4, "indices[4] = 4 is out of range [0, 4)");
  }
  {
    small_csr g;
    g.indices[1] = -3;
    check_corrupt(g, csr_array::indices, 1, "indices[1] = -3 is out of range [0, 4)");
  }
  {
    small_csr g;
    g.weights[3] = std::numeric_limits<float>::quiet_NaN();
    g.weights[5] = -1.f;
    check_corrupt(g, csr_array::weights, 3, "weights[3] = nan is not a finite non-negative number");
  }
  {
    small_csr g;
    g.weights[2] = -0.25f;
    check_corrupt(g, csr_array::weights, 2, "weights[2] = -0.25 is not a finite non-negative number");
  }
  {
    small_csr g;
    g.weights[0] = std::numeric_limits<float>::infinity();
    check_corrupt(g, csr_array::weights, 0, "weights[0] = inf");
  }
  {
    small_csr g;
    g.edge_ids[5] = -1;
    check_corrupt(g, csr_array::edge_ids, 5, "edge_ids[5] = -1 is negative");
  }
  {
    small_csr g;  // arrays are checked in order: an indptr error wins over an indices error
    g.indices[0] = 9;
    g.indptr[3] = 1;
    check_corrupt(g, csr_array::indptr, 3, "indptr[3] = 1 < indptr[2] = 2");
  }
}

TEST_CASE("validate rejects bad shapes and pointers as whole-array problems")
{
  small_csr const g;
  auto v = g.view();
  v.num_nodes = -1;
  CHECK(expect_corrupt(v).position() == -1);
  v = g.view();
  v.num_edges = -2;
  CHECK(expect_corrupt(v).array() == csr_array::indices);
  v = g.view();
  v.indices = nullptr;
  CHECK_THROWS_WITH_AS(gnndirect::validate(v), doctest::Contains("indices is null but num_edges = 6"),
                       corrupt_graph);
  v = g.view();
  v.indptr = nullptr;
  CHECK(expect_corrupt(v).array() == csr_array::indptr);
  v = g.view();
  v.indptr_kind = gnndirect::memory_kind::device;
  CHECK_THROWS_WITH_AS(gnndirect::validate(v), doctest::Contains("device memory"),
                       gnndirect::invalid_argument);
  csr_view<std::int32_t, std::int32_t> wide;  // 2^31 edges cannot be int32 offsets
  wide.num_edges = std::int64_t{1} << 31;
  CHECK_THROWS_WITH_AS(gnndirect::validate(wide), doctest::Contains("offset type"), corrupt_graph);
  wide.num_edges = 0;
  wide.num_nodes = (std::int64_t{1} << 31) + 1;
  CHECK_THROWS_WITH_AS(gnndirect::validate(wide), doctest::Contains("index type"), corrupt_graph);
}

TEST_CASE("validate finds the first bad position of a large graph checked in parallel")
{
  std::uint64_t const seed = fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::int64_t const n = 1000;
  std::int64_t const m = 3'000'000;
  std::vector<std::int64_t> indptr(static_cast<std::size_t>(n) + 1);
  for (std::int64_t v = 0; v <= n; ++v) { indptr[static_cast<std::size_t>(v)] = m * v / n; }
  std::vector<std::int32_t> indices(static_cast<std::size_t>(m));
  for (auto& i : indices) { i = static_cast<std::int32_t>(rng() % n); }
  csr_view<std::int64_t, std::int32_t> v;
  v.indptr = indptr.data();
  v.indices = indices.data();
  v.num_nodes = n;
  v.num_edges = m;
  v.indptr_kind = v.indices_kind = gnndirect::memory_kind::pinned;
  CHECK_NOTHROW(gnndirect::validate(v));
  // Several bad positions spread over different worker slices: the smallest is reported.
  std::vector<std::int64_t> bad;
  for (int k = 0; k < 5; ++k) { bad.push_back(static_cast<std::int64_t>(rng() % m)); }
  for (std::int64_t const b : bad) { indices[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(n + b % 7); }
  corrupt_graph const error = expect_corrupt(v);
  CHECK(error.array() == csr_array::indices);
  CHECK(error.position() == *std::min_element(bad.begin(), bad.end()));
}

TEST_CASE("host coo_to_csr matches a naive reference on fresh random inputs")
{
  std::uint64_t const seed = fresh_seed();
  CAPTURE(seed);
  struct shape {
    std::int64_t nodes, edges;
  };
  // Sizes below and above the parallel threshold, plus edge cases.
  for (shape const s : {shape{1, 0}, shape{1, 1}, shape{7, 13}, shape{1000, 50'000}, shape{3000, 400'000}}) {
    for (bool const weighted : {false, true}) {
      CAPTURE(s.nodes);
      CAPTURE(s.edges);
      auto const coo = random_coo(seed + static_cast<std::uint64_t>(s.edges), s.nodes, s.edges, weighted);
      auto const expected = naive_csr(coo);
      auto const csr = gnndirect::host::coo_to_csr<std::int64_t, std::int32_t>(coo.view(), {true});
      CHECK(csr.indptr == expected.indptr);
      CHECK(csr.indices == expected.indices);
      CHECK(csr.weights == expected.weights);
      CHECK(csr.edge_ids == expected.edge_ids);
      CHECK_NOTHROW(gnndirect::validate(csr.view()));
      auto const plain = gnndirect::host::coo_to_csr<std::int32_t, std::int32_t>(coo.view());
      CHECK(plain.edge_ids.empty());
      CHECK(plain.indices == expected.indices);
    }
  }
}

TEST_CASE("host coo_to_csr names the first out-of-range id")
{
  gnndirect::host_coo<std::int32_t> coo;
  coo.num_nodes = 3;
  coo.src = {0, 1, 2, 5};
  coo.dst = {1, 7, 0, 0};
  auto const convert = [&] { return gnndirect::host::coo_to_csr<std::int64_t, std::int32_t>(coo.view()); };
  CHECK_THROWS_WITH_AS(convert(),
                       doctest::Contains("coo src[3] = 5 is out of range [0, 3)"),
                       gnndirect::index_out_of_range);
  coo.src[3] = 2;
  CHECK_THROWS_WITH_AS(convert(), doctest::Contains("coo dst[1] = 7"), gnndirect::index_out_of_range);
  coo.num_nodes = -1;
  CHECK_THROWS_AS(convert(), gnndirect::invalid_argument);
}

TEST_CASE("generators are deterministic per seed, independent of threading, and sized exactly")
{
  std::uint64_t const seed = fresh_seed();
  CAPTURE(seed);
  for (auto const model : {gnndirect::graph_model::rmat, gnndirect::graph_model::uniform}) {
    gnndirect::generator_options options;
    options.model = model;
    options.num_nodes = 5000;
    options.num_edges = 300'000;  // above the parallel threshold
    options.seed = seed;
    options.weights = true;
    auto const a = gnndirect::host::generate_coo<std::int32_t>(options);
    auto const b = gnndirect::host::generate_coo<std::int32_t>(options);
    CHECK(a.num_edges() == options.num_edges);
    CHECK(a.src == b.src);
    CHECK(a.dst == b.dst);
    CHECK(a.weights == b.weights);
    // The per-edge function alone reproduces every edge (what the GPU kernel evaluates).
    auto const plan = gnndirect::detail::make_generator_plan<std::int32_t>(options);
    for (std::int64_t j : {std::int64_t{0}, std::int64_t{12345}, options.num_edges - 1}) {
      auto const edge = gnndirect::detail::generate_edge(plan, j);
      CHECK(edge.src == a.src[static_cast<std::size_t>(j)]);
      CHECK(edge.dst == a.dst[static_cast<std::size_t>(j)]);
    }
    CHECK(*std::min_element(a.weights.begin(), a.weights.end()) > 0.f);
    CHECK(*std::max_element(a.weights.begin(), a.weights.end()) <= 1.f);
    options.seed = seed + 1;
    CHECK(gnndirect::host::generate_coo<std::int32_t>(options).src != a.src);
    auto const csr = gnndirect::host::generate_csr<std::int64_t, std::int32_t>(options);
    CHECK(csr.num_edges() == options.num_edges);
    CHECK_NOTHROW(gnndirect::validate(csr.view()));
  }
}

TEST_CASE("generator options: symmetrise, drop self loops, tiny and empty graphs")
{
  gnndirect::generator_options options;
  options.num_nodes = 40;
  options.num_edges = 20'000;
  options.seed = fresh_seed();
  CAPTURE(options.seed);
  options.symmetrize = true;
  options.drop_self_loops = true;
  options.weights = true;
  auto const coo = gnndirect::host::generate_coo<std::int64_t>(options);
  REQUIRE(coo.num_edges() == 2 * options.num_edges);
  for (std::size_t j = 0; j < coo.src.size(); j += 2) {
    CHECK(coo.src[j] == coo.dst[j + 1]);
    CHECK(coo.dst[j] == coo.src[j + 1]);
    CHECK(coo.weights[j] == coo.weights[j + 1]);
  }
  CHECK(std::none_of(coo.src.begin(), coo.src.end(), [&, j = std::size_t{0}](std::int64_t s) mutable {
    return s == coo.dst[j++];
  }));
  options.num_nodes = 2;  // R-MAT draws loops often here: redraws and the fallback keep none
  auto const pair = gnndirect::host::generate_coo<std::int32_t>(options);
  for (std::size_t j = 0; j < pair.src.size(); ++j) { CHECK(pair.src[j] != pair.dst[j]); }
  options.num_nodes = 1;
  CHECK_THROWS_AS(gnndirect::host::generate_coo<std::int32_t>(options), gnndirect::invalid_argument);
  options.drop_self_loops = false;
  auto const single = gnndirect::host::generate_coo<std::int32_t>(options);
  CHECK(std::all_of(single.src.begin(), single.src.end(), [](std::int32_t v) { return v == 0; }));
  options.num_edges = 0;
  CHECK(gnndirect::host::generate_coo<std::int32_t>(options).num_edges() == 0);
  options.num_nodes = std::int64_t{1} << 32;
  options.num_edges = 1;
  CHECK_THROWS_WITH_AS(gnndirect::host::generate_coo<std::int32_t>(options),
                       doctest::Contains("exceeds the index type"), gnndirect::invalid_argument);
}

TEST_CASE("R-MAT degrees are skewed, uniform degrees are not")
{
  auto max_degree_ratio = [](gnndirect::graph_model model, bool scramble) {
    gnndirect::generator_options options;
    options.model = model;
    options.num_nodes = 1 << 14;
    options.num_edges = 1 << 20;
    options.seed = 7;
    options.scramble_ids = scramble;
    auto const csr = gnndirect::host::generate_csr<std::int64_t, std::int32_t>(options);
    std::int64_t max_degree = 0;
    std::int64_t argmax = 0;
    for (std::int64_t v = 0; v < csr.num_nodes; ++v) {
      std::int64_t const d = csr.indptr[v + 1] - csr.indptr[v];
      if (d > max_degree) {
        max_degree = d;
        argmax = v;
      }
    }
    double const average = static_cast<double>(options.num_edges) / static_cast<double>(options.num_nodes);
    return std::pair<double, std::int64_t>{static_cast<double>(max_degree) / average, argmax};
  };
  auto const rmat = max_degree_ratio(gnndirect::graph_model::rmat, false);
  CHECK(rmat.first > 50.0);  // Graph500 parameters: the hub is node 0 without scrambling
  CHECK(rmat.second == 0);
  auto const scrambled = max_degree_ratio(gnndirect::graph_model::rmat, true);
  CHECK(scrambled.first > 50.0);
  CHECK(scrambled.second != 0);
  CHECK(max_degree_ratio(gnndirect::graph_model::uniform, false).first < 2.0);
}

TEST_CASE("generator building blocks: 64-bit multiply-high, bijective id scramble, presets")
{
  std::mt19937_64 rng(fresh_seed());
  for (int i = 0; i < 1000; ++i) {
    std::uint64_t const a = rng();
    std::uint64_t const b = rng() >> (i % 64);
    __extension__ using u128 = unsigned __int128;
    CHECK(gnndirect::detail::mul_high(a, b) == static_cast<std::uint64_t>((u128{a} * b) >> 64));
  }
  for (int scale = 0; scale <= 12; ++scale) {
    std::vector<bool> hit(std::size_t{1} << scale, false);
    for (std::uint64_t x = 0; x < hit.size(); ++x) {
      std::uint64_t const y = gnndirect::detail::scramble_id(x, 0x1234567u, scale);
      REQUIRE(y < hit.size());
      hit[y] = true;
    }
    CHECK(std::all_of(hit.begin(), hit.end(), [](bool h) { return h; }));
  }
  auto const papers = gnndirect::preset_shape(gnndirect::graph_preset::papers100m);
  CHECK(papers.num_edges > (std::int64_t{1} << 30));
  auto const options = gnndirect::preset_options(gnndirect::graph_preset::products, 0.01, 3);
  CHECK(options.num_nodes == 24490);
  CHECK(options.num_edges == 618591);
  CHECK(options.model == gnndirect::graph_model::rmat);
  CHECK_THROWS_AS(gnndirect::preset_options(gnndirect::graph_preset::small, 0.0),
                  gnndirect::invalid_argument);
}

TEST_CASE("npy: save and map round trip for each dtype and shape")
{
  temp_file const file(".npy");
  std::vector<std::int64_t> const values{0, -1, 1ll << 40, 7};
  gnndirect::save_npy(file.path, values);
  gnndirect::npy_array const array(file.path);
  CHECK(array.dtype() == gnndirect::npy_dtype::int64);
  CHECK(array.header().shape == std::vector<std::int64_t>{4});
  CHECK(array.header().data_offset % 64 == 0);
  CHECK(std::equal(values.begin(), values.end(), array.data_as<std::int64_t>()));
  CHECK_THROWS_WITH_AS(array.data_as<std::int32_t>(), doctest::Contains("dtype <i8 does not match"),
                       gnndirect::invalid_argument);
  CHECK_FALSE(array.registered());
  CHECK(array.device_data() == nullptr);

  temp_file const matrix(".npy");
  std::vector<float> const cells{1.f, 2.f, 3.f, 4.f, 5.f, 6.f};
  gnndirect::save_npy(matrix.path, gnndirect::npy_dtype::float32, {2, 3}, cells.data());
  gnndirect::npy_array const m(matrix.path);
  CHECK(m.header().shape == std::vector<std::int64_t>{2, 3});
  CHECK(m.size() == 6);
  CHECK(m.data_as<float>()[5] == 6.f);

  temp_file const empty(".npy");
  gnndirect::save_npy(empty.path, std::vector<std::int32_t>{});
  CHECK(gnndirect::npy_array(empty.path).size() == 0);
}

TEST_CASE("npy: header parser accepts every version and NumPy's spellings")
{
  auto parse = [](const std::string& bytes) {
    return gnndirect::parse_npy_header(bytes.data(), bytes.size());
  };
  std::string const payload(24, '\0');
  auto const v1 = parse(npy_bytes("{'descr': '<u4', 'fortran_order': False, 'shape': (2, 3), }", payload));
  CHECK(v1.dtype == gnndirect::npy_dtype::uint32);
  CHECK(v1.element_count == 6);
  CHECK(v1.data_bytes == 24);
  CHECK(v1.data_offset % 64 == 0);
  auto const v2 = parse(npy_bytes("{\"shape\": (3L,), \"descr\": \"<f2\", \"fortran_order\": False}", payload, 2));
  CHECK(v2.major_version == 2);
  CHECK(v2.dtype == gnndirect::npy_dtype::float16);
  CHECK(v2.shape == std::vector<std::int64_t>{3});
  auto const v3 = parse(npy_bytes("{'descr': '|b1', 'fortran_order': False, 'shape': (), }", payload, 3));
  CHECK(v3.shape.empty());
  CHECK(v3.element_count == 1);
  auto const zero = parse(npy_bytes("{'descr': '<i8', 'fortran_order': True, 'shape': (0,), }", ""));
  CHECK(zero.data_bytes == 0);  // Fortran order is meaningless for 1-D arrays
}

TEST_CASE("npy: invalid headers and files fail with the file and problem named")
{
  auto fails_with = [](const std::string& bytes, const char* text) {
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(gnndirect::parse_npy_header(bytes.data(), bytes.size(), "x.npy"),
                         doctest::Contains(text), gnndirect::invalid_argument);
  };
  std::string const ok = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  fails_with("", "too small");
  fails_with("NOTNUMPYATALL", "bad magic");
  fails_with(npy_bytes(ok, "").replace(6, 1, "\x04"), "unsupported format version 4.0");
  fails_with(npy_bytes(ok, "").substr(0, 40), "truncated header");
  fails_with(npy_bytes("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 2), }", ""), "Fortran-order");
  fails_with(npy_bytes("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", ""), "big-endian");
  fails_with(npy_bytes("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", ""), "object arrays");
  fails_with(npy_bytes("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", ""), "unsupported dtype");
  fails_with(npy_bytes("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2,), }", ""),
             "structured dtypes");
  fails_with(npy_bytes("{'descr': '<i4', 'shape': (2,), }", ""), "lacks one of the keys");
  fails_with(npy_bytes("{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (2,)}", ""),
             "duplicate key");
  fails_with(npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'x': 1}", ""),
             "unexpected header key 'x'");
  fails_with(npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (-2,), }", ""),
             "non-negative integer");
  fails_with(npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", ""),
             "overflows");
  fails_with(npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (99999999999999999999,), }", ""),
             "overflows int64");
  fails_with(npy_bytes("{'descr': '<i8', 'fortran_order': Maybe, 'shape': (1,), }", ""), "True or False");
  fails_with(npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), } trailing", ""),
             "unexpected text");

  temp_file const truncated(".npy");
  truncated.write(npy_bytes(ok, std::string(5, '\0')));
  CHECK_THROWS_WITH_AS(gnndirect::npy_array(truncated.path),
                       doctest::Contains("truncated data: the header declares 8 bytes, the file holds 5"),
                       gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::npy_array(truncated.path + ".missing"), doctest::Contains("cannot open"),
                       gnndirect::invalid_argument);
}

TEST_CASE("npy: COO loader converts integer dtypes with range checks")
{
  temp_file const src(".npy");
  temp_file const dst(".npy");
  gnndirect::save_npy(src.path, std::vector<std::int64_t>{0, 1, 2, 2});
  gnndirect::save_npy(dst.path, std::vector<std::uint16_t>{1, 2, 0, 5});
  auto const coo = gnndirect::load_coo_npy<std::int32_t>(src.path, dst.path);
  CHECK(coo.num_nodes == 6);
  CHECK(coo.src == std::vector<std::int32_t>{0, 1, 2, 2});
  CHECK(coo.dst == std::vector<std::int32_t>{1, 2, 0, 5});
  gnndirect::save_npy(src.path, std::vector<std::int64_t>{0, 1, std::int64_t{1} << 33, 2});
  CHECK_THROWS_WITH_AS(gnndirect::load_coo_npy<std::int32_t>(src.path, dst.path),
                       doctest::Contains("element 2 = 8589934592 does not fit"), gnndirect::invalid_argument);
  gnndirect::save_npy(src.path, std::vector<float>{0, 1, 2, 3});
  CHECK_THROWS_WITH_AS(gnndirect::load_coo_npy<std::int32_t>(src.path, dst.path),
                       doctest::Contains("expected an integer dtype"), gnndirect::invalid_argument);
  gnndirect::save_npy(src.path, std::vector<std::int32_t>{0, 1});
  CHECK_THROWS_WITH_AS(gnndirect::load_coo_npy<std::int32_t>(src.path, dst.path),
                       doctest::Contains("has 4 elements"), gnndirect::invalid_argument);
}

TEST_CASE("edge lists: comments, blank lines, CRLF and weights")
{
  auto const coo = gnndirect::parse_edge_list<std::int64_t>(
    "# a comment\n0 1 0.5\r\n\n  2\t3   1e-3 # trailing comment\n   \n4 0 2\n");
  CHECK(coo.num_nodes == 5);
  CHECK(coo.src == std::vector<std::int64_t>{0, 2, 4});
  CHECK(coo.dst == std::vector<std::int64_t>{1, 3, 0});
  CHECK(coo.weights == std::vector<float>{0.5f, 1e-3f, 2.f});
  auto const unweighted = gnndirect::parse_edge_list<std::int32_t>("1 2", "g", 10);
  CHECK(unweighted.num_nodes == 10);
  CHECK(unweighted.weights.empty());
  CHECK(gnndirect::parse_edge_list<std::int32_t>("# nothing\n").num_nodes == 0);
  temp_file const file(".txt");
  file.write("3 4\n");
  CHECK(gnndirect::read_edge_list<std::int32_t>(file.path).dst == std::vector<std::int32_t>{4});
}

TEST_CASE("edge lists: errors name the source and line")
{
  auto fails_with = [](const std::string& text, const char* message, std::int64_t nodes = -1) {
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(gnndirect::parse_edge_list<std::int32_t>(text, "g.txt", nodes),
                         doctest::Contains(message), gnndirect::invalid_argument);
  };
  fails_with("0 1\n7\n", "edge list 'g.txt', line 2: expected 'src dst [weight]', found 1 field(s)");
  fails_with("0 1 2 3\n", "line 1: expected 'src dst [weight]', found more than 3");
  fails_with("0 x\n", "line 1: 'x' is not a node id");
  fails_with("\n\n-1 2\n", "line 3: '-1' is not a node id");
  fails_with("0 2147483648\n", "'2147483648' is not a node id");
  fails_with("0 1 0.5\n1 2\n", "line 2: lacks the weight");
  fails_with("0 1\n1 2 0.5\n", "line 2: has a weight but earlier edges do not");
  fails_with("0 1 nan\n", "'nan' is not a weight");
  fails_with("0 1 -2\n", "'-2' is not a weight");
  fails_with("0 1 1.5x\n", "'1.5x' is not a weight");
  fails_with("0 5\n", "'5' is not a node id (a non-negative integer <= 4)", 5);
  CHECK_THROWS_WITH_AS(gnndirect::read_edge_list<std::int32_t>("/nonexistent/edges.txt"),
                       doctest::Contains("cannot open"), gnndirect::invalid_argument);
}
