// GPU tests of the mini-batch pipeline: every batch equals host sampling + host gather for the
// seeds it used, epochs cover the training ids once and are deterministic per (seed, epoch);
// batch i+1 is prepared while batch i is held; no pool growth after the first epoch; bad
// training ids raise index_out_of_range from next() and leave the context usable; the pipeline
// on a caller's memory resource; a gather priority (either direction) with a timeline (every
// stage in stream order); the gather calibration.
#include <doctest/doctest.h>

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/owners/cuda_handles.hpp>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/host_memory.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/pipeline/minibatch_pipeline.cuh>
#include <gnndirect/pipeline/timeline.hpp>
#include <gnndirect/reference/gather_reference.hpp>
#include <gnndirect/reference/sample_reference.hpp>

#include "support/temporal_sampler.cuh"

#include "support/counting_resource.hpp"
#include "support/random.hpp"
#include "support/transfer.hpp"
#include "support/device_memory.hpp"

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <string>
#include <random>
#include <thread>
#include <vector>

using gnndirect::test::counting_resource;
using gnndirect::csr_placement;
using gnndirect::memory_kind;
using gnndirect::pipeline_options;

namespace {

using label_type = std::int64_t;
template <class Index>
using pipeline_of = gnndirect::minibatch_pipeline<std::int64_t, Index, float, label_type>;
template <class Index>
using batch_of = typename pipeline_of<Index>::batch_type;

/// A random R-MAT graph (a preset, by default the small one, scaled), features and labels, placed for the GPU,
/// with host copies for the reference; a random subset of the nodes as training ids.
template <class Index>
struct fixture {
  gnndirect::host_csr<std::int64_t, Index> host_graph;
  gnndirect::csr_graph<std::int64_t, Index> graph;
  std::vector<float> host_features;
  gnndirect::table<float> features;
  std::vector<label_type> host_labels;
  gnndirect::buffer<label_type> labels;
  std::vector<Index> training_ids;
  std::int64_t dim;

  fixture(std::uint64_t seed, double scale, std::int64_t dim_, std::int64_t num_training,
          csr_placement graph_kind, memory_kind features_kind, memory_kind labels_kind,
          gnndirect::graph_preset preset = gnndirect::graph_preset::small)
    : host_graph(gnndirect::host::generate_csr<std::int64_t, Index>(
        gnndirect::preset_options(preset, scale, seed))),
      graph(gnndirect::csr_graph<std::int64_t, Index>::adopt(host_graph.view(), graph_kind)),
      dim(dim_)
  {
    std::mt19937_64 rng(seed ^ 0xFEA7u);
    std::int64_t const n = host_graph.num_nodes;
    host_features.resize(static_cast<std::size_t>(n * dim));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (auto& value : host_features) { value = uniform(rng); }
    features = gnndirect::table<float>::adopt_by_copy(host_features.data(), n, dim, features_kind);
    host_labels.resize(static_cast<std::size_t>(n));
    for (auto& label : host_labels) { label = static_cast<label_type>(rng() % 1000); }
    labels = gnndirect::buffer<label_type>(static_cast<std::size_t>(n), labels_kind);
    gnndirect::test::copy_from_host(labels.data(), host_labels.data(), labels.bytes());
    training_ids.resize(static_cast<std::size_t>(n));
    std::iota(training_ids.begin(), training_ids.end(), Index{0});
    std::shuffle(training_ids.begin(), training_ids.end(), rng);
    training_ids.resize(static_cast<std::size_t>(std::min(num_training, n)));
  }

  pipeline_of<Index> make_pipeline(const pipeline_options& options,
                                   std::vector<Index> ids = {}) const
  {
    if (ids.empty()) { ids = training_ids; }
    return pipeline_of<Index>(graph.view(), features.view(), labels.data(), std::move(ids), options);
  }
};

pipeline_options test_options(std::uint64_t seed, int depth, int workers = 2)
{
  pipeline_options options;
  options.fanouts = {10, 5};
  options.batch_size = 256;
  options.sampling = gnndirect::sampling_policy{32, 0, true};
  options.seed = seed;
  options.depth = depth;
  options.workers = workers;
  return options;
}

/// Copies n elements of device-visible memory to the host in `stream` order.
template <class T>
std::vector<T> to_host(cudaStream_t stream, const T* device, std::int64_t n)
{
  std::vector<T> host(static_cast<std::size_t>(n));
  if (n > 0) {
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(host.data(), device, host.size() * sizeof(T),
                                       cudaMemcpyDefault, stream));
  }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
  return host;
}

/// One batch, read on the consumer stream, against host::sample_blocks_reference +
/// host::gather_reference for the batch's own seeds and sampling seed.
template <class Index>
void check_batch(const fixture<Index>& f, const batch_of<Index>& batch,
                 const pipeline_options& options, cudaStream_t consumer)
{
  CAPTURE(batch.epoch);
  CAPTURE(batch.index);
  CHECK(batch.sampling_seed ==
        gnndirect::batch_sampling_seed(options.seed, batch.epoch, batch.index));
  // The pipeline's default sampler, reseeded per batch through with_seed.
  auto const expected = gnndirect::host::sample_blocks_reference(
    f.host_graph.view(), batch.host_seeds, batch.num_seeds, options.fanouts,
    gnndirect::uniform_sampler{batch.sampling_seed});
  std::vector<Index> const seeds(batch.host_seeds, batch.host_seeds + batch.num_seeds);
  CHECK(to_host(consumer, batch.seeds, batch.num_seeds) == seeds);
  REQUIRE(batch.blocks.layers.size() == expected.layers.size());
  std::int64_t edges = 0;
  for (std::size_t l = 0; l < expected.layers.size(); ++l) {
    CAPTURE(l);
    auto const& a = batch.blocks.layers[l];
    auto const& e = expected.layers[l];
    REQUIRE(to_host(consumer, a.dst_nodes.data(), a.num_dst()) == e.dst_nodes);
    REQUIRE(to_host(consumer, a.src_nodes.data(), a.num_src()) == e.src_nodes);
    REQUIRE(to_host(consumer, a.offsets.data(), a.num_dst() + 1) == e.offsets);
    REQUIRE(to_host(consumer, a.indices.data(), a.num_edges()) == e.indices);
    REQUIRE(to_host(consumer, a.edge_ids.data(), a.num_edges()) == e.edge_ids);
    edges += a.num_edges();
  }
  CHECK(batch.num_sampled_edges == edges);

  auto const& inputs = expected.input_nodes();
  auto const n_in = static_cast<std::int64_t>(inputs.size());
  REQUIRE(batch.num_input_nodes == n_in);
  REQUIRE(batch.features.rows == n_in);
  REQUIRE(batch.features.cols == f.dim);
  CHECK(batch.features.kind == memory_kind::device);
  CHECK(batch.feature_bytes == static_cast<std::size_t>(n_in * f.dim) * sizeof(float));
  std::vector<float> want(static_cast<std::size_t>(n_in * f.dim));
  gnndirect::host::gather_reference(
    gnndirect::table_view<const float>(f.host_features.data(), f.host_graph.num_nodes, f.dim, f.dim,
                                       memory_kind::registered),
    inputs.data(), n_in,
    gnndirect::table_view<float>(want.data(), n_in, f.dim, f.dim, memory_kind::registered));
  std::vector<float> const got = to_host(consumer, batch.features.data, n_in * f.dim);
  CHECK(std::equal(got.begin(), got.end(), want.begin(), want.end()));  // bitwise copies

  std::vector<label_type> want_labels;
  for (Index s : seeds) { want_labels.push_back(f.host_labels[static_cast<std::size_t>(s)]); }
  CHECK(to_host(consumer, batch.labels, batch.num_seeds) == want_labels);
}

/// Runs one epoch, checking every batch; returns the epoch order.
template <class Index, class Pipeline>
std::vector<Index> checked_epoch(const fixture<Index>& f, Pipeline& pipeline,
                                 const pipeline_options& options, std::int64_t epoch,
                                 cudaStream_t consumer)
{
  CAPTURE(epoch);
  pipeline.start_epoch(epoch);
  std::vector<Index> seen;
  std::int64_t count = 0;
  while (auto* batch = pipeline.next(consumer)) {
    CHECK(batch->epoch == epoch);
    CHECK(batch->index == count);
    CHECK(batch->first == count * options.batch_size);
    auto const& order = pipeline.epoch_order();
    CHECK(std::equal(batch->host_seeds, batch->host_seeds + batch->num_seeds,
                     order.begin() + batch->first));
    check_batch(f, *batch, options, consumer);
    seen.insert(seen.end(), batch->host_seeds, batch->host_seeds + batch->num_seeds);
    pipeline.release(batch, consumer);
    ++count;
  }
  CHECK(count == pipeline.num_batches());
  CHECK(pipeline.next(consumer) == nullptr);  // stays at the end
  std::vector<Index> expected = f.training_ids;
  std::sort(expected.begin(), expected.end());
  std::sort(seen.begin(), seen.end());
  CHECK(seen == expected);  // each training id exactly once
  return pipeline.epoch_order();
}

template <class Index>
void check_against_reference(std::uint64_t seed, csr_placement graph_kind, memory_kind features_kind,
                             memory_kind labels_kind, int depth, int max_blocks, int workers,
                             gnndirect::wait_mode wait = gnndirect::wait_mode::sleep)
{
  fixture<Index> const f(seed, 0.05, 50, 1500, graph_kind, features_kind, labels_kind);
  pipeline_options options = test_options(seed, depth, workers);
  options.worker_wait = wait;
  options.sampling.max_blocks = max_blocks;  // the one cap of sampling, and of the gathers
  options.gather.max_blocks = max_blocks;
  auto const consumer = gnndirect::make_non_blocking_stream();
  auto pipeline = f.make_pipeline(options);
  CHECK(pipeline.options().sampling.max_blocks == max_blocks);
  if (max_blocks > 0) { CHECK(pipeline.feature_gather_policy().max_blocks == max_blocks); }
  auto const order0 = checked_epoch(f, pipeline, options, 0, consumer.get());
  auto const order1 = checked_epoch(f, pipeline, options, 1, consumer.get());
  CHECK(order0 != order1);
  // Re-running an epoch reproduces its order and its batches.
  pipeline.start_epoch(0);
  CHECK(pipeline.epoch_order() == order0);
  auto* batch = pipeline.next(consumer.get());
  REQUIRE(batch != nullptr);
  check_batch(f, *batch, options, consumer.get());
  pipeline.release(batch, consumer.get());
  auto const stats = pipeline.stats();
  CHECK(stats.epoch == 0);
  CHECK(stats.batches_prepared >= 2 * pipeline.num_batches() + 1);
  CHECK(stats.feature_bytes > 0);
}

}  // namespace

TEST_CASE("pipeline batches equal host sampling + gather; epochs are shuffles, deterministic")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  SUBCASE("indptr device, indices managed_host, features managed_host, labels device")
  {
    check_against_reference<std::int32_t>(seed, csr_placement{memory_kind::device, memory_kind::managed_host},
                                          memory_kind::managed_host, memory_kind::device, 2, 0, 2);
  }
  SUBCASE("everything pinned, int64 ids, depth 3, block budget 8")
  {
    check_against_reference<std::int64_t>(seed, csr_placement::all(memory_kind::pinned),
                                          memory_kind::pinned, memory_kind::pinned, 3, 8, 2);
  }
  SUBCASE("one worker, depth 1 (strictly serial)")
  {
    check_against_reference<std::int32_t>(seed, csr_placement::all(memory_kind::device),
                                          memory_kind::managed_host, memory_kind::device, 1, 0, 1);
  }
  SUBCASE("four workers, depth 6, spinning waits")
  {
    check_against_reference<std::int64_t>(seed, csr_placement{memory_kind::device, memory_kind::managed_host},
                                          memory_kind::managed_host, memory_kind::pinned, 6, 0, 4,
                                          gnndirect::wait_mode::spin);
  }
}

namespace {

/// Polls the pipeline's stats until batch `index` is ready or `timeout` passes.
template <class Index>
bool wait_until_ready(const pipeline_of<Index>& pipeline, std::int64_t index,
                      std::chrono::seconds timeout = std::chrono::seconds(10))
{
  auto const deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    auto const stats = pipeline.stats();
    if (static_cast<std::int64_t>(stats.batches.size()) > index &&
        stats.batches[static_cast<std::size_t>(index)].is_ready) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

}  // namespace

namespace {

/// One epoch with gather_priority `priority` and a timeline: every batch against the reference, and
/// every stage recorded once per batch, in stream order, on the lane its priority puts it on.
void check_priority_timeline(std::uint64_t seed, int priority)
{
  CAPTURE(priority);
  fixture<std::int32_t> const f(seed, 0.05, 50, 1500, csr_placement{memory_kind::device, memory_kind::managed_host},
                                memory_kind::managed_host, memory_kind::device);
  gnndirect::pipeline_timeline timeline;
  pipeline_options options = test_options(seed, 3, 2);
  options.gather_priority = priority;
  options.timeline = &timeline;
  auto const consumer = gnndirect::make_non_blocking_stream();
  auto pipeline = f.make_pipeline(options);
  // Before start(): nothing is recorded (the first epoch runs unrecorded).
  (void)checked_epoch(f, pipeline, options, 0, consumer.get());
  CHECK(timeline.spans().empty());
  timeline.name_stream(consumer.get(), "consumer");
  timeline.start(consumer.get());
  (void)checked_epoch(f, pipeline, options, 1, consumer.get());
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));
  auto const spans = timeline.spans();
  std::int64_t const batches = pipeline.num_batches();
  char const* const gpu_stages[] = {"seeds", "sample", "counts", "features", "labels", "held"};
  char const* const host_stages[] = {"enqueue", "wait"};
  auto find = [&](std::int64_t b, const std::string& stage) {
    std::vector<gnndirect::timeline_span> found;
    for (auto const& s : spans) {
      if (s.batch == b && s.stage == stage) { found.push_back(s); }
    }
    return found;
  };
  CHECK(spans.size() == static_cast<std::size_t>(batches) * (std::size(gpu_stages) + std::size(host_stages)));
  for (std::int64_t b = 0; b < batches; ++b) {
    CAPTURE(b);
    std::vector<gnndirect::timeline_span> one;
    for (const char* stage : gpu_stages) {
      CAPTURE(stage);
      auto const found = find(b, stage);
      REQUIRE(found.size() == 1);
      CHECK(found[0].gpu);
      CHECK(found[0].start_ms >= 0);
      CHECK(found[0].end_ms >= found[0].start_ms);
      one.push_back(found[0]);
    }
    // Stream order: seeds, sample, counts, then the gathers (across the two streams with a
    // priority); the consumer holds the batch only after its gathers ended.
    CHECK(one[1].start_ms >= one[0].end_ms);
    CHECK(one[2].start_ms >= one[1].end_ms);
    CHECK(one[3].start_ms >= one[2].end_ms);
    CHECK(one[4].start_ms >= one[3].end_ms);
    CHECK(one[5].start_ms >= one[4].end_ms);
    CHECK(one[0].lane.rfind("slot ", 0) == 0);
    CHECK(one[1].lane == one[0].lane);
    CHECK(one[2].lane == one[0].lane);
    CHECK(one[4].lane == one[3].lane);
    std::string const slot = one[0].lane.substr(0, one[0].lane.find(' ', 5));  // "slot S"
    CHECK(one[0].lane == (priority < 0 ? slot + " priority" : slot));
    CHECK(one[3].lane == (priority > 0 ? slot + " priority" : slot));
    CHECK(one[5].lane == "consumer");
    for (const char* stage : host_stages) {
      CAPTURE(stage);
      auto const found = find(b, stage);
      REQUIRE(found.size() == 1);
      CHECK(!found[0].gpu);
      CHECK(found[0].lane.rfind("worker ", 0) == 0);
      CHECK(found[0].end_ms >= found[0].start_ms);
    }
  }
  std::string const json = timeline.to_json("\"path\": \"test\"");
  std::size_t entries = 0;
  for (std::size_t at = json.find("\"stage\""); at != std::string::npos; at = json.find("\"stage\"", at + 1)) { ++entries; }
  CHECK(entries == spans.size());
  CHECK(json.find("\"path\": \"test\"") != std::string::npos);
}

}  // namespace

TEST_CASE("pipeline with a gather priority and a timeline: batches equal the reference, every stage recorded in order")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  SUBCASE("gathers on the high-priority stream") { check_priority_timeline(seed, 1); }
  SUBCASE("sampling on the high-priority stream") { check_priority_timeline(seed, -1); }
  SUBCASE("no priority: one stream per slot") { check_priority_timeline(seed, 0); }
  SUBCASE("a priority outside -1..1 is refused")
  {
    fixture<std::int32_t> const f(seed, 0.05, 20, 300, csr_placement::all(memory_kind::device), memory_kind::device,
                                  memory_kind::device);
    pipeline_options options = test_options(seed, 2, 1);
    options.gather_priority = 2;
    CHECK_THROWS_AS((void)f.make_pipeline(options), gnndirect::invalid_argument);
  }
}

TEST_CASE("pipeline calibrate_gather: the measured ceilings size the feature gathers, batches unchanged, an explicit cap wins")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  fixture<std::int32_t> const f(seed, 0.05, 50, 1500, csr_placement{memory_kind::device, memory_kind::managed_host},
                                memory_kind::managed_host, memory_kind::device);
  pipeline_options options = test_options(seed, 3, 2);
  auto const consumer = gnndirect::make_non_blocking_stream();
  auto plain = f.make_pipeline(options);
  options.calibrate_gather = true;
  auto pipeline = f.make_pipeline(options);
  auto const tuned = pipeline.feature_gather_policy();
  CAPTURE(tuned);
  // The ceilings are measured once per device and process: what the pipeline was given.
  gnndirect::machine_ceilings const ceilings = gnndirect::measured_machine_ceilings(consumer.get());
  CAPTURE(ceilings);
  CHECK(ceilings.zero_copy_read_gbps > 0);
  CHECK(ceilings.copy_engine_gbps > 0);
  CHECK(ceilings.saturating_loads_in_flight >= 16 * 256);
  gnndirect::gather_device const device = gnndirect::query_gather_device(ceilings);
  CAPTURE(device);
  CHECK(device.sm_count == gnndirect::device_attribute(cudaDevAttrMultiProcessorCount, gnndirect::require_device()));
  // An independent expectation: the uncalibrated policy, with the cap that keeps the measured loads
  // in flight when the historical 8192 threads do not, up to the SMs' resident blocks.
  auto const base = plain.feature_gather_policy();
  CAPTURE(base);
  CHECK(base.max_blocks == 32);
  std::int64_t const per_block = std::int64_t{base.block_threads} * base.rows_in_flight;
  std::int64_t want = base.max_blocks;
  if (ceilings.saturating_loads_in_flight > std::int64_t{8192} * base.rows_in_flight) {
    std::int64_t const needed = (ceilings.saturating_loads_in_flight + per_block - 1) / per_block;
    std::int64_t const resident =
      std::int64_t{device.sm_count} * (gnndirect::resident_threads_per_sm(device.cc_major, device.cc_minor) / 256);
    want = std::max<std::int64_t>(want, std::min(needed, resident));
  }
  CHECK(tuned.max_blocks == want);
  gnndirect::gather_policy rest = tuned;
  rest.max_blocks = base.max_blocks;
  CHECK(rest == base);  // only the cap moves
  (void)checked_epoch(f, pipeline, options, 0, consumer.get());  // every batch against the host reference
  // An explicit cap is the caller's.
  options.gather.max_blocks = 8;
  auto explicit_cap = f.make_pipeline(options);
  CHECK(explicit_cap.feature_gather_policy().max_blocks == 8);
  // Device-resident features keep a full grid.
  fixture<std::int32_t> const hbm(seed, 0.05, 50, 600, csr_placement::all(memory_kind::device), memory_kind::device,
                                  memory_kind::device);
  options.gather.max_blocks = 0;
  auto device_features = hbm.make_pipeline(options);
  CHECK(device_features.feature_gather_policy().max_blocks == 0);
}

TEST_CASE("measure_machine_ceilings: positive rates, saturation within the resident threads, a too small probe refused")
{
  if (gnndirect::device_count() == 0) { return; }
  auto const stream = gnndirect::make_non_blocking_stream();
  gnndirect::test::counting_resource counted;
  gnndirect::test::counting_host_resource host_counted;
  auto const c = gnndirect::measure_machine_ceilings(stream.get(), std::size_t{64} << 20, counted, host_counted);
  CAPTURE(c);
  CHECK(c.copy_engine_gbps > 0);
  CHECK(c.zero_copy_read_gbps > 0);
  int const device = gnndirect::require_device();
  std::int64_t const resident =
    std::int64_t{gnndirect::device_attribute(cudaDevAttrMultiProcessorCount, device)} *
    (gnndirect::device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor, device) / 256) * 256;
  CHECK(c.saturating_loads_in_flight >= std::min<std::int64_t>(16 * 256, resident));
  CHECK(c.saturating_loads_in_flight <= resident);
  CHECK(counted.allocations > 0);  // the copies' destination came from the caller's resources
  CHECK(counted.live_bytes == 0);
  CHECK(host_counted.allocations > 0);
  CHECK(host_counted.live_bytes == 0);
  auto const device_info = gnndirect::query_gather_device(c);
  CHECK(device_info.ceilings == c);
  CHECK(device_info.cc_major >= 7);
  CHECK_THROWS_WITH_AS(gnndirect::measure_machine_ceilings(stream.get(), 1000),
                       doctest::Contains("bytes must be >= 1 MiB"), gnndirect::invalid_argument);
}

/// A user's gather selector: host-memory gathers on 96 blocks, 1 row in flight, unsorted.
struct test_wide_selector {
  gnndirect::gather_policy operator()(gnndirect::gather_policy p, const gnndirect::gather_device& d,
                                      const gnndirect::gather_source& s) const
  {
    if (gnndirect::is_host_resident(s.kind)) {
      if (p.max_blocks == 0) { p.max_blocks = 96; }
      if (p.rows_in_flight == 0) { p.rows_in_flight = 1; }
      if (p.order == gnndirect::locality_order::automatic) { p.order = gnndirect::locality_order::none; }
    }
    return gnndirect::default_gather_selector{}(p, d, s);
  }
};

TEST_CASE("pipeline with a user's gather selector: its policy is the feature gathers', batches unchanged")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  fixture<std::int32_t> const f(seed, 0.05, 50, 1500, csr_placement{memory_kind::device, memory_kind::pinned},
                                memory_kind::pinned, memory_kind::device);
  pipeline_options const options = test_options(seed, 3, 2);
  gnndirect::minibatch_pipeline<std::int64_t, std::int32_t, float, label_type, gnndirect::uniform_sampler, void,
                                test_wide_selector>
    pipeline(f.graph.view(), f.features.view(), f.labels.data(), f.training_ids, options);
  auto const policy = pipeline.feature_gather_policy();
  CAPTURE(policy);
  CHECK(policy.max_blocks == 96);
  CHECK(policy.rows_in_flight == 1);
  CHECK(policy.order == gnndirect::locality_order::none);
  CHECK(policy.tile_size == f.make_pipeline(options).feature_gather_policy().tile_size);
  auto const consumer = gnndirect::make_non_blocking_stream();
  (void)checked_epoch(f, pipeline, options, 0, consumer.get());
}

TEST_CASE("pipeline prepares batch i+1 while batch i is held, and at most depth batches")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  fixture<std::int32_t> const f(seed, 0.05, 64, 2000,
                                csr_placement{memory_kind::device, memory_kind::managed_host},
                                memory_kind::managed_host, memory_kind::device);
  pipeline_options const options = test_options(seed, 2);
  auto const consumer = gnndirect::make_non_blocking_stream();
  auto pipeline = f.make_pipeline(options);
  REQUIRE(pipeline.num_batches() >= 4);
  CHECK_THROWS_AS((void)pipeline.next(consumer.get()), gnndirect::invalid_argument);  // no epoch

  pipeline.start_epoch(0);
  auto* first = pipeline.next(consumer.get());
  REQUIRE(first != nullptr);
  // Batch 1 becomes ready while batch 0 is held (not released).
  bool const overlapped = wait_until_ready(pipeline, 1);
  auto const released_at = std::chrono::steady_clock::now();
  CHECK(overlapped);
  auto stats = pipeline.stats();
  REQUIRE(stats.batches.size() >= 2);
  CHECK(stats.batches[1].is_ready);
  CHECK(stats.batches[1].ready < released_at);
  // Depth 2: batch 0 held + batch 1 ready fill both slots; batch 2 must not start.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK(pipeline.stats().batches_prepared == 2);
  CHECK(pipeline.stats().batches.size() == 2);
  auto* second = pipeline.next(consumer.get());
  REQUIRE(second != nullptr);
  CHECK(second->index == 1);
  CHECK_THROWS_AS((void)pipeline.next(consumer.get()), gnndirect::invalid_argument);  // all held
  pipeline.release(first, consumer.get());
  CHECK_THROWS_AS(pipeline.release(first, consumer.get()), gnndirect::invalid_argument);  // twice
  // The rest of the epoch: each held batch sees the next one become ready.
  auto* held = second;
  while (held != nullptr) {
    check_batch(f, *held, options, consumer.get());
    if (held->index + 1 < pipeline.num_batches()) {
      CAPTURE(held->index);
      CHECK(wait_until_ready(pipeline, held->index + 1));
    }
    pipeline.release(held, consumer.get());
    held = pipeline.next(consumer.get());
  }
  stats = pipeline.stats();
  CHECK(stats.batches_prepared == pipeline.num_batches());
  for (auto const& timing : stats.batches) {
    CHECK(timing.is_ready);
    CHECK(timing.started <= timing.ready);
  }

}

TEST_CASE("pipeline workers prepare batches concurrently and hand them out in order")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  fixture<std::int32_t> const f(seed, 0.05, 64, 4000,
                                csr_placement{memory_kind::device, memory_kind::managed_host},
                                memory_kind::managed_host, memory_kind::device);
  pipeline_options const options = test_options(seed, 3, 2);
  auto const consumer = gnndirect::make_non_blocking_stream();
  auto pipeline = f.make_pipeline(options);
  pipeline.start_epoch(0);
  std::int64_t expected = 0;
  while (auto* batch = pipeline.next(consumer.get())) {
    CHECK(batch->index == expected++);
    pipeline.release(batch, consumer.get());
  }
  CHECK(expected == pipeline.num_batches());
  auto const stats = pipeline.stats();
  REQUIRE(static_cast<std::int64_t>(stats.batches.size()) == pipeline.num_batches());
  // Two workers and three slots: some batch starts before its predecessor is ready.
  std::int64_t overlapping = 0;
  for (std::size_t b = 1; b < stats.batches.size(); ++b) {
    CHECK(stats.batches[b].index == static_cast<std::int64_t>(b));
    overlapping += stats.batches[b].started < stats.batches[b - 1].ready;
  }
  CAPTURE(overlapping);
  CHECK(overlapping > 0);
}

TEST_CASE("pipeline workers: a corrupt neighbour list fails its batch after the earlier ones")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  fixture<std::int32_t> const f(seed, 0.05, 16, 2000, csr_placement::all(memory_kind::device),
                                memory_kind::device, memory_kind::device);
  pipeline_options const options = test_options(seed, 4, 3);
  auto corrupt = f.host_graph;
  std::int64_t const n = corrupt.num_nodes;
  // A training node that no neighbour list names enters a batch only as a seed: its batch is the
  // first to meet the corrupt ids.
  std::vector<char> named(static_cast<std::size_t>(n), 0);
  for (auto v : corrupt.indices) { named[static_cast<std::size_t>(v)] = 1; }
  std::vector<std::int32_t> order = f.training_ids;
  gnndirect::shuffle_epoch(order, options.seed, 0);
  std::int64_t position = -1;
  for (std::size_t p = 2 * static_cast<std::size_t>(options.batch_size); p < order.size(); ++p) {
    auto const x = static_cast<std::size_t>(order[p]);
    if (!named[x] && corrupt.indptr[x + 1] > corrupt.indptr[x]) {
      position = static_cast<std::int64_t>(p);
      break;
    }
  }
  REQUIRE(position >= 0);
  auto const x = static_cast<std::size_t>(order[static_cast<std::size_t>(position)]);
  for (auto e = corrupt.indptr[x]; e < corrupt.indptr[x + 1]; ++e) {
    corrupt.indices[static_cast<std::size_t>(e)] = static_cast<std::int32_t>(n);  // out of range
  }
  auto const bad_graph = gnndirect::csr_graph<std::int64_t, std::int32_t>::adopt(
    corrupt.view(), csr_placement::all(memory_kind::device));
  auto const consumer = gnndirect::make_non_blocking_stream();
  {
    pipeline_of<std::int32_t> pipeline(bad_graph.view(), f.features.view(), f.labels.data(),
                                       f.training_ids, options);
    pipeline.start_epoch(0);
    std::int64_t const bad_batch = position / options.batch_size;
    CAPTURE(bad_batch);
    for (std::int64_t b = 0; b < bad_batch; ++b) {
      auto* batch = pipeline.next(consumer.get());
      REQUIRE(batch != nullptr);
      CHECK(batch->index == b);
      pipeline.release(batch, consumer.get());
    }
    CHECK_THROWS_AS((void)pipeline.next(consumer.get()), gnndirect::index_out_of_range);
    CHECK_THROWS_AS((void)pipeline.next(consumer.get()), gnndirect::index_out_of_range);  // stays
  }
  GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("pipeline destroyed mid-epoch with a batch held and the worker busy")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  fixture<std::int32_t> const f(seed, 0.05, 64, 2000,
                                csr_placement{memory_kind::device, memory_kind::managed_host},
                                memory_kind::managed_host, memory_kind::device);
  auto const consumer = gnndirect::make_non_blocking_stream();  // outlives the pipeline
  {
    auto pipeline = f.make_pipeline(test_options(seed, 3));
    pipeline.start_epoch(1);
    auto* kept = pipeline.next(consumer.get());
    REQUIRE(kept != nullptr);
  }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));
  CHECK(cudaGetLastError() == cudaSuccess);
}

namespace {

std::uint64_t reserved_bytes(cudaMemPool_t pool)
{
  std::uint64_t value = 0;
  GNNDIRECT_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &value));
  return value;
}

/// Consumes one epoch (release right after next); returns the number of batches.
template <class Index>
std::int64_t drain_epoch(pipeline_of<Index>& pipeline, std::int64_t epoch, cudaStream_t consumer)
{
  pipeline.start_epoch(epoch);
  std::int64_t count = 0;
  while (auto* batch = pipeline.next(consumer)) {
    pipeline.release(batch, consumer);
    ++count;
  }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer));
  return count;
}

}  // namespace

TEST_CASE("pipeline allocates no device memory per batch after the first epoch")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  fixture<std::int32_t> const f(seed, 0.1, 128, 4000,
                                csr_placement{memory_kind::device, memory_kind::managed_host},
                                memory_kind::managed_host, memory_kind::device);
  pipeline_options options = test_options(seed, 2);
  options.batch_size = 512;
  options.fanouts = {10, 10};
  options.drop_last = true;
  // Batch sizes vary: reserve well above two batches' footprint (a few MB here), so that a
  // later epoch's largest batch cannot be what grows the pool.
  options.reserve_bytes = std::size_t{256} << 20;
  int device = 0;
  GNNDIRECT_CUDA_TRY(cudaGetDevice(&device));
  cudaMemPool_t default_pool{};
  GNNDIRECT_CUDA_TRY(cudaDeviceGetDefaultMemPool(&default_pool, device));
  auto const consumer = gnndirect::make_non_blocking_stream();
  auto pipeline = f.make_pipeline(options);
  CHECK(reserved_bytes(pipeline.memory_pool()) >= options.reserve_bytes);

  CHECK(drain_epoch(pipeline, 0, consumer.get()) == 4000 / 512);  // drop_last
  std::uint64_t const pool_after_first = reserved_bytes(pipeline.memory_pool());
  std::uint64_t const default_after_first = reserved_bytes(default_pool);
  std::size_t const free_after_first = gnndirect::device_memory().free_bytes;
  CAPTURE(pool_after_first);
  CAPTURE(default_after_first);
  CAPTURE(free_after_first);
  for (std::int64_t epoch : {1, 2}) {
    CAPTURE(epoch);
    CHECK(drain_epoch(pipeline, epoch, consumer.get()) == 4000 / 512);
    CHECK(reserved_bytes(pipeline.memory_pool()) <= pool_after_first);
    CHECK(reserved_bytes(default_pool) <= default_after_first);  // nothing bypasses the pool
    std::size_t const free_now = gnndirect::device_memory().free_bytes;
    CAPTURE(free_now);
    GNNDIRECT_CHECK_FREE_MEMORY(free_now + (std::size_t{4} << 20), free_after_first);  // flat within 4 MiB
  }
}

TEST_CASE("pipeline errors: bad training id raises from next(), context stays usable")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  fixture<std::int32_t> const f(seed, 0.05, 16, 1000, csr_placement::all(memory_kind::device),
                                memory_kind::device, memory_kind::device);
  pipeline_options const options = test_options(seed, 2);
  auto const consumer = gnndirect::make_non_blocking_stream();
  auto const num_nodes = f.host_graph.num_nodes;
  for (std::int32_t bad : {static_cast<std::int32_t>(num_nodes), std::int32_t{-1}}) {
    CAPTURE(bad);
    std::vector<std::int32_t> ids = f.training_ids;
    ids[37] = bad;
    {
      auto pipeline = f.make_pipeline(options, ids);
      pipeline.start_epoch(0);
      try {
        (void)pipeline.next(consumer.get());
        FAIL("next() did not throw");
      } catch (const gnndirect::index_out_of_range& e) {
        CHECK(e.position() == 37);
        CHECK(e.value() == bad);
      }
      CHECK_THROWS_AS((void)pipeline.next(consumer.get()), gnndirect::index_out_of_range);
    }
    GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
    CHECK(cudaGetLastError() == cudaSuccess);
  }
  // The context is usable: a new pipeline delivers correct batches.
  auto pipeline = f.make_pipeline(options);
  pipeline.start_epoch(3);
  auto* batch = pipeline.next(consumer.get());
  REQUIRE(batch != nullptr);
  check_batch(f, *batch, options, consumer.get());
  pipeline.release(batch, consumer.get());

  // Bad arguments fail at construction, before any work.
  std::vector<label_type> pageable(static_cast<std::size_t>(num_nodes));
  CHECK_THROWS_AS(pipeline_of<std::int32_t>(f.graph.view(), f.features.view(), pageable.data(),
                                            f.training_ids, options),
                  gnndirect::invalid_argument);
  pipeline_options no_fanouts = options;
  no_fanouts.fanouts.clear();
  CHECK_THROWS_AS((void)f.make_pipeline(no_fanouts), gnndirect::invalid_argument);
  pipeline_options zero_batch = options;
  zero_batch.batch_size = 0;
  CHECK_THROWS_AS((void)f.make_pipeline(zero_batch), gnndirect::invalid_argument);
}

namespace {

/// Resident set size of this process in bytes (VmRSS), 0 when unreadable.
std::uint64_t resident_bytes()
{
  return gnndirect::detail::parse_meminfo_bytes(gnndirect::detail::read_small_file("/proc/self/status"), "VmRSS");
}

std::int64_t soak_epochs()
{
  if (char const* text = std::getenv("GNNDIRECT_SOAK_EPOCHS")) { return std::max(2LL, std::atoll(text)); }
  return std::getenv("GNNDIRECT_TEST_QUICK") != nullptr ? 2 : 10;
}

}  // namespace

TEST_CASE("soak: many epochs, every batch spot-checked, every 16th in full, memory flat")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  // The products preset at full size (2.45M nodes, 62M edges); under GNNDIRECT_TEST_QUICK (the
  // sanitizer runs) the small one (100K nodes, 2M edges). GNNDIRECT_SOAK_EPOCHS sets the length.
  bool const quick = std::getenv("GNNDIRECT_TEST_QUICK") != nullptr;
  fixture<std::int32_t> const f(seed, 1.0, 32, 20000, csr_placement{memory_kind::device, memory_kind::managed_host},
                                memory_kind::managed_host, memory_kind::device,
                                quick ? gnndirect::graph_preset::small : gnndirect::graph_preset::products);
  pipeline_options options = test_options(seed, 3, 2);
  options.fanouts = {15, 10, 5};
  // About depth x the largest batch (products: ~100 MB with temporaries), so the pool's high-water
  // mark is reached in the first epoch.
  options.reserve_bytes = (quick ? std::size_t{256} : std::size_t{1024}) << 20;
  auto const consumer = gnndirect::make_non_blocking_stream();
  auto pipeline = f.make_pipeline(options);
  std::mt19937_64 rng(seed);
  std::size_t device_free_after_first = 0;
  std::uint64_t pool_after_first = 0;
  std::uint64_t rss_after_first = 0;
  std::int64_t batches = 0, spot_mismatches = 0;
  for (std::int64_t epoch = 0; epoch < soak_epochs(); ++epoch) {
    CAPTURE(epoch);
    pipeline.start_epoch(epoch);
    while (auto* batch = pipeline.next(consumer.get())) {
      if (batches % 16 == 0) {
        check_batch(f, *batch, options, consumer.get());
      } else {  // spot check: 16 random feature rows and every label
        auto const inputs = to_host(consumer.get(), batch->blocks.input_nodes().data(), batch->num_input_nodes);
        auto const got = to_host(consumer.get(), batch->features.data, batch->num_input_nodes * f.dim);
        for (int k = 0; k < 16 && batch->num_input_nodes > 0; ++k) {
          auto const r = static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(batch->num_input_nodes));
          auto const* want = f.host_features.data() + static_cast<std::size_t>(inputs[r]) * f.dim;
          spot_mismatches += !std::equal(want, want + f.dim, got.begin() + static_cast<std::ptrdiff_t>(r * f.dim));
        }
        auto const labels = to_host(consumer.get(), batch->labels, batch->num_seeds);
        for (std::int64_t s = 0; s < batch->num_seeds; ++s) {
          spot_mismatches += labels[static_cast<std::size_t>(s)] !=
                             f.host_labels[static_cast<std::size_t>(batch->host_seeds[s])];
        }
      }
      pipeline.release(batch, consumer.get());
      ++batches;
    }
    GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));
    if (epoch == 0) {
      device_free_after_first = gnndirect::device_memory().free_bytes;
      pool_after_first = reserved_bytes(pipeline.memory_pool());
      rss_after_first = resident_bytes();
    } else {
      // The pool may still reach a new high-water mark (a larger batch than any before, bounded by
      // depth batches); nothing else may grow.
      std::uint64_t const pool_growth = reserved_bytes(pipeline.memory_pool()) - pool_after_first;
      CAPTURE(pool_growth);
      CHECK(pool_growth <= (std::uint64_t{64} << 20));
      GNNDIRECT_CHECK_FREE_MEMORY(gnndirect::device_memory().free_bytes + pool_growth + (std::size_t{4} << 20),
                                  device_free_after_first);
      CHECK(resident_bytes() <= rss_after_first + (std::uint64_t{64} << 20));
    }
  }
  MESSAGE("soak: " << soak_epochs() << " epochs, " << batches << " batches on " << f.host_graph.num_nodes
                   << " nodes / " << f.host_graph.num_edges() << " edges");
  CHECK(batches == soak_epochs() * pipeline.num_batches());
  CHECK(spot_mismatches == 0);
}

// The scheduler with a second preparer, link prediction: the library's link_preparer
// (pipeline/link_preparer.cuh), tested in test_link_pipeline.cu.

TEST_CASE("minibatch_pipeline on a caller's memory resource")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  fixture<std::int64_t> const f(seed, 0.05, 20, 900, csr_placement::all(memory_kind::device),
                                memory_kind::device, memory_kind::device);
  pipeline_options const options = test_options(seed, 2, 1);
  counting_resource mr;
  auto const consumer = gnndirect::make_non_blocking_stream();
  {
    pipeline_of<std::int64_t> pipeline(f.graph.view(), f.features.view(), f.labels.data(), f.training_ids,
                                       options, gnndirect::uniform_sampler{}, mr);
    std::int64_t const after_setup = mr.allocations;
    CHECK(after_setup > 0);
    pipeline.start_epoch(3);
    std::int64_t count = 0;
    while (auto* batch = pipeline.next(consumer.get())) {
      check_batch(f, *batch, options, consumer.get());
      pipeline.release(batch, consumer.get());
      ++count;
    }
    CHECK(count == pipeline.num_batches());
    CHECK(reserved_bytes(pipeline.memory_pool()) == 0);  // nothing came from the pipeline's pool
  }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));
}

TEST_CASE("minibatch_pipeline with a user-written temporal sampler: every batch bit-checked on the host")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  fixture<std::int32_t> const f(seed, 0.05, 12, 700, csr_placement{memory_kind::device, memory_kind::pinned},
                                memory_kind::pinned, memory_kind::device);
  std::int64_t const n = f.host_graph.num_nodes;
  std::vector<std::int64_t> edge_time(static_cast<std::size_t>(f.host_graph.num_edges()));
  std::vector<std::int64_t> query_time(static_cast<std::size_t>(n));
  for (auto& t : edge_time) { t = static_cast<std::int64_t>(rng() % 500); }
  for (auto& t : query_time) { t = static_cast<std::int64_t>(rng() % 550); }
  gnndirect::buffer<std::int64_t> const d_edge_time = gnndirect::test::to_buffer(edge_time);
  gnndirect::buffer<std::int64_t> const d_query_time = gnndirect::test::to_buffer(query_time);
  gnndirect::test::recent_before_sampler const sampler{d_edge_time.data(), d_query_time.data()};
  pipeline_options options = test_options(seed, 3);
  options.fanouts = {6, 4, 3};
  options.batch_size = 128;
  auto const consumer = gnndirect::make_non_blocking_stream();
  {
    gnndirect::minibatch_pipeline<std::int64_t, std::int32_t, float, label_type,
                                  gnndirect::test::recent_before_sampler>
      pipeline(f.graph.view(), f.features.view(), f.labels.data(), f.training_ids, options, sampler);
    for (std::int64_t epoch = 0; epoch < 2; ++epoch) {
      pipeline.start_epoch(epoch);
      std::int64_t count = 0;
      while (auto* batch = pipeline.next(consumer.get())) {
        CAPTURE(epoch);
        CAPTURE(batch->index);
        auto const expected = gnndirect::test::temporal_blocks_on_host(
          f.host_graph.view(), edge_time, query_time, batch->host_seeds, batch->num_seeds, options.fanouts);
        REQUIRE(batch->blocks.layers.size() == expected.layers.size());
        for (std::size_t l = 0; l < expected.layers.size(); ++l) {
          CAPTURE(l);
          auto const& a = batch->blocks.layers[l];
          auto const& e = expected.layers[l];
          REQUIRE(to_host(consumer.get(), a.dst_nodes.data(), a.num_dst()) == e.dst_nodes);
          REQUIRE(to_host(consumer.get(), a.src_nodes.data(), a.num_src()) == e.src_nodes);
          REQUIRE(to_host(consumer.get(), a.offsets.data(), a.num_dst() + 1) == e.offsets);
          REQUIRE(to_host(consumer.get(), a.indices.data(), a.num_edges()) == e.indices);
          REQUIRE(to_host(consumer.get(), a.edge_ids.data(), a.num_edges()) == e.edge_ids);
        }
        auto const& inputs = expected.input_nodes();
        REQUIRE(batch->num_input_nodes == static_cast<std::int64_t>(inputs.size()));
        std::vector<float> const got = to_host(consumer.get(), batch->features.data,
                                               batch->num_input_nodes * f.dim);
        for (std::size_t i = 0; i < inputs.size(); ++i) {
          auto const row = static_cast<std::size_t>(inputs[i]) * static_cast<std::size_t>(f.dim);
          REQUIRE(std::equal(got.begin() + static_cast<std::ptrdiff_t>(i * static_cast<std::size_t>(f.dim)),
                             got.begin() + static_cast<std::ptrdiff_t>((i + 1) * static_cast<std::size_t>(f.dim)),
                             f.host_features.begin() + static_cast<std::ptrdiff_t>(row)));
        }
        pipeline.release(batch, consumer.get());
        ++count;
      }
      CHECK(count == pipeline.num_batches());
    }
  }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));
}
