// GPU tests of link prediction's building blocks: sample_negatives_async (binary and triplet,
// strict or not, the library's and a user-written negative sampler) bit for bit against the
// independent host implementation (test/support/negative_reference.hpp) on fresh random graphs,
// with poisoned guarded outputs; strict draws from a node connected to every node give the
// documented result (max_attempts draws, the last kept, counted); bad input refused or reported.
// Two ranges (negative_options::num_dst_nodes, typed bipartite relations): bit for bit against
// the reference on random bipartite relations, strict never returning an edge unless counted,
// the one-range form unchanged, bad input (either range, one-range samplers) refused or reported.
// relabel_edge_seeds_async against a host computation (seed nodes by first appearance, local
// endpoint ids, earliest edge time per node), and the composed link-prediction batch: positives
// and negatives -> seed nodes -> temporal blocks without the seed edges, bit for bit.
#include <doctest/doctest.h>

#include "support/negative_reference.hpp"
#include "support/random.hpp"
#include "support/temporal_reference.hpp"
#include "support/transfer.hpp"

#include <gnndirect/algorithms/edge_seeds.cuh>
#include <gnndirect/algorithms/negative_sampling.cuh>
#include <gnndirect/algorithms/sample_blocks_buffers.cuh>
#include <gnndirect/algorithms/sample_temporal_blocks_async.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/cuda_handles.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using gnndirect::buffer;
using gnndirect::memory_kind;
using gnndirect::test::sorted_graph;
using gnndirect::test::to_buffer;
using gnndirect::test::to_host;

constexpr std::int64_t guard = 16;

/// A sorted_graph's device copy.
template <class Offset, class Index>
struct device_sorted_graph {
  buffer<Offset> indptr;
  buffer<Index> indices;
  gnndirect::csr_view<Offset, Index> csr;
  explicit device_sorted_graph(const sorted_graph<Offset, Index>& g, memory_kind kind = memory_kind::device)
  {
    indptr = to_buffer(g.indptr);
    indices = to_buffer(g.indices, kind);
    csr = g.view();
    csr.indptr = indptr.data();
    csr.indices = indices.data();
    csr.indices_kind = kind;
  }
};

/// A user-written negative sampler: the destination k + attempt steps after the source (mod n),
/// the source uniform by the library's sampler in binary mode. Checks that the template reaches
/// the kernel and that strictness applies to it.
struct shifted_negative_sampler {
  template <class Index>
  GNNDIRECT_HOST_DEVICE gnndirect::negative_pair<Index> draw(std::uint64_t seed, std::int64_t batch, std::int64_t k,
                                                             std::uint32_t attempt, std::int64_t num_nodes,
                                                             Index fixed_src) const
  {
    auto const base = gnndirect::uniform_negative_sampler{}.draw<Index>(seed, batch, k, 0, num_nodes, fixed_src);
    return {base.src, static_cast<Index>((static_cast<std::int64_t>(base.src) + k + attempt + 1) % num_nodes)};
  }
};

/// A user-written sampler that draws outside the graph (reported, never written).
struct broken_negative_sampler {
  template <class Index>
  GNNDIRECT_HOST_DEVICE gnndirect::negative_pair<Index> draw(std::uint64_t, std::int64_t, std::int64_t k, std::uint32_t,
                                                             std::int64_t num_nodes, Index) const
  {
    return {static_cast<Index>(0), static_cast<Index>(k == 5 ? num_nodes : 0)};
  }
};

/// A user-written two-range sampler that draws destination num_dst for negative 5 (outside the
/// destination range, inside the source range when num_dst < num_src): reported, never written.
struct broken_two_range_sampler {
  template <class Index>
  GNNDIRECT_HOST_DEVICE gnndirect::negative_pair<Index> draw(std::uint64_t, std::int64_t, std::int64_t k, std::uint32_t,
                                                             std::int64_t, std::int64_t num_dst, Index) const
  {
    return {static_cast<Index>(0), static_cast<Index>(k == 5 ? num_dst : 0)};
  }
};

template <class Mode, class Sampler = gnndirect::uniform_negative_sampler>
struct negative_run {
  std::vector<std::int32_t> src, dst;
  std::int64_t unresolved{-1};
  bool guards_intact{false};
};

template <class Mode, class Sampler = gnndirect::uniform_negative_sampler>
negative_run<Mode, Sampler> run_gpu(cudaStream_t stream, const gnndirect::csr_view<std::int64_t, std::int32_t>& csr,
                                    const std::vector<std::int32_t>& src, const std::vector<std::int32_t>& dst,
                                    const Mode& mode, const gnndirect::negative_options& options,
                                    const Sampler& sampler = {})
{
  auto const num_pos = static_cast<std::int64_t>(src.size());
  std::int64_t const n = gnndirect::negative_count(mode, num_pos);
  auto const d_src = to_buffer(src);
  auto const d_dst = to_buffer(dst);
  buffer<std::int32_t> out_src(static_cast<std::size_t>(n + guard), memory_kind::device);
  buffer<std::int32_t> out_dst(static_cast<std::size_t>(n + guard), memory_kind::device);
  buffer<std::int64_t> unresolved(1, memory_kind::device);
  buffer<unsigned char> ws(gnndirect::sample_negatives_workspace_bytes(), memory_kind::device);
  gnndirect::test::fill_bytes(out_src.data(), 0xFF, out_src.bytes());
  gnndirect::test::fill_bytes(out_dst.data(), 0xFF, out_dst.bytes());
  gnndirect::test::fill_bytes(unresolved.data(), 0xFF, unresolved.bytes());
  gnndirect::sample_negatives_async(stream, csr, d_src.data(), d_dst.data(), num_pos, mode, options, out_src.data(),
                                    out_dst.data(), unresolved.data(), {ws.data(), ws.bytes()}, sampler);
  gnndirect::sample_negatives_check(stream, {ws.data(), ws.bytes()}, csr.num_nodes,
                                    gnndirect::negative_dst_count(options, csr.num_nodes));
  negative_run<Mode, Sampler> r;
  auto const all_src = to_host(out_src.data(), n + guard);
  auto const all_dst = to_host(out_dst.data(), n + guard);
  r.src.assign(all_src.begin(), all_src.begin() + n);
  r.dst.assign(all_dst.begin(), all_dst.begin() + n);
  r.guards_intact = std::all_of(all_src.begin() + n, all_src.end(), [](std::int32_t x) { return x == -1; }) &&
                    std::all_of(all_dst.begin() + n, all_dst.end(), [](std::int32_t x) { return x == -1; });
  r.unresolved = to_host(unresolved.data(), 1)[0];
  return r;
}

TEST_CASE("sample_negatives_async equals the host implementation bit for bit (binary, triplet, strict)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  auto const stream = gnndirect::make_non_blocking_stream();
  for (memory_kind kind : {memory_kind::device, memory_kind::managed_host}) {
    sorted_graph<std::int64_t, std::int32_t> const g(rng, 3000);
    device_sorted_graph<std::int64_t, std::int32_t> const d(g, kind);
    auto src = gnndirect::test::random_indices<std::int32_t>(rng, 1000 + static_cast<std::int64_t>(rng() % 100), 3000);
    auto const dst = gnndirect::test::random_indices<std::int32_t>(rng, static_cast<std::int64_t>(src.size()), 3000);
    src[1] = 0;  // node 0 links to every node
    for (bool strict : {false, true}) {
      CAPTURE(gnndirect::to_string(kind));
      CAPTURE(strict);
      gnndirect::negative_options const options{rng(), static_cast<std::int64_t>(rng() % 100000), strict, 6};
      double const amount = 0.5 + static_cast<double>(rng() % 300) / 100.0;
      CAPTURE(amount);
      auto const bin = run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{amount}, options);
      auto const want_bin = gnndirect::test::negatives_reference(g, src, amount, 0, options.seed, options.batch, strict, 6);
      CHECK(bin.guards_intact);
      CHECK(bin.src == want_bin.src);
      CHECK(bin.dst == want_bin.dst);
      CHECK(bin.unresolved == want_bin.unresolved);
      auto const tri = run_gpu(stream.get(), d.csr, src, dst, gnndirect::triplet_negatives{3}, options);
      auto const want_tri = gnndirect::test::negatives_reference(g, src, 0, 3, options.seed, options.batch, strict, 6);
      CHECK(tri.guards_intact);
      CHECK(tri.src == want_tri.src);
      CHECK(tri.dst == want_tri.dst);
      CHECK(tri.unresolved == want_tri.unresolved);
      if (strict) {
        // Node 0's three negatives never resolve: 6 draws each, the last kept and counted.
        CHECK(tri.unresolved >= 3);
        std::int64_t edges = 0;
        for (std::size_t k = 0; k < tri.src.size(); ++k) { edges += g.has(tri.src[k], tri.dst[k]); }
        CHECK(edges == tri.unresolved);
      }
    }
  }
}

TEST_CASE("a user-written negative sampler through sample_negatives_async, strict retries included")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  auto const stream = gnndirect::make_non_blocking_stream();
  sorted_graph<std::int64_t, std::int32_t> const g(rng, 800);
  device_sorted_graph<std::int64_t, std::int32_t> const d(g);
  auto const src = gnndirect::test::random_indices<std::int32_t>(rng, 400, 800);
  gnndirect::negative_options const options{rng(), 7, true, 4};
  auto const got = run_gpu(stream.get(), d.csr, src, src, gnndirect::triplet_negatives{2}, options, shifted_negative_sampler{});
  CHECK(got.guards_intact);
  std::int64_t unresolved = 0;
  for (std::int64_t k = 0; k < 800; ++k) {
    std::int64_t const s = src[static_cast<std::size_t>(k / 2)];
    std::int64_t d_kept = 0;
    bool open = true;
    for (int a = 0; a < 4 && open; ++a) {
      d_kept = (s + k + a + 1) % 800;
      open = g.has(s, d_kept);
    }
    unresolved += open;
    CHECK(got.src[static_cast<std::size_t>(k)] == s);
    CHECK(got.dst[static_cast<std::size_t>(k)] == d_kept);
  }
  CHECK(got.unresolved == unresolved);
}

TEST_CASE("negative sampling bad input: amounts, positives outside the graph, a sampler outside it")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  auto const stream = gnndirect::make_non_blocking_stream();
  sorted_graph<std::int64_t, std::int32_t> const g(rng, 200);
  device_sorted_graph<std::int64_t, std::int32_t> const d(g);
  auto src = gnndirect::test::random_indices<std::int32_t>(rng, 50, 200);
  auto dst = gnndirect::test::random_indices<std::int32_t>(rng, 50, 200);
  gnndirect::negative_options options{rng(), 0, true, 3};
  CHECK_THROWS_WITH_AS(run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{0.0}, options),
                       doctest::Contains("must be > 0"), gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{-0.5}, options),
                       doctest::Contains("must be > 0"), gnndirect::invalid_argument);
  CHECK_THROWS_AS(run_gpu(stream.get(), d.csr, src, dst, gnndirect::triplet_negatives{0}, options),
                  gnndirect::invalid_argument);
  options.max_attempts = 0;
  CHECK_THROWS_WITH_AS(run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{1.0}, options),
                       doctest::Contains("max_attempts"), gnndirect::invalid_argument);
  options.max_attempts = 3;
  // Edge seeds outside the graph: the first bad position and its value are named.
  src[17] = 200;
  try {
    (void)run_gpu(stream.get(), d.csr, src, dst, gnndirect::triplet_negatives{2}, options);
    FAIL("a positive outside the graph passed");
  } catch (const gnndirect::index_out_of_range& e) {
    CHECK(std::string(e.what()).find("positive src[17] = 200") != std::string::npos);
  }
  src[17] = 3;
  dst[4] = -1;
  CHECK_THROWS_WITH_AS(run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{1.0}, options),
                       doctest::Contains("positive dst[4] = -1"), gnndirect::index_out_of_range);
  dst[4] = 5;
  CHECK_THROWS_WITH_AS(run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{1.0}, options,
                               broken_negative_sampler{}),
                       doctest::Contains("for negative 5"), gnndirect::invalid_argument);
  // The context is clean afterwards.
  auto const ok = run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{1.0}, options);
  CHECK(ok.guards_intact);
  CHECK(ok.src.size() == 50);
}

TEST_CASE("two ranges (typed, bipartite relations): sample_negatives_async equals the host implementation")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  auto const stream = gnndirect::make_non_blocking_stream();
  for (int trial = 0; trial < 4; ++trial) {
    auto const num_src = static_cast<std::int64_t>(1 + rng() % 2500);
    auto num_dst = static_cast<std::int64_t>(1 + rng() % 2500);
    if (num_dst == num_src) { ++num_dst; }
    CAPTURE(num_src);
    CAPTURE(num_dst);
    sorted_graph<std::int64_t, std::int32_t> const g(rng, num_src, num_dst);  // row 0: every destination
    device_sorted_graph<std::int64_t, std::int32_t> const d(g);
    auto src = gnndirect::test::random_indices<std::int32_t>(rng, 500 + static_cast<std::int64_t>(rng() % 100), num_src);
    auto const dst = gnndirect::test::random_indices<std::int32_t>(rng, static_cast<std::int64_t>(src.size()), num_dst);
    src[2] = 0;
    for (bool strict : {false, true}) {
      CAPTURE(strict);
      gnndirect::negative_options options{rng(), static_cast<std::int64_t>(rng() % 100000), strict, 5};
      options.num_dst_nodes = num_dst;
      double const amount = 0.5 + static_cast<double>(rng() % 300) / 100.0;
      CAPTURE(amount);
      auto const bin = run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{amount}, options);
      auto const want_bin =
        gnndirect::test::negatives_reference(g, src, amount, 0, options.seed, options.batch, strict, 5);
      CHECK(bin.guards_intact);
      CHECK(bin.src == want_bin.src);
      CHECK(bin.dst == want_bin.dst);
      CHECK(bin.unresolved == want_bin.unresolved);
      auto const tri = run_gpu(stream.get(), d.csr, src, dst, gnndirect::triplet_negatives{3}, options);
      auto const want_tri = gnndirect::test::negatives_reference(g, src, 0, 3, options.seed, options.batch, strict, 5);
      CHECK(tri.guards_intact);
      CHECK(tri.src == want_tri.src);
      CHECK(tri.dst == want_tri.dst);
      CHECK(tri.unresolved == want_tri.unresolved);
      auto const check_pairs = [&](const std::vector<std::int32_t>& ns, const std::vector<std::int32_t>& nd,
                                   std::int64_t unresolved) {
        std::int64_t edges = 0;
        for (std::size_t k = 0; k < ns.size(); ++k) {
          CHECK((ns[k] >= 0 && ns[k] < num_src && nd[k] >= 0 && nd[k] < num_dst));
          edges += g.has(ns[k], nd[k]);
        }
        if (strict) {
          CHECK(edges == unresolved);  // strict: an edge only when counted unresolved
        } else {
          CHECK(unresolved == 0);
        }
      };
      check_pairs(bin.src, bin.dst, bin.unresolved);
      check_pairs(tri.src, tri.dst, tri.unresolved);
      if (strict) { CHECK(tri.unresolved >= 3); }  // row 0 links to every destination
    }
  }
  // The one-range form (num_dst_nodes -1, or equal to num_nodes) is unchanged: the reference of
  // a homogeneous graph, and explicit num_dst_nodes == num_nodes gives the same bits.
  sorted_graph<std::int64_t, std::int32_t> const g(rng, 1200);
  device_sorted_graph<std::int64_t, std::int32_t> const d(g);
  auto const src = gnndirect::test::random_indices<std::int32_t>(rng, 400, 1200);
  auto const dst = gnndirect::test::random_indices<std::int32_t>(rng, 400, 1200);
  for (bool strict : {false, true}) {
    gnndirect::negative_options options{rng(), 11, strict, 4};
    auto const one = run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{1.5}, options);
    auto const want = gnndirect::test::negatives_reference(g, src, 1.5, 0, options.seed, options.batch, strict, 4);
    CHECK(one.src == want.src);
    CHECK(one.dst == want.dst);
    CHECK(one.unresolved == want.unresolved);
    options.num_dst_nodes = 1200;
    auto const same = run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{1.5}, options);
    CHECK(same.src == one.src);
    CHECK(same.dst == one.dst);
    CHECK(same.unresolved == one.unresolved);
  }
}

TEST_CASE("two ranges bad input: positives outside their range, one-range samplers, a pair outside")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  auto const stream = gnndirect::make_non_blocking_stream();
  sorted_graph<std::int64_t, std::int32_t> const g(rng, 200, 50);  // 200 sources, 50 destinations
  device_sorted_graph<std::int64_t, std::int32_t> const d(g);
  auto src = gnndirect::test::random_indices<std::int32_t>(rng, 40, 200);
  auto dst = gnndirect::test::random_indices<std::int32_t>(rng, 40, 50);
  gnndirect::negative_options options{rng(), 3, false, 3};
  options.num_dst_nodes = 50;
  dst[9] = 50;  // inside [0, 200), outside [0, 50)
  CHECK_THROWS_WITH_AS(run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{1.0}, options),
                       doctest::Contains("positive dst[9] = 50"), gnndirect::index_out_of_range);
  dst[9] = 1;
  src[3] = 200;
  CHECK_THROWS_WITH_AS(run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{1.0}, options),
                       doctest::Contains("positive src[3] = 200"), gnndirect::index_out_of_range);
  src[3] = 0;
  // A sampler with only the one-range draw cannot draw two ranges: refused before any launch.
  CHECK_THROWS_WITH_AS(run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{1.0}, options,
                               shifted_negative_sampler{}),
                       doctest::Contains("no two-range draw"), gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{1.0}, options,
                               broken_two_range_sampler{}),
                       doctest::Contains("for negative 5"), gnndirect::invalid_argument);
  options.num_dst_nodes = -2;
  CHECK_THROWS_WITH_AS(run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{1.0}, options),
                       doctest::Contains("num_dst_nodes"), gnndirect::invalid_argument);
  options.num_dst_nodes = 0;
  CHECK_THROWS_WITH_AS(run_gpu(stream.get(), d.csr, src, dst, gnndirect::binary_negatives{1.0}, options),
                       doctest::Contains("destination range is empty"), gnndirect::invalid_argument);
  // The context is clean afterwards.
  options.num_dst_nodes = 50;
  auto const ok = run_gpu(stream.get(), d.csr, src, dst, gnndirect::triplet_negatives{2}, options);
  CHECK(ok.guards_intact);
  CHECK(ok.src.size() == 80);
  for (std::size_t k = 0; k < ok.src.size(); ++k) { CHECK((ok.src[k] == src[k / 2] && ok.dst[k] < 50)); }
}


/// Host computation of edge seeds: seed nodes by first appearance over (src, dst), local ids,
/// earliest time per node.
struct host_edge_seeds {
  std::vector<std::int32_t> nodes;
  std::vector<std::int32_t> local;
  std::vector<std::int64_t> times;
  host_edge_seeds(const std::vector<std::int32_t>& src, const std::vector<std::int32_t>& dst,
                  const std::vector<std::int64_t>& edge_times)
  {
    std::unordered_map<std::int32_t, std::int32_t> id;
    std::vector<std::int32_t> all(src.begin(), src.end());
    all.insert(all.end(), dst.begin(), dst.end());
    for (std::size_t i = 0; i < all.size(); ++i) {
      auto const inserted = id.emplace(all[i], static_cast<std::int32_t>(nodes.size()));
      if (inserted.second) {
        nodes.push_back(all[i]);
        times.push_back(INT64_MAX);
      }
      local.push_back(inserted.first->second);
      auto& t = times[static_cast<std::size_t>(inserted.first->second)];
      t = std::min(t, edge_times[i % src.size()]);
    }
  }
};

/// Device outputs of relabel_edge_seeds_async with guards.
struct device_edge_seeds {
  std::int64_t bound;
  buffer<std::int32_t> nodes, local;
  buffer<std::int64_t> count, times;
  buffer<unsigned char> ws;
  device_edge_seeds(std::int64_t edges, std::int64_t num_nodes)
    : bound(gnndirect::edge_seed_nodes_bound(edges, num_nodes)),
      nodes(static_cast<std::size_t>(bound + guard), memory_kind::device),
      local(static_cast<std::size_t>(2 * edges + guard), memory_kind::device),
      count(1, memory_kind::device),
      times(static_cast<std::size_t>(bound + guard), memory_kind::device),
      ws(gnndirect::edge_seeds_workspace_bytes<std::int32_t>(edges), memory_kind::device)
  {
    gnndirect::test::fill_bytes(nodes.data(), 0xFF, nodes.bytes());
    gnndirect::test::fill_bytes(local.data(), 0xFF, local.bytes());
    gnndirect::test::fill_bytes(times.data(), 0xFF, times.bytes());
  }
  gnndirect::edge_seeds_view<std::int32_t> view() { return {nodes.data(), count.data(), local.data(), times.data()}; }
  gnndirect::workspace_view workspace() { return {ws.data(), ws.bytes()}; }
};

TEST_CASE("relabel_edge_seeds_async: seed nodes by first appearance, local endpoint ids, earliest times")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  auto const stream = gnndirect::make_non_blocking_stream();
  for (std::int64_t edges : {1, 2, 37, 1000}) {
    CAPTURE(edges);
    std::int64_t const num_nodes = edges < 100 ? 50 : 5000;
    auto const src = gnndirect::test::random_indices<std::int32_t>(rng, edges, num_nodes);
    auto const dst = gnndirect::test::random_indices<std::int32_t>(rng, edges, num_nodes);
    std::vector<std::int64_t> t(static_cast<std::size_t>(edges));
    for (auto& x : t) { x = static_cast<std::int64_t>(rng() % 1000) - 500; }
    host_edge_seeds const want(src, dst, t);
    device_edge_seeds out(edges, num_nodes);
    auto const d_src = to_buffer(src);
    auto const d_dst = to_buffer(dst);
    auto const d_t = to_buffer(t);
    gnndirect::relabel_edge_seeds_async(stream.get(), d_src.data(), d_dst.data(), edges, d_t.data(), num_nodes,
                                        out.view(), out.workspace());
    gnndirect::edge_seeds_check(stream.get(), out.workspace(), num_nodes);
    auto const n = to_host(out.count.data(), 1)[0];
    REQUIRE(n == static_cast<std::int64_t>(want.nodes.size()));
    auto const nodes = to_host(out.nodes.data(), out.bound + guard);
    auto const local = to_host(out.local.data(), 2 * edges + guard);
    auto const times = to_host(out.times.data(), out.bound + guard);
    CHECK(std::vector<std::int32_t>(nodes.begin(), nodes.begin() + n) == want.nodes);
    CHECK(std::vector<std::int32_t>(local.begin(), local.begin() + 2 * edges) == want.local);
    CHECK(std::vector<std::int64_t>(times.begin(), times.begin() + n) == want.times);
    CHECK(std::all_of(nodes.begin() + n, nodes.end(), [](std::int32_t x) { return x == -1; }));
    CHECK(std::all_of(local.begin() + 2 * edges, local.end(), [](std::int32_t x) { return x == -1; }));
    CHECK(std::all_of(times.begin() + n, times.begin() + out.bound, [](std::int64_t x) { return x == INT64_MAX; }));
    CHECK(std::all_of(times.begin() + out.bound, times.end(), [](std::int64_t x) { return x == -1; }));
  }
  // Edge seeds outside the graph: named, and the context stays clean.
  std::vector<std::int32_t> src{1, 2, 3}, dst{4, 50, 6};
  device_edge_seeds out(3, 50);
  auto const d_src = to_buffer(src);
  auto const d_dst = to_buffer(dst);
  gnndirect::relabel_edge_seeds_async(stream.get(), d_src.data(), d_dst.data(), 3, nullptr, 50, out.view(),
                                      out.workspace());
  CHECK_THROWS_WITH_AS(gnndirect::edge_seeds_check(stream.get(), out.workspace(), 50),
                       doctest::Contains("edge seed dst[1] = 50"), gnndirect::index_out_of_range);
  auto const local = to_host(out.local.data(), 6 + guard);
  CHECK(std::all_of(local.begin() + 6, local.end(), [](std::int32_t x) { return x == -1; }));
  CHECK_THROWS_AS(gnndirect::edge_seed_nodes_bound(-1, 5), gnndirect::invalid_argument);
  // Edge times without a node-times output: refused before anything runs.
  auto const d_t = to_buffer(std::vector<std::int64_t>{1, 2, 3});
  gnndirect::edge_seeds_view<std::int32_t> const no_times{out.nodes.data(), out.count.data(), out.local.data(), nullptr};
  CHECK_THROWS_WITH_AS(gnndirect::relabel_edge_seeds_async(stream.get(), d_src.data(), d_dst.data(), 3, d_t.data(), 50,
                                                           no_times, out.workspace()),
                       doctest::Contains("node_times is null"), gnndirect::invalid_argument);
}

TEST_CASE("a temporal link-prediction batch: positives, negatives, seed nodes, blocks without the seed edges")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  auto const stream = gnndirect::make_non_blocking_stream();
  using graph_t = gnndirect::test::temporal_graph<std::int64_t, std::int32_t>;
  graph_t const g(rng, 1500, false);
  auto const host = g.view();
  buffer<std::int64_t> const d_indptr = to_buffer(g.indptr);
  buffer<std::int32_t> const d_indices = to_buffer(g.indices, memory_kind::managed_host);
  buffer<std::int64_t> const d_times = to_buffer(g.edge_times, memory_kind::managed_host);
  auto csr = host;
  csr.indptr = d_indptr.data();
  csr.indices = d_indices.data();
  csr.indices_kind = memory_kind::managed_host;
  // Positives: a batch of stored edges (their ids are positions); they are excluded from sampling.
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 200; ++i) { ids.push_back(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(host.num_edges))); }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<std::int32_t> pos_src, pos_dst;
  std::vector<std::int64_t> pos_time;
  for (std::int64_t e : ids) {
    auto const owner = std::upper_bound(g.indptr.begin(), g.indptr.end(), e) - g.indptr.begin() - 1;
    pos_src.push_back(static_cast<std::int32_t>(owner));
    pos_dst.push_back(g.indices[static_cast<std::size_t>(e)]);
    pos_time.push_back(g.edge_times[static_cast<std::size_t>(e)]);
  }
  auto const num_pos = static_cast<std::int64_t>(pos_src.size());
  // Negatives (binary, not strict: the graph is not sorted), time = their positive's, cycled.
  gnndirect::negative_options const options{rng(), 3, false, 1};
  std::int64_t const num_neg = gnndirect::negative_count(gnndirect::binary_negatives{1.0}, num_pos);
  auto const d_pos_src = to_buffer(pos_src);
  auto const d_pos_dst = to_buffer(pos_dst);
  buffer<std::int32_t> all_src(static_cast<std::size_t>(num_pos + num_neg), memory_kind::device);
  buffer<std::int32_t> all_dst(static_cast<std::size_t>(num_pos + num_neg), memory_kind::device);
  buffer<std::int64_t> unresolved(1, memory_kind::device);
  buffer<unsigned char> neg_ws(gnndirect::sample_negatives_workspace_bytes(), memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(all_src.data(), d_pos_src.data(), d_pos_src.bytes(), cudaMemcpyDefault, stream.get()));
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(all_dst.data(), d_pos_dst.data(), d_pos_dst.bytes(), cudaMemcpyDefault, stream.get()));
  gnndirect::sample_negatives_async(stream.get(), csr, d_pos_src.data(), d_pos_dst.data(), num_pos,
                                    gnndirect::binary_negatives{1.0}, options, all_src.data() + num_pos,
                                    all_dst.data() + num_pos, unresolved.data(), {neg_ws.data(), neg_ws.bytes()});
  gnndirect::sample_negatives_check(stream.get(), {neg_ws.data(), neg_ws.bytes()}, csr.num_nodes);
  std::vector<std::int64_t> all_time(pos_time);
  for (std::int64_t k = 0; k < num_neg; ++k) { all_time.push_back(pos_time[static_cast<std::size_t>(k % num_pos)]); }
  auto const d_all_time = to_buffer(all_time);
  std::int64_t const edges = num_pos + num_neg;
  device_edge_seeds seeds(edges, csr.num_nodes);
  gnndirect::relabel_edge_seeds_async(stream.get(), all_src.data(), all_dst.data(), edges, d_all_time.data(),
                                      csr.num_nodes, seeds.view(), seeds.workspace());
  gnndirect::edge_seeds_check(stream.get(), seeds.workspace(), csr.num_nodes);
  std::int64_t const num_seeds = to_host(seeds.count.data(), 1)[0];
  // Blocks from the seed nodes with their times, seed edges excluded.
  auto const d_ids = to_buffer(ids);
  gnndirect::temporal_sampler<gnndirect::temporal_uniform> sampler{rng(), d_times.data(), csr.num_edges};
  sampler.excluded_edges = d_ids.data();
  sampler.num_excluded = static_cast<std::int64_t>(ids.size());
  std::vector<int> const fanouts{8, 4};
  gnndirect::sample_blocks_buffers<std::int64_t, std::int32_t> blocks(num_seeds, fanouts, csr.num_nodes, stream.get());
  buffer<unsigned char> ws(gnndirect::sample_temporal_blocks_workspace_bytes<std::int64_t, std::int32_t>(
                             num_seeds, fanouts, csr.num_nodes),
                           memory_kind::device);
  gnndirect::sample_temporal_blocks_async(stream.get(), csr, seeds.nodes.data(), seeds.times.data(), num_seeds, fanouts,
                                          sampler, {}, blocks.view(), {ws.data(), ws.bytes()});
  gnndirect::sample_blocks_check(stream.get(), {ws.data(), ws.bytes()}, fanouts.size(), csr.num_nodes);
  // The same on the host.
  auto const all_src_host = to_host(all_src.data(), edges);
  auto const all_dst_host = to_host(all_dst.data(), edges);
  host_edge_seeds const want(all_src_host, all_dst_host, all_time);
  CHECK(to_host(seeds.local.data(), 2 * edges) == want.local);
  gnndirect::test::temporal_setup setup;
  setup.seed = sampler.seed;
  gnndirect::test::append(setup.times, g.edge_times);
  gnndirect::test::append(setup.excluded, ids);
  auto const expected = gnndirect::test::temporal_blocks_reference(host, setup, want.nodes, want.times, fanouts);
  auto const counts = to_host(blocks.counts(), 4);
  std::int64_t seed_edges_sampled = 0;
  for (std::size_t l = 0; l < fanouts.size(); ++l) {
    CAPTURE(l);
    auto const& e = expected.layers[l];
    auto const& r = blocks.view().layers[l];
    REQUIRE(counts[2 * l] == static_cast<std::int64_t>(e.src_nodes.size()));
    REQUIRE(counts[2 * l + 1] == static_cast<std::int64_t>(e.indices.size()));
    CHECK(to_host(r.src_nodes, counts[2 * l]) == e.src_nodes);
    CHECK(to_host(r.indices, counts[2 * l + 1]) == e.indices);
    auto const eids = to_host(r.edge_ids, counts[2 * l + 1]);
    CHECK(eids == e.edge_ids);
    for (std::int64_t id : eids) { seed_edges_sampled += std::binary_search(ids.begin(), ids.end(), id); }
  }
  CHECK(seed_edges_sampled == 0);
}

}  // namespace
