// GPU tests of link prediction's building blocks: sample_negatives_async (binary and triplet,
// strict or not, the library's and a user-written negative sampler) bit for bit against the
// independent host implementation (test/support/negative_reference.hpp) on fresh random graphs,
// with poisoned guarded outputs; strict draws from a node connected to every node give the
// documented result (max_attempts draws, the last kept, counted); bad input refused or reported.
#include <doctest/doctest.h>

#include "support/negative_reference.hpp"
#include "support/random.hpp"
#include "support/transfer.hpp"

#include <gnndirect/algorithms/negative_sampling.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/cuda_handles.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
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
  gnndirect::sample_negatives_check(stream, {ws.data(), ws.bytes()}, csr.num_nodes);
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

}  // namespace
