// GPU tests of temporal node classification through the pipeline: minibatch_pipeline (and so
// gnn_preparer) with the library's temporal_sampler and one query time per training id, both
// strategies and both time forms, two workers, graph lists and times in host memory: every batch
// of two epochs bit for bit against the independent host implementation
// (test/support/temporal_reference.hpp) for the seeds and times the epoch order gives (times
// shuffled with their ids, checked against shuffle_epoch applied to the times alone), with the
// features and labels; seeds without times, times for a non-temporal sampler and a temporal
// sampler's times of the wrong length refused at construction.
#include <doctest/doctest.h>

#include "support/random.hpp"
#include "support/temporal_reference.hpp"
#include "support/transfer.hpp"

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/device/temporal_samplers.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/cuda_handles.hpp>
#include <gnndirect/pipeline/minibatch_pipeline.cuh>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <type_traits>
#include <vector>

namespace {

using gnndirect::buffer;
using gnndirect::memory_kind;
using gnndirect::test::to_buffer;
using gnndirect::test::to_host;
using graph_t = gnndirect::test::temporal_graph<std::int64_t, std::int32_t>;

/// A temporal graph on the device (indptr in HBM, lists, edge ids and times in pinned memory),
/// features (pinned) and labels (device), and random training ids with query times.
struct temporal_fixture {
  graph_t g;
  std::int64_t dim{8};
  std::vector<float> features;
  std::vector<std::int32_t> labels, training_ids;
  std::vector<std::int64_t> training_times;
  buffer<std::int64_t> indptr, edge_ids, edge_times, node_times;
  buffer<std::int32_t> indices, d_labels;
  buffer<float> d_features;
  gnndirect::csr_view<std::int64_t, std::int32_t> csr;

  explicit temporal_fixture(std::mt19937_64& rng) : g(rng, 1500, true)
  {
    std::int64_t const n = static_cast<std::int64_t>(g.indptr.size()) - 1;
    features.resize(static_cast<std::size_t>(n * dim));
    for (auto& x : features) { x = static_cast<float>(rng() % 10000) / 3.0f; }
    labels.resize(static_cast<std::size_t>(n));
    for (auto& x : labels) { x = static_cast<std::int32_t>(rng() % 50); }
    indptr = to_buffer(g.indptr);
    indices = to_buffer(g.indices, memory_kind::pinned);
    edge_ids = to_buffer(g.edge_ids, memory_kind::pinned);
    edge_times = to_buffer(g.edge_times, memory_kind::pinned);
    node_times = to_buffer(g.node_times, memory_kind::pinned);
    d_features = to_buffer(features, memory_kind::pinned);
    d_labels = to_buffer(labels);
    csr = g.view();
    csr.indptr = indptr.data();
    csr.indices = indices.data();
    csr.edge_ids = edge_ids.data();
    csr.indptr_kind = memory_kind::device;
    csr.indices_kind = memory_kind::pinned;
    std::vector<std::int32_t> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    training_ids.assign(all.begin(), all.begin() + 700);  // the hubs are likely among them
    training_ids.push_back(3);
    training_ids.push_back(7);
    for (std::size_t i = 0; i < training_ids.size(); ++i) {
      training_times.push_back(static_cast<std::int64_t>(rng() % 60) - 10);
    }
  }
  gnndirect::table_view<const float> feature_view() const
  {
    return {d_features.data(), csr.num_nodes, dim, dim, memory_kind::pinned};
  }
};

template <class Strategy, class TimeForm>
void run_temporal_epochs(const temporal_fixture& f, std::mt19937_64& rng)
{
  using sampler_t = gnndirect::temporal_sampler<Strategy, TimeForm>;
  bool constexpr per_node = std::is_same_v<TimeForm, gnndirect::node_time>;
  sampler_t const sampler{rng(), per_node ? f.node_times.data() : f.edge_times.data(),
                          per_node ? f.csr.num_nodes : f.csr.num_edges};
  gnndirect::pipeline_options options;
  options.fanouts = {7, 4, 2};
  options.batch_size = 96;
  options.seed = rng();
  options.depth = 3;
  options.workers = 2;
  gnndirect::test::temporal_setup setup;
  setup.last = std::is_same_v<Strategy, gnndirect::temporal_last>;
  setup.node_times = per_node;
  gnndirect::test::append(setup.times, per_node ? f.g.node_times : f.g.edge_times);
  auto const consumer = gnndirect::make_non_blocking_stream();
  gnndirect::minibatch_pipeline<std::int64_t, std::int32_t, float, std::int32_t, sampler_t> pipeline(
    f.csr, f.feature_view(), f.d_labels.data(), f.training_ids, f.training_times, options, sampler);
  for (std::int64_t epoch : {0, 1}) {
    CAPTURE(epoch);
    std::vector<std::int64_t> times = f.training_times;  // shuffled alone: the ids' swaps
    gnndirect::shuffle_epoch(times, options.seed, epoch);
    std::vector<std::int32_t> ids = f.training_ids;
    gnndirect::shuffle_epoch(ids, options.seed, epoch);
    pipeline.start_epoch(epoch);
    REQUIRE(pipeline.epoch_order() == ids);
    std::int64_t count = 0;
    while (auto* batch = pipeline.next(consumer.get())) {
      CAPTURE(batch->index);
      GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));
      std::vector<std::int32_t> const seeds(batch->host_seeds, batch->host_seeds + batch->num_seeds);
      std::vector<std::int64_t> const seed_times(times.begin() + batch->first,
                                                 times.begin() + batch->first + batch->num_seeds);
      REQUIRE(batch->seed_times != nullptr);
      CHECK(to_host(batch->seed_times, batch->num_seeds) == seed_times);
      setup.seed = batch->sampling_seed;
      CHECK(batch->sampling_seed == gnndirect::batch_sampling_seed(options.seed, epoch, batch->index));
      auto const want = gnndirect::test::temporal_blocks_reference(f.g.view(), setup, seeds, seed_times, options.fanouts);
      REQUIRE(batch->blocks.layers.size() == want.layers.size());
      for (std::size_t l = 0; l < want.layers.size(); ++l) {
        CAPTURE(l);
        auto const& a = batch->blocks.layers[l];
        auto const& w = want.layers[l];
        REQUIRE(a.num_src() == static_cast<std::int64_t>(w.src_nodes.size()));
        REQUIRE(a.num_edges() == static_cast<std::int64_t>(w.indices.size()));
        CHECK(to_host(a.dst_nodes.data(), a.num_dst()) == w.dst_nodes);
        CHECK(to_host(a.src_nodes.data(), a.num_src()) == w.src_nodes);
        CHECK(to_host(a.offsets.data(), a.num_dst() + 1) == w.offsets);
        CHECK(to_host(a.indices.data(), a.num_edges()) == w.indices);
        CHECK(to_host(a.edge_ids.data(), a.num_edges()) == w.edge_ids);
      }
      auto const& inputs = want.layers.back().src_nodes;
      REQUIRE(batch->num_input_nodes == static_cast<std::int64_t>(inputs.size()));
      auto const rows = to_host(batch->features.data, batch->num_input_nodes * f.dim);
      std::int64_t mismatches = 0;
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        auto const* w = f.features.data() + static_cast<std::size_t>(inputs[i]) * static_cast<std::size_t>(f.dim);
        mismatches += !std::equal(w, w + f.dim, rows.begin() + static_cast<std::ptrdiff_t>(i) * f.dim);
      }
      CHECK(mismatches == 0);
      auto const labels = to_host(batch->labels, batch->num_seeds);
      for (std::size_t i = 0; i < seeds.size(); ++i) {
        mismatches += labels[i] != f.labels[static_cast<std::size_t>(seeds[i])];
      }
      CHECK(mismatches == 0);
      pipeline.release(batch, consumer.get());
      ++count;
    }
    CHECK(count == pipeline.num_batches());
  }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));
}

}  // namespace

TEST_CASE("minibatch_pipeline with temporal_sampler: every batch bit for bit, both strategies and time forms")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  temporal_fixture const f(rng);
  SUBCASE("uniform, edge times") { run_temporal_epochs<gnndirect::temporal_uniform, gnndirect::edge_time>(f, rng); }
  SUBCASE("last, edge times") { run_temporal_epochs<gnndirect::temporal_last, gnndirect::edge_time>(f, rng); }
  SUBCASE("uniform, node times") { run_temporal_epochs<gnndirect::temporal_uniform, gnndirect::node_time>(f, rng); }
  SUBCASE("last, node times") { run_temporal_epochs<gnndirect::temporal_last, gnndirect::node_time>(f, rng); }
}

TEST_CASE("minibatch_pipeline temporal bad input: seeds without times, times without a temporal sampler")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  temporal_fixture const f(rng);
  using sampler_t = gnndirect::temporal_sampler<>;
  using temporal_pipeline = gnndirect::minibatch_pipeline<std::int64_t, std::int32_t, float, std::int32_t, sampler_t>;
  using plain_pipeline = gnndirect::minibatch_pipeline<std::int64_t, std::int32_t, float, std::int32_t>;
  gnndirect::pipeline_options options;
  options.fanouts = {4};
  options.batch_size = 64;
  sampler_t const sampler{1, f.edge_times.data(), f.csr.num_edges};
  CHECK_THROWS_WITH_AS(temporal_pipeline(f.csr, f.feature_view(), f.d_labels.data(), f.training_ids, options, sampler),
                       doctest::Contains("seeds without times"), gnndirect::invalid_argument);
  std::vector<std::int64_t> short_times = f.training_times;
  short_times.pop_back();
  CHECK_THROWS_WITH_AS(temporal_pipeline(f.csr, f.feature_view(), f.d_labels.data(), f.training_ids, short_times,
                                         options, sampler),
                       doctest::Contains("training_times has"), gnndirect::invalid_argument);
  sampler_t wrong = sampler;
  wrong.num_times = f.csr.num_nodes;
  CHECK_THROWS_WITH_AS(temporal_pipeline(f.csr, f.feature_view(), f.d_labels.data(), f.training_ids,
                                         f.training_times, options, wrong),
                       doctest::Contains("edge times for a graph of"), gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(plain_pipeline(f.csr, f.feature_view(), f.d_labels.data(), f.training_ids, f.training_times,
                                      options),
                       doctest::Contains("not a temporal_sampler"), gnndirect::invalid_argument);
  // The context is clean: a valid temporal pipeline runs its epoch.
  temporal_pipeline pipeline(f.csr, f.feature_view(), f.d_labels.data(), f.training_ids, f.training_times, options,
                             sampler);
  auto const consumer = gnndirect::make_non_blocking_stream();
  pipeline.start_epoch(0);
  std::int64_t count = 0;
  while (auto* batch = pipeline.next(consumer.get())) {
    CHECK(batch->seed_times != nullptr);
    pipeline.release(batch, consumer.get());
    ++count;
  }
  CHECK(count == pipeline.num_batches());
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));
}
