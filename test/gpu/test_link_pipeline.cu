// GPU tests of the public link-prediction preparer (pipeline/link_preparer.cuh) on the batch
// scheduler: every batch of two epochs, bit for bit against a host composition of the landed
// host implementations (test/support/negative_reference.hpp for the negatives,
// test/support/temporal_reference.hpp for temporal blocks, reference/sample_reference.hpp for
// uniform blocks, seed nodes and edge_label_index written here from edge_seeds.cuh's rule), with
// a temporal sampler (binary negatives, strict, seed edges excluded, graph lists in pinned host
// memory; 'uniform' with edge times and 'last' with node times) and with the uniform sampler
// (triplet negatives, strict); slot memory from a resource that
// poisons every allocation; bad input refused at construction, and a user negative sampler
// drawing outside the graph raised by next() with the context left clean.
#include <doctest/doctest.h>

#include "support/negative_reference.hpp"
#include "support/random.hpp"
#include "support/temporal_reference.hpp"
#include "support/transfer.hpp"

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/cuda_handles.hpp>
#include <gnndirect/pipeline/link_preparer.cuh>
#include <gnndirect/pipeline/scheduler.cuh>
#include <gnndirect/reference/sample_reference.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace {

using gnndirect::buffer;
using gnndirect::memory_kind;
using gnndirect::test::sorted_graph;
using gnndirect::test::to_buffer;
using gnndirect::test::to_host;
using graph_t = sorted_graph<std::int64_t, std::int32_t>;
using seeds_t = gnndirect::link_seeds<std::int32_t, float>;

/// A stream-ordered resource that fills every allocation with 0xFF bytes (NaN floats, -1 ids),
/// so that an output the preparer leaves unwritten cannot match the host computation.
struct poisoning_resource {
  gnndirect::device_pool_resource upstream;
  void* allocate(::cuda::stream_ref stream, std::size_t bytes, std::size_t alignment)
  {
    void* p = upstream.allocate(stream, bytes, alignment);
    GNNDIRECT_CUDA_TRY(cudaMemsetAsync(p, 0xFF, bytes, stream.get()));
    return p;
  }
  void deallocate(::cuda::stream_ref stream, void* p, std::size_t bytes, std::size_t alignment) noexcept
  {
    upstream.deallocate(stream, p, bytes, alignment);
  }
};

/// A sorted graph on the device: indptr in HBM, indices in `kind`; random edge times; features.
struct link_fixture {
  graph_t g;
  std::vector<std::int64_t> edge_times, node_times;
  std::vector<float> features;
  std::int64_t dim{12};
  buffer<std::int64_t> indptr, d_edge_times, d_node_times;
  buffer<std::int32_t> indices;
  buffer<float> d_features;
  gnndirect::csr_view<std::int64_t, std::int32_t> csr;

  link_fixture(std::mt19937_64& rng, std::int64_t nodes, memory_kind kind) : g(rng, nodes)
  {
    edge_times.resize(g.indices.size());
    for (auto& t : edge_times) { t = static_cast<std::int64_t>(rng() % 100); }
    node_times.resize(static_cast<std::size_t>(nodes));
    for (auto& t : node_times) { t = static_cast<std::int64_t>(rng() % 100); }
    features.resize(static_cast<std::size_t>(nodes * dim));
    for (auto& x : features) { x = static_cast<float>(rng() % 100000) / 7.0f; }
    indptr = to_buffer(g.indptr);
    indices = to_buffer(g.indices, kind);
    d_edge_times = to_buffer(edge_times, kind);
    d_node_times = to_buffer(node_times, kind);
    d_features = to_buffer(features, memory_kind::pinned);
    csr = g.view();
    csr.indptr = indptr.data();
    csr.indices = indices.data();
    csr.indices_kind = kind;
  }
  gnndirect::table_view<const float> feature_view() const
  {
    return {d_features.data(), csr.num_nodes, dim, dim, memory_kind::pinned};
  }
  /// `count` stored edges (src = owner, their edge ids = positions) with times at or after the
  /// edge's own, and `extra` random pairs that are not looked up (edge id -1).
  seeds_t seeds(std::mt19937_64& rng, std::int64_t count, std::int64_t extra) const
  {
    seeds_t s;
    for (std::int64_t i = 0; i < count + extra; ++i) {
      std::int64_t e = -1;
      std::int64_t src = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(csr.num_nodes));
      std::int64_t dst = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(csr.num_nodes));
      if (i < count) {
        e = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(csr.num_edges));
        src = std::upper_bound(g.indptr.begin(), g.indptr.end(), e) - g.indptr.begin() - 1;
        dst = g.indices[static_cast<std::size_t>(e)];
      }
      s.src.push_back(static_cast<std::int32_t>(src));
      s.dst.push_back(static_cast<std::int32_t>(dst));
      s.labels.push_back(static_cast<float>(1 + rng() % 4));
      s.times.push_back((e >= 0 ? edge_times[static_cast<std::size_t>(e)] : 0) + static_cast<std::int64_t>(rng() % 20));
      s.edge_ids.push_back(e);
    }
    return s;
  }
};

/// What the host composition expects of batch b.
struct expected_batch {
  std::vector<std::int64_t> positions;
  std::vector<std::int32_t> src, dst, local, nodes;
  std::vector<std::int64_t> edge_time, node_time, excluded;
  std::vector<float> labels;
  std::int64_t unresolved{0};
  gnndirect::host::reference_blocks<std::int64_t, std::int32_t> blocks;
};

/// The host composition: epoch order, positives, negatives, seed nodes (first appearance over
/// src then dst), earliest times, then the blocks. triplet 0: binary with `amount`. `kind`: the
/// temporal sampler's strategy, time form and times (Temporal only).
template <bool Temporal>
expected_batch expect(const link_fixture& f, const seeds_t& seeds, const gnndirect::link_options& options,
                      double amount, std::int64_t triplet, bool exclude, std::int64_t epoch, std::int64_t b,
                      const gnndirect::test::temporal_setup& kind)
{
  expected_batch x;
  std::vector<std::int64_t> order(seeds.src.size());
  std::iota(order.begin(), order.end(), std::int64_t{0});
  gnndirect::shuffle_epoch(order, options.seed, epoch);
  std::int64_t const first = b * options.batch_size;
  std::int64_t const p = std::min<std::int64_t>(options.batch_size, static_cast<std::int64_t>(order.size()) - first);
  x.positions.assign(order.begin() + first, order.begin() + first + p);
  for (std::int64_t at : x.positions) {
    auto const i = static_cast<std::size_t>(at);
    x.src.push_back(seeds.src[i]);
    x.dst.push_back(seeds.dst[i]);
    x.labels.push_back(seeds.labels[i]);
    if (Temporal) { x.edge_time.push_back(seeds.times[i]); }
    if (exclude && seeds.edge_ids[i] >= 0) { x.excluded.push_back(seeds.edge_ids[i]); }
  }
  std::sort(x.excluded.begin(), x.excluded.end());
  x.excluded.erase(std::unique(x.excluded.begin(), x.excluded.end()), x.excluded.end());
  auto const neg = gnndirect::test::negatives_reference(f.g, x.src, amount, triplet,
                                                        gnndirect::batch_sampling_seed(gnndirect::link_negative_key(options.seed), epoch, b),
                                                        b, options.strict, options.max_attempts);
  x.unresolved = neg.unresolved;
  for (std::size_t k = 0; k < neg.src.size(); ++k) {
    x.src.push_back(neg.src[k]);
    x.dst.push_back(neg.dst[k]);
    x.labels.push_back(0.0f);
    if (Temporal) {
      auto const positive = triplet > 0 ? k / static_cast<std::size_t>(triplet) : k % static_cast<std::size_t>(p);
      x.edge_time.push_back(x.edge_time[positive]);
    }
  }
  std::size_t const e = x.src.size();
  std::unordered_map<std::int32_t, std::int32_t> row;
  for (std::size_t i = 0; i < 2 * e; ++i) {
    std::int32_t const v = i < e ? x.src[i] : x.dst[i - e];
    auto const inserted = row.emplace(v, static_cast<std::int32_t>(x.nodes.size()));
    if (inserted.second) {
      x.nodes.push_back(v);
      x.node_time.push_back(INT64_MAX);
    }
    x.local.push_back(inserted.first->second);
    if (Temporal) {
      auto& t = x.node_time[static_cast<std::size_t>(inserted.first->second)];
      t = std::min(t, x.edge_time[i % e]);
    }
  }
  std::uint64_t const sampling_seed = gnndirect::batch_sampling_seed(options.seed, epoch, b);
  if constexpr (Temporal) {
    gnndirect::test::temporal_setup setup;
    setup.last = kind.last;
    setup.node_times = kind.node_times;
    setup.seed = sampling_seed;
    gnndirect::test::append(setup.times, kind.times);
    gnndirect::test::append(setup.excluded, x.excluded);
    x.blocks = gnndirect::test::temporal_blocks_reference(f.g.view(), setup, x.nodes, x.node_time, options.fanouts);
  } else {
    x.blocks = gnndirect::host::sample_blocks_reference(f.g.view(), x.nodes.data(),
                                                        static_cast<std::int64_t>(x.nodes.size()), options.fanouts,
                                                        gnndirect::uniform_sampler{sampling_seed}, 1);
  }
  return x;
}

/// Compares a prepared batch with the host composition; returns the sampled seed edges.
template <bool Temporal, class Batch>
std::int64_t check_batch(const link_fixture& f, const Batch& batch, const expected_batch& x)
{
  auto const e = static_cast<std::int64_t>(x.src.size());
  REQUIRE(batch.num_edges() == e);
  CHECK(std::vector<std::int64_t>(batch.host_positions, batch.host_positions + batch.num_positive) == x.positions);
  CHECK(to_host(batch.src, e) == x.src);
  CHECK(to_host(batch.dst, e) == x.dst);
  CHECK(to_host(batch.edge_label, e) == x.labels);
  CHECK(batch.num_unresolved == x.unresolved);
  REQUIRE(batch.num_seed_nodes == static_cast<std::int64_t>(x.nodes.size()));
  CHECK(to_host(batch.edge_label_index, 2 * e) == x.local);
  if (Temporal) {
    CHECK(to_host(batch.edge_label_time, e) == x.edge_time);
    CHECK(to_host(batch.seed_times, batch.num_seed_nodes) == x.node_time);
  } else {
    CHECK(batch.edge_label_time == nullptr);
    CHECK(batch.seed_times == nullptr);
  }
  REQUIRE(batch.blocks.layers.size() == x.blocks.layers.size());
  std::int64_t excluded_sampled = 0;
  for (std::size_t l = 0; l < x.blocks.layers.size(); ++l) {
    CAPTURE(l);
    auto const& a = batch.blocks.layers[l];
    auto const& w = x.blocks.layers[l];
    REQUIRE(a.num_dst() == static_cast<std::int64_t>(w.dst_nodes.size()));
    REQUIRE(a.num_src() == static_cast<std::int64_t>(w.src_nodes.size()));
    REQUIRE(a.num_edges() == static_cast<std::int64_t>(w.indices.size()));
    CHECK(to_host(a.dst_nodes.data(), a.num_dst()) == w.dst_nodes);
    CHECK(to_host(a.src_nodes.data(), a.num_src()) == w.src_nodes);
    CHECK(to_host(a.offsets.data(), a.num_dst() + 1) == w.offsets);
    CHECK(to_host(a.indices.data(), a.num_edges()) == w.indices);
    auto const ids = to_host(a.edge_ids.data(), a.num_edges());
    CHECK(ids == w.edge_ids);
    for (std::int64_t id : ids) { excluded_sampled += std::binary_search(x.excluded.begin(), x.excluded.end(), id); }
  }
  auto const& inputs = x.blocks.layers.back().src_nodes;
  REQUIRE(batch.num_input_nodes == static_cast<std::int64_t>(inputs.size()));
  auto const rows = to_host(batch.features.data, batch.num_input_nodes * f.dim);
  std::int64_t mismatches = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto const* want = f.features.data() + static_cast<std::size_t>(inputs[i]) * static_cast<std::size_t>(f.dim);
    mismatches += !std::equal(want, want + f.dim, rows.begin() + static_cast<std::ptrdiff_t>(i) * f.dim);
  }
  CHECK(mismatches == 0);
  return excluded_sampled;
}

/// Runs two epochs of a preparer through batch_scheduler against the host composition.
template <bool Temporal, class Preparer>
void run_epochs(const link_fixture& f, Preparer& preparer, const seeds_t& seeds, double amount, std::int64_t triplet,
                bool exclude, int workers, const gnndirect::test::temporal_setup& kind = {})
{
  auto const consumer = gnndirect::make_non_blocking_stream();
  gnndirect::batch_scheduler<Preparer> scheduler(preparer, gnndirect::scheduler_options{workers + 1, workers});
  std::int64_t unresolved = 0;
  for (std::int64_t epoch : {0, 1}) {
    CAPTURE(epoch);
    scheduler.start_epoch(epoch);
    std::int64_t count = 0;
    std::int64_t positives = 0;
    while (auto* batch = scheduler.next(consumer.get())) {
      CAPTURE(batch->index);
      REQUIRE(batch->index == count);
      GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));
      auto const x =
        expect<Temporal>(f, seeds, preparer.options(), amount, triplet, exclude, epoch, batch->index, kind);
      CHECK(check_batch<Temporal>(f, *batch, x) == 0);
      positives += batch->num_positive;
      unresolved += batch->num_unresolved;
      scheduler.release(batch, consumer.get());
      ++count;
    }
    CHECK(count == preparer.num_batches());
    CHECK(positives == static_cast<std::int64_t>(seeds.src.size()));
  }
  // Triplet negatives keep their source: node 0 links to every node, so its never resolve.
  if (preparer.options().strict && triplet > 0) { CHECK(unresolved > 0); }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));
}

/// A user negative sampler that draws node num_nodes for negative 3 (outside the graph).
struct outside_negative_sampler {
  template <class Index>
  GNNDIRECT_HOST_DEVICE gnndirect::negative_pair<Index> draw(std::uint64_t, std::int64_t, std::int64_t k,
                                                             std::uint32_t, std::int64_t num_nodes, Index) const
  {
    return {static_cast<Index>(0), static_cast<Index>(k == 3 ? num_nodes : 1)};
  }
};

/// The temporal case: binary strict negatives, seed edges excluded, lists in pinned memory.
template <class Strategy, class TimeForm>
void temporal_link_epochs(std::mt19937_64& rng)
{
  link_fixture const f(rng, 1200, memory_kind::pinned);
  seeds_t const seeds = f.seeds(rng, 700, 40);
  gnndirect::link_options options;
  options.fanouts = {6, 4};
  options.batch_size = 128;
  options.seed = rng();
  options.strict = true;
  options.max_attempts = 5;
  using sampler_t = gnndirect::temporal_sampler<Strategy, TimeForm>;
  bool constexpr per_node = std::is_same_v<TimeForm, gnndirect::node_time>;
  sampler_t const sampler{rng(), per_node ? f.d_node_times.data() : f.d_edge_times.data(),
                          per_node ? f.csr.num_nodes : f.csr.num_edges};
  gnndirect::test::temporal_setup kind;
  kind.last = std::is_same_v<Strategy, gnndirect::temporal_last>;
  kind.node_times = per_node;
  gnndirect::test::append(kind.times, per_node ? f.node_times : f.edge_times);
  poisoning_resource mr;
  double const amount = 1.5;
  gnndirect::link_preparer<std::int64_t, std::int32_t, float, float, sampler_t> preparer(
    f.csr, f.feature_view(), seeds, gnndirect::binary_negatives{amount}, options, sampler, mr);
  static_assert(decltype(preparer)::is_temporal);
  run_epochs<true>(f, preparer, seeds, amount, 0, true, 2, kind);
}

}  // namespace

TEST_CASE("link_preparer, temporal: binary strict negatives, seed edges excluded, every batch bit for bit")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  SUBCASE("uniform, edge times") { temporal_link_epochs<gnndirect::temporal_uniform, gnndirect::edge_time>(rng); }
  SUBCASE("last, node times") { temporal_link_epochs<gnndirect::temporal_last, gnndirect::node_time>(rng); }
}

TEST_CASE("link_preparer, uniform sampler: triplet negatives, no labels, every batch bit for bit")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  link_fixture const f(rng, 900, memory_kind::device);
  seeds_t seeds = f.seeds(rng, 500, 0);
  seeds.times.clear();
  seeds.edge_ids.clear();
  seeds.labels.clear();
  gnndirect::link_options options;
  options.fanouts = {5, 3, 2};
  options.batch_size = 100;
  options.seed = rng();
  options.drop_last = true;
  options.strict = true;
  options.max_attempts = 3;
  poisoning_resource mr;
  gnndirect::link_preparer<std::int64_t, std::int32_t, float, float, gnndirect::uniform_sampler,
                           gnndirect::triplet_negatives>
    preparer(f.csr, f.feature_view(), seeds, gnndirect::triplet_negatives{3}, options, gnndirect::uniform_sampler{},
             mr);
  CHECK(preparer.num_batches() == 5);
  seeds_t expected_seeds = seeds;
  expected_seeds.labels.assign(seeds.src.size(), 1.0f);  // no labels: positives are 1
  run_epochs<false>(f, preparer, expected_seeds, 0.0, 3, false, 1);
}

TEST_CASE("link_preparer bad input: refused at construction; a negative sampler outside the graph raised")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  link_fixture const f(rng, 300, memory_kind::device);
  seeds_t const seeds = f.seeds(rng, 50, 5);
  gnndirect::link_options options;
  options.fanouts = {4};
  options.batch_size = 16;
  poisoning_resource mr;
  using sampler_t = gnndirect::temporal_sampler<gnndirect::temporal_last, gnndirect::edge_time>;
  using temporal_t = gnndirect::link_preparer<std::int64_t, std::int32_t, float, float, sampler_t>;
  sampler_t sampler{0, f.d_edge_times.data(), f.csr.num_edges};
  auto const make = [&](const seeds_t& s, const sampler_t& with, const gnndirect::link_options& o) {
    return temporal_t(f.csr, f.feature_view(), s, gnndirect::binary_negatives{1.0}, o, with, mr);
  };
  seeds_t no_times = seeds;
  no_times.times.pop_back();
  CHECK_THROWS_WITH_AS(make(no_times, sampler, options), doctest::Contains("seed edges without times"),
                       gnndirect::invalid_argument);
  sampler_t short_times = sampler;
  short_times.num_times = f.csr.num_edges - 1;
  CHECK_THROWS_WITH_AS(make(seeds, short_times, options), doctest::Contains("edge times for a graph of"),
                       gnndirect::invalid_argument);
  seeds_t outside = seeds;
  outside.dst[7] = static_cast<std::int32_t>(f.csr.num_nodes);
  CHECK_THROWS_WITH_AS(make(outside, sampler, options), doctest::Contains("link_seeds::dst[7]"),
                       gnndirect::index_out_of_range);
  CHECK_THROWS_WITH_AS(temporal_t(f.csr, f.feature_view(), seeds, gnndirect::binary_negatives{0.0}, options, sampler,
                                  mr),
                       doctest::Contains("must be > 0"), gnndirect::invalid_argument);
  using plain_t = gnndirect::link_preparer<std::int64_t, std::int32_t, float>;
  CHECK_THROWS_WITH_AS(plain_t(f.csr, f.feature_view(), seeds, gnndirect::binary_negatives{1.0}, options,
                               gnndirect::uniform_sampler{}, mr),
                       doctest::Contains("not a temporal_sampler"), gnndirect::invalid_argument);
  // A user negative sampler drawing outside the graph: next() raises it, nothing is sampled from
  // it, and the context stays usable.
  seeds_t plain = seeds;
  plain.times.clear();
  plain.edge_ids.clear();
  using broken_t = gnndirect::link_preparer<std::int64_t, std::int32_t, float, float, gnndirect::uniform_sampler,
                                            gnndirect::binary_negatives, outside_negative_sampler>;
  broken_t broken(f.csr, f.feature_view(), plain, gnndirect::binary_negatives{1.0}, options,
                  gnndirect::uniform_sampler{}, mr, outside_negative_sampler{});
  auto const consumer = gnndirect::make_non_blocking_stream();
  {
    gnndirect::batch_scheduler<broken_t> scheduler(broken, gnndirect::scheduler_options{2, 1});
    scheduler.start_epoch(0);
    CHECK_THROWS_WITH_AS(scheduler.next(consumer.get()), doctest::Contains("for negative 3"),
                         gnndirect::invalid_argument);
  }
  plain_t fine(f.csr, f.feature_view(), plain, gnndirect::binary_negatives{1.0}, options, gnndirect::uniform_sampler{},
               mr);
  gnndirect::batch_scheduler<plain_t> scheduler(fine, gnndirect::scheduler_options{2, 1});
  scheduler.start_epoch(0);
  std::int64_t count = 0;
  while (auto* batch = scheduler.next(consumer.get())) {
    CHECK(batch->num_edges() == 2 * batch->num_positive);
    scheduler.release(batch, consumer.get());
    ++count;
  }
  CHECK(count == fine.num_batches());
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));
}
