// Counts the library did not compute itself (a sampler's return, a hop's counts and offsets, a
// told fanout, a dst id) are checked or clamped on the device: nothing is written outside the
// caller's outputs, and the first offender (position and value) comes back as a clear exception
// from the check call (docs/reliability.md, fault matrix, "count guards" rows). Every output and
// workspace sits between poisoned guard regions that must stay untouched. The faulty samplers
// are test-only types written against the public sampler concept (device/samplers.hpp). Runs
// clean under compute-sanitizer memcheck: every write the library makes stays inside an
// allocation (the guards are part of it), so memcheck and the guard checks see the same thing.
#include <doctest/doctest.h>

#include "support/random.hpp"
#include "support/transfer.hpp"

#include <gnndirect/algorithms/relabel.cuh>
#include <gnndirect/algorithms/sample_blocks_async.cuh>
#include <gnndirect/algorithms/sample_neighbors_async.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

using gnndirect::buffer;
using gnndirect::csr_view;
using gnndirect::memory_kind;
using gnndirect::sampling_policy;
using gnndirect::workspace_view;
using gnndirect::test::to_buffer;
using gnndirect::test::to_host;

namespace {

using Offset = std::int64_t;
using Index = std::int32_t;

constexpr unsigned char poison = 0xA5;
constexpr std::size_t pad = 256;  // guard bytes before and after each output (keeps 256-B alignment)

/// `n` entries of T in device memory between two `pad`-byte guard regions, all poisoned.
template <class T>
struct guarded {
  buffer<unsigned char> raw;
  std::size_t n;

  explicit guarded(std::int64_t count)
    : raw(2 * pad + static_cast<std::size_t>(count) * sizeof(T), memory_kind::device),
      n(static_cast<std::size_t>(count))
  {
    gnndirect::test::fill_bytes(raw.data(), poison, raw.bytes());
  }
  T* data() const { return reinterpret_cast<T*>(raw.data() + pad); }
  /// True when no byte before or after the n entries changed.
  bool guards_intact() const
  {
    auto const bytes = to_host(raw.data(), static_cast<std::int64_t>(raw.bytes()));
    auto const clean = [](unsigned char b) { return b == poison; };
    return std::all_of(bytes.begin(), bytes.begin() + pad, clean) &&
           std::all_of(bytes.end() - pad, bytes.end(), clean);
  }
  std::vector<T> values() const { return to_host(data(), static_cast<std::int64_t>(n)); }
  workspace_view workspace() const { return {raw.data() + pad, n * sizeof(T)}; }
};

/// A random graph (degrees 0..29, a few zero) on the host and in device memory.
struct small_graph {
  std::vector<Offset> indptr{0};
  std::vector<Index> indices;
  buffer<Offset> d_indptr;
  buffer<Index> d_indices;

  small_graph(std::mt19937_64& rng, std::int64_t nodes)
  {
    for (std::int64_t v = 0; v < nodes; ++v) {
      std::uint64_t const degree = rng() % 8 == 0 ? 0 : rng() % 30;
      for (std::uint64_t e = 0; e < degree; ++e) {
        indices.push_back(static_cast<Index>(rng() % static_cast<std::uint64_t>(nodes)));
      }
      indptr.push_back(static_cast<Offset>(indices.size()));
    }
    d_indptr = to_buffer(indptr);
    d_indices = to_buffer(indices);
  }
  std::int64_t nodes() const { return static_cast<std::int64_t>(indptr.size()) - 1; }
  std::int64_t degree(std::int64_t v) const { return indptr[v + 1] - indptr[v]; }
  csr_view<Offset, Index> device() const
  {
    csr_view<Offset, Index> v;
    v.indptr = d_indptr.data();
    v.indices = d_indices.data();
    v.num_nodes = nodes();
    v.num_edges = static_cast<std::int64_t>(indices.size());
    return v;
  }
};

/// A non-blocking stream.
struct stream_owner {
  cudaStream_t stream{};
  stream_owner() { GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
  ~stream_owner() { GNNDIRECT_CUDA_TRY_NOTHROW(cudaStreamDestroy(stream)); }
};

/// The message of the exception `call()` throws, which must be exactly E.
template <class E, class Call>
std::string message_of(Call&& call)
{
  try {
    call();
  } catch (const std::exception& e) {
    CHECK(typeid(e) == typeid(E));
    return e.what();
  }
  FAIL("expected an exception");
  return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// What a faulty sampler does wrong.
enum class fault { count_plus_three, count_minus_one, slot_past_fanout };

/// The uniform sampler with one fault (test-only, a model of the public sampler concept).
template <fault F>
struct faulty_sampler {
  static constexpr bool needs_weights = false;
  gnndirect::uniform_sampler inner;

  GNNDIRECT_HOST_DEVICE std::size_t scratch_bytes(int fanout, int tile_size) const
  {
    return inner.scratch_bytes(fanout, tile_size);
  }
  template <class Tile, class O, class I>
  __device__ std::int64_t sample(const Tile& tile, const csr_view<O, I>& csr, const gnndirect::node_edges<O>& edges,
                                 int fanout, int layer, void* scratch,
                                 const gnndirect::sampled_output<O, I>& out) const
  {
    if constexpr (F == fault::slot_past_fanout) {
      if (edges.degree > 0 && tile.thread_rank() == 0) { out.emit(0, fanout); }  // one past the slots
    }
    std::int64_t const written = inner.sample(tile, csr, edges, fanout, layer, scratch, out);
    if constexpr (F == fault::count_plus_three) { return written + 3; }
    if constexpr (F == fault::count_minus_one) { return -1; }
    return written;
  }
};

/// The sampler's first offending seed position on the host (uniform: it writes min(degree,
/// fanout) slots), and the value the library must report for it.
template <fault F>
std::pair<std::int64_t, std::int64_t> first_offender(const small_graph& g, const std::vector<Index>& seeds, int fanout)
{
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    std::int64_t const written = std::min<std::int64_t>(g.degree(seeds[i]), fanout);
    if (F == fault::count_plus_three && written + 3 > fanout) { return {static_cast<std::int64_t>(i), written + 3}; }
    if (F == fault::count_minus_one) { return {static_cast<std::int64_t>(i), -1}; }
    if (F == fault::slot_past_fanout && g.degree(seeds[i]) > 0) { return {static_cast<std::int64_t>(i), fanout}; }
  }
  return {-1, 0};
}

/// The expected text of a faulty sampler's report for `seeds`[position] = value.
template <fault F>
std::string sampler_report(const std::string& seeds, std::pair<std::int64_t, std::int64_t> offender)
{
  std::string const at = " for " + seeds + "[" + std::to_string(offender.first) + "]";
  return F == fault::slot_past_fanout ? "emitted slot " + std::to_string(offender.second) + at
                                      : "returned " + std::to_string(offender.second) + at;
}

/// One relabelling's guarded outputs for num_dst rows of `fanout` slots.
struct guarded_block {
  gnndirect::block_bounds bounds;
  guarded<Index> src, indices;
  guarded<std::int64_t> offsets, num_src, num_edges;
  guarded<Offset> edge_ids;

  guarded_block(std::int64_t num_dst, int fanout, std::int64_t nodes)
    : bounds{num_dst, num_dst * fanout, num_dst + std::min<std::int64_t>(num_dst * fanout, nodes)},
      src(bounds.num_src), indices(bounds.num_edges), offsets(num_dst + 1), num_src(1), num_edges(1),
      edge_ids(bounds.num_edges)
  {
  }
  gnndirect::sampled_block_view<Offset, Index> view() const
  {
    return {src.data(), offsets.data(), indices.data(), edge_ids.data(), num_src.data(), num_edges.data(), bounds};
  }
  bool guards_intact() const
  {
    return src.guards_intact() && indices.guards_intact() && offsets.guards_intact() && num_src.guards_intact() &&
           num_edges.guards_intact() && edge_ids.guards_intact();
  }
};

/// Hand-made hop slots (counts and offsets from the host) between guards.
struct guarded_hop {
  guarded<Index> neighbors;
  guarded<Offset> edge_ids;
  guarded<std::int64_t> counts, offsets;
  std::int64_t num_dst, slot_capacity;

  guarded_hop(std::int64_t n, std::int64_t slots)
    : neighbors(slots), edge_ids(slots), counts(n), offsets(n + 1), num_dst(n), slot_capacity(slots)
  {
  }
  gnndirect::sampled_slots_view<Offset, Index> view() const
  {
    return {neighbors.data(), edge_ids.data(), counts.data(), offsets.data(), num_dst, slot_capacity};
  }
  /// Writes `counts` and offsets = their exclusive scan (consistent, whatever the counts), and
  /// random valid neighbour and edge ids.
  void fill(std::mt19937_64& rng, const std::vector<std::int64_t>& c, std::int64_t nodes)
  {
    std::vector<std::int64_t> o(c.size() + 1, 0);
    std::partial_sum(c.begin(), c.end(), o.begin() + 1);
    std::vector<Index> ids(neighbors.n);
    std::vector<Offset> eids(edge_ids.n);
    for (auto& id : ids) { id = static_cast<Index>(rng() % static_cast<std::uint64_t>(nodes)); }
    for (auto& e : eids) { e = static_cast<Offset>(rng() % 100000); }
    gnndirect::test::copy_from_host(counts.data(), c.data(), c.size() * sizeof(std::int64_t));
    gnndirect::test::copy_from_host(offsets.data(), o.data(), o.size() * sizeof(std::int64_t));
    gnndirect::test::copy_from_host(neighbors.data(), ids.data(), ids.size() * sizeof(Index));
    gnndirect::test::copy_from_host(edge_ids.data(), eids.data(), eids.size() * sizeof(Offset));
  }
};

/// Runs relabel_async on `hop` told `fanout` into fresh guarded outputs; returns the check's
/// message (empty when it passes) after checking every guard and the clamped num_edges.
std::string relabel_guarded(cudaStream_t stream, const Index* dst, std::int64_t num_dst, int fanout,
                            const gnndirect::sampled_slots_view<Offset, Index>& hop, std::int64_t nodes)
{
  guarded_block const out(num_dst, fanout, nodes);
  guarded<unsigned char> const ws(static_cast<std::int64_t>(gnndirect::relabel_workspace_bytes<Index>(num_dst, fanout)));
  gnndirect::relabel_async(stream, dst, num_dst, fanout, hop, nodes, out.view(), ws.workspace());
  std::string message;
  try {
    gnndirect::relabel_check(stream, ws.workspace(), nodes);
  } catch (const gnndirect::invalid_argument& e) {
    message = e.what();
  }
  CHECK(out.guards_intact());
  CHECK(ws.guards_intact());
  std::int64_t const edges = out.num_edges.values()[0];
  CHECK(edges >= 0);
  CHECK(edges <= num_dst * fanout);
  CHECK(out.num_src.values()[0] <= out.bounds.num_src);
  return message;
}

}  // namespace

TEST_CASE("count guards: relabel_async told fanout 3 for a hop sampled with fanout 6 writes nothing outside")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  stream_owner const s;
  small_graph const g(rng, 600);
  csr_view<Offset, Index> const csr = g.device();
  std::int64_t const n = 240;
  auto const seeds = gnndirect::test::random_indices<Index>(rng, n, g.nodes());
  buffer<Index> const d_seeds = to_buffer(seeds);
  guarded_hop const hop(n, n * 6);
  guarded<unsigned char> const sample_ws(static_cast<std::int64_t>(gnndirect::sample_neighbors_workspace_bytes(n)));
  gnndirect::sample_neighbors_async(s.stream, csr, d_seeds.data(), n, 6, 0, gnndirect::uniform_sampler{rng()},
                                    sampling_policy{}, hop.view(), sample_ws.workspace());
  gnndirect::sample_neighbors_check(s.stream, sample_ws.workspace(), g.nodes());
  // The first row whose count or offsets cannot be those of 3-slot rows.
  auto const counts = hop.counts.values();
  auto const offsets = hop.offsets.values();
  std::int64_t first = -1;
  for (std::int64_t i = 0; i < n && first < 0; ++i) {
    bool const fits = counts[i] <= 3 && offsets[i] + counts[i] <= n * 3;
    if (!fits) { first = i; }
  }
  REQUIRE(first >= 0);  // degrees up to 29: some of 240 seeds have more than 3 neighbours
  std::string const message = relabel_guarded(s.stream, d_seeds.data(), n, 3, hop.view(), g.nodes());
  CAPTURE(message);
  CHECK(contains(message, "sampled.counts[" + std::to_string(first) + "] = " + std::to_string(counts[first])));
  CHECK(hop.neighbors.guards_intact());
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("count guards: relabel_async with counts above the fanout, or negative, writes nothing outside")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  stream_owner const s;
  std::int64_t const nodes = 900, n = 157;
  int const fanout = 4;
  auto const dst = gnndirect::test::random_indices<Index>(rng, n, nodes);
  buffer<Index> const d_dst = to_buffer(dst);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n));
  for (auto& c : counts) { c = static_cast<std::int64_t>(rng() % (fanout + 1)); }
  guarded_hop hop(n, n * fanout);
  SUBCASE("consistent counts within the fanout pass (the guard does not fire on good input)")
  {
    hop.fill(rng, counts, nodes);
    CHECK(relabel_guarded(s.stream, d_dst.data(), n, fanout, hop.view(), nodes).empty());
  }
  SUBCASE("a count above the fanout (offsets its scan) is the first offender")
  {
    auto const k = static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(n));
    counts[k] = fanout + 1 + static_cast<std::int64_t>(rng() % 3);
    CAPTURE(k);
    hop.fill(rng, counts, nodes);
    std::string const message = relabel_guarded(s.stream, d_dst.data(), n, fanout, hop.view(), nodes);
    CAPTURE(message);
    CHECK(contains(message, "sampled.counts[" + std::to_string(k) + "] = " + std::to_string(counts[k])));
  }
  SUBCASE("all counts above the fanout: the largest overrun, nothing written past the outputs")
  {
    for (auto& c : counts) { c = fanout + 3; }
    hop.fill(rng, counts, nodes);
    std::string const message = relabel_guarded(s.stream, d_dst.data(), n, fanout, hop.view(), nodes);
    CAPTURE(message);
    CHECK(contains(message, "sampled.counts[0] = " + std::to_string(fanout + 3)));
  }
  SUBCASE("a negative count (offsets its scan, so they step back) writes nothing before the outputs")
  {
    auto const k = static_cast<std::size_t>(rng() % 3);  // early: the offsets of later rows go below 0
    std::fill(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(k), 0);
    counts[k] = -1;
    CAPTURE(k);
    hop.fill(rng, counts, nodes);
    std::string const message = relabel_guarded(s.stream, d_dst.data(), n, fanout, hop.view(), nodes);
    CAPTURE(message);
    CHECK(contains(message, "sampled.counts[" + std::to_string(k) + "] = -1"));
  }
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("count guards: a dst id of -1 is reported by relabel_check with its row and value")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  stream_owner const s;
  small_graph const g(rng, 500);
  csr_view<Offset, Index> const csr = g.device();
  std::int64_t const n = 64;
  int const fanout = 5;
  auto seeds = gnndirect::test::random_indices<Index>(rng, n, g.nodes());
  buffer<Index> const d_seeds = to_buffer(seeds);
  guarded_hop const hop(n, n * fanout);
  guarded<unsigned char> const sample_ws(static_cast<std::int64_t>(gnndirect::sample_neighbors_workspace_bytes(n)));
  gnndirect::sample_neighbors_async(s.stream, csr, d_seeds.data(), n, fanout, 0, gnndirect::uniform_sampler{rng()},
                                    sampling_policy{}, hop.view(), sample_ws.workspace());
  gnndirect::sample_neighbors_check(s.stream, sample_ws.workspace(), g.nodes());
  seeds[2] = -1;
  seeds[40] = static_cast<Index>(g.nodes());  // a second, later offender
  buffer<Index> const d_dst = to_buffer(seeds);
  guarded_block const out(n, fanout, g.nodes());
  guarded<unsigned char> const ws(static_cast<std::int64_t>(gnndirect::relabel_workspace_bytes<Index>(n, fanout)));
  gnndirect::relabel_async(s.stream, d_dst.data(), n, fanout, hop.view(), g.nodes(), out.view(), ws.workspace());
  try {
    gnndirect::relabel_check(s.stream, ws.workspace(), g.nodes());
    FAIL("expected index_out_of_range");
  } catch (const gnndirect::index_out_of_range& e) {
    CAPTURE(e.what());
    CHECK(e.position() == 2);
    CHECK(e.value() == -1);
    CHECK(contains(e.what(), "relabel_async: dst[2] = -1"));
  }
  CHECK(out.guards_intact());
  CHECK(ws.guards_intact());
  CHECK(cudaGetLastError() == cudaSuccess);
}

namespace {

/// A faulty sampler through two-layer sample_blocks_async, every layer's outputs and the
/// workspace between guards: the check names layer 0's first offender, nothing is written
/// outside, and every count stays within its layer's bounds.
template <fault F>
void check_blocks_with(std::mt19937_64& rng, cudaStream_t stream)
{
  small_graph const g(rng, 700);
  csr_view<Offset, Index> const csr = g.device();
  std::int64_t const n = 96;
  std::vector<int> const fanouts{4, 3};
  auto const seeds = gnndirect::test::random_indices<Index>(rng, n, g.nodes());
  buffer<Index> const d_seeds = to_buffer(seeds);
  auto const bounds = gnndirect::sample_blocks_bounds(n, fanouts, g.nodes());
  std::vector<guarded<Index>> src, indices;
  std::vector<guarded<std::int64_t>> offsets;
  std::vector<guarded<Offset>> edge_ids;
  guarded<std::int64_t> const scalars(2 * static_cast<std::int64_t>(bounds.size()));
  gnndirect::sampled_blocks_view<Offset, Index> out;
  for (std::size_t l = 0; l < bounds.size(); ++l) {
    src.emplace_back(bounds[l].num_src);
    indices.emplace_back(bounds[l].num_edges);
    offsets.emplace_back(bounds[l].num_dst + 1);
    edge_ids.emplace_back(bounds[l].num_edges);
  }
  for (std::size_t l = 0; l < bounds.size(); ++l) {
    out.layers.push_back({src[l].data(), offsets[l].data(), indices[l].data(), edge_ids[l].data(),
                          scalars.data() + 2 * l, scalars.data() + 2 * l + 1, bounds[l]});
  }
  guarded<unsigned char> const ws(
    static_cast<std::int64_t>(gnndirect::sample_blocks_workspace_bytes<Offset, Index>(n, fanouts, g.nodes())));
  faulty_sampler<F> const sampler{gnndirect::uniform_sampler{rng()}};
  gnndirect::sample_blocks_async(stream, csr, d_seeds.data(), n, fanouts, sampler, sampling_policy{}, out,
                                 ws.workspace());
  auto const offender = first_offender<F>(g, seeds, fanouts[0]);
  REQUIRE(offender.first >= 0);
  std::string const message = message_of<gnndirect::invalid_argument>(
    [&] { gnndirect::sample_blocks_check(stream, ws.workspace(), fanouts.size(), g.nodes()); });
  CAPTURE(message);
  CHECK(contains(message, "sample_blocks (layer 0)"));
  CHECK(contains(message, sampler_report<F>("dst nodes of layer 0", offender)));
  for (std::size_t l = 0; l < bounds.size(); ++l) {
    CAPTURE(l);
    CHECK(src[l].guards_intact());
    CHECK(indices[l].guards_intact());
    CHECK(offsets[l].guards_intact());
    CHECK(edge_ids[l].guards_intact());
  }
  CHECK(scalars.guards_intact());
  CHECK(ws.guards_intact());
  auto const counts = scalars.values();
  for (std::size_t l = 0; l < bounds.size(); ++l) {
    CHECK(counts[2 * l] <= bounds[l].num_src);
    CHECK(counts[2 * l + 1] >= 0);
    CHECK(counts[2 * l + 1] <= bounds[l].num_edges);
  }
}

/// The same sampler through sample_neighbors_async and compact_sampled_async: the check names
/// seeds[first offender], every count lies in [0, fanout], nothing is written outside.
template <fault F>
void check_one_hop_with(std::mt19937_64& rng, cudaStream_t stream)
{
  small_graph const g(rng, 700);
  csr_view<Offset, Index> const csr = g.device();
  std::int64_t const n = 131;
  int const fanout = 4;
  auto const seeds = gnndirect::test::random_indices<Index>(rng, n, g.nodes());
  buffer<Index> const d_seeds = to_buffer(seeds);
  guarded_hop const hop(n, n * fanout);
  guarded<unsigned char> const ws(static_cast<std::int64_t>(gnndirect::sample_neighbors_workspace_bytes(n)));
  faulty_sampler<F> const sampler{gnndirect::uniform_sampler{rng()}};
  gnndirect::sample_neighbors_async(stream, csr, d_seeds.data(), n, fanout, 0, sampler, sampling_policy{}, hop.view(),
                                    ws.workspace());
  guarded<Index> const compact(n * fanout);
  guarded<Offset> const compact_ids(n * fanout);
  gnndirect::compact_sampled_async(stream, hop.view(), n, fanout, compact.data(), compact_ids.data());
  auto const offender = first_offender<F>(g, seeds, fanout);
  REQUIRE(offender.first >= 0);
  std::string const message = message_of<gnndirect::invalid_argument>(
    [&] { gnndirect::sample_neighbors_check(stream, ws.workspace(), g.nodes()); });
  CAPTURE(message);
  CHECK(contains(message, "sample_neighbors: the sampler " + sampler_report<F>("seeds", offender)));
  auto const counts = hop.counts.values();
  CHECK(std::all_of(counts.begin(), counts.end(), [&](std::int64_t c) { return c >= 0 && c <= fanout; }));
  if (F != fault::slot_past_fanout) { CHECK(counts[static_cast<std::size_t>(offender.first)] == 0); }
  CHECK(hop.offsets.values().back() <= n * fanout);
  CHECK(hop.neighbors.guards_intact());
  CHECK(hop.edge_ids.guards_intact());
  CHECK(hop.counts.guards_intact());
  CHECK(hop.offsets.guards_intact());
  CHECK(compact.guards_intact());
  CHECK(compact_ids.guards_intact());
  CHECK(ws.guards_intact());
}

}  // namespace

TEST_CASE("count guards: a sampler returning 3 more than it wrote, or -1, or emitting past its fanout")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  stream_owner const s;
  SUBCASE("count + 3 through sample_blocks_async") { check_blocks_with<fault::count_plus_three>(rng, s.stream); }
  SUBCASE("count -1 through sample_blocks_async") { check_blocks_with<fault::count_minus_one>(rng, s.stream); }
  SUBCASE("slot past the fanout through sample_blocks_async") { check_blocks_with<fault::slot_past_fanout>(rng, s.stream); }
  SUBCASE("count + 3 through sample_neighbors_async + compact_sampled_async")
  {
    check_one_hop_with<fault::count_plus_three>(rng, s.stream);
  }
  SUBCASE("count -1 through sample_neighbors_async + compact_sampled_async")
  {
    check_one_hop_with<fault::count_minus_one>(rng, s.stream);
  }
  SUBCASE("slot past the fanout through sample_neighbors_async + compact_sampled_async")
  {
    check_one_hop_with<fault::slot_past_fanout>(rng, s.stream);
  }
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("count guards: compact_sampled_async with offsets that are not the counts' scan stays inside")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  stream_owner const s;
  std::int64_t const n = 77;
  int const fanout = 3;
  guarded_hop hop(n, n * fanout);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n), fanout);
  hop.fill(rng, counts, 1000);
  // offsets[0] = -2: the first row would start 2 entries before the outputs; offsets[n - 1] =
  // n * fanout - 1: the last row would end 2 entries past them.
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(n) + 1);
  for (std::int64_t i = 0; i <= n; ++i) { offsets[static_cast<std::size_t>(i)] = i * fanout; }
  offsets[0] = -2;
  offsets[static_cast<std::size_t>(n - 1)] = n * fanout - 1;
  offsets[static_cast<std::size_t>(n)] = n * fanout + 2;
  gnndirect::test::copy_from_host(hop.offsets.data(), offsets.data(), offsets.size() * sizeof(std::int64_t));
  guarded<Index> const compact(n * fanout);
  guarded<Offset> const compact_ids(n * fanout);
  gnndirect::compact_sampled_async(s.stream, hop.view(), n, fanout, compact.data(), compact_ids.data());
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(s.stream));
  CHECK(compact.guards_intact());
  CHECK(compact_ids.guards_intact());
  // The rows in between are moved as usual (row n - 2 ends later, but moves its fanout slots).
  auto const ids = hop.neighbors.values();
  auto const moved = compact.values();
  for (std::int64_t s_ = fanout; s_ < (n - 1) * fanout; ++s_) {
    REQUIRE(moved[static_cast<std::size_t>(s_)] == ids[static_cast<std::size_t>(s_)]);
  }
  CHECK(cudaGetLastError() == cudaSuccess);
}
