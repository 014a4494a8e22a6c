// GPU tests of the device-memory cache tier: tiered gathers equal the host reference for budgets
// 0, partial and full, with duplicates and both index types; hot-set selection equals a host
// computation; rebuilds replace the tier; bad ids leave an empty, usable tier.
#include <doctest/doctest.h>

#include <gnndirect/cache/hot_set.cuh>
#include <gnndirect/cache/tiered_table.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/reference/gather_reference.hpp>

#include "support/counting_resource.hpp"
#include "support/placed_table.hpp"
#include "support/random.hpp"
#include "support/transfer.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <numeric>
#include <random>
#include <vector>

using gnndirect::memory_kind;
using gnndirect::table_view;

namespace {

using gnndirect::test::to_buffer;
using gnndirect::test::to_host;

/// Gathers `indices` through the tier and compares every byte with the host reference.
template <class Index>
bool tiered_gather_matches(const gnndirect::tiered_view<float>& view, const std::vector<float>& host_rows,
                           const std::vector<Index>& indices)
{
  auto const count = static_cast<std::int64_t>(indices.size());
  std::int64_t const cols = view.host.cols;
  gnndirect::buffer<float> out(static_cast<std::size_t>(count * cols), memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemset(out.data(), 0xCD, out.bytes()));
  auto const device_indices = to_buffer(indices);
  gnndirect::gather(cudaStream_t{}, view, device_indices.data(), count,
                    table_view<float>(out.data(), count, cols, cols, memory_kind::device));
  std::vector<float> expected(static_cast<std::size_t>(count * cols));
  gnndirect::host::gather_reference(table_view<const float>(host_rows.data(), view.host.rows, cols, cols, memory_kind::pinned),
                                    indices.data(), count,
                                    table_view<float>(expected.data(), count, cols, cols, memory_kind::device));
  std::vector<float> const got = to_host(out.data(), out.size());
  return std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) == 0;
}

/// Spins until *release != 0 or about `max_ns` nanoseconds have passed (never hangs a test).
__global__ void hold_until_released(const volatile int* release, long long max_ns)
{
  long long const start = static_cast<long long>(clock64());
  long long const cycles = max_ns * 2;  // clock64 runs at ~1-2 GHz: an upper bound is enough
  while (*release == 0 && static_cast<long long>(clock64()) - start < cycles) {}
}

}  // namespace

TEST_CASE("tiered gather equals the host reference for budgets 0, partial and full")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (memory_kind kind : {memory_kind::managed_host, memory_kind::pinned}) {
    CAPTURE(gnndirect::to_string(kind));
    std::int64_t const rows = 20011, cols = 100;  // 400-byte rows
    gnndirect::test::placed_table<float> table(kind, rows, cols);
    std::vector<unsigned char> const bytes = gnndirect::test::random_bytes(rng, table.owner.bytes());
    table.fill(bytes.data());
    std::vector<float> host_rows(static_cast<std::size_t>(rows * cols));
    std::memcpy(host_rows.data(), bytes.data(), bytes.size());
    std::size_t const row_bytes = cols * sizeof(float);
    for (double fraction : {0.0, 0.3, 1.0}) {
      CAPTURE(fraction);
      gnndirect::tiered_table<float> tier(table.view(), static_cast<std::size_t>(fraction * rows) * row_bytes);
      std::vector<std::int64_t> hot(static_cast<std::size_t>(rows));
      std::iota(hot.begin(), hot.end(), 0);
      std::shuffle(hot.begin(), hot.end(), rng);
      auto const device_hot = to_buffer(hot);
      tier.rebuild(cudaStream_t{}, device_hot.data(), rows);
      CHECK(tier.cached_rows() == tier.capacity());
      CHECK(tier.capacity() == static_cast<std::int64_t>(fraction * rows));
      // Duplicates are likely with 3x as many draws as rows.
      CHECK(tiered_gather_matches(tier.view(), host_rows, gnndirect::test::random_indices<std::int32_t>(rng, 3 * rows, rows)));
      CHECK(tiered_gather_matches(tier.view(), host_rows, gnndirect::test::random_indices<std::int64_t>(rng, 777, rows)));
      // Rebuild with another hot set, smaller than the capacity.
      std::shuffle(hot.begin(), hot.end(), rng);
      auto const other = to_buffer(hot);
      tier.rebuild(cudaStream_t{}, other.data(), rows / 10);
      CHECK(tier.cached_rows() == std::min<std::int64_t>(rows / 10, tier.capacity()));
      CHECK(tiered_gather_matches(tier.view(), host_rows, gnndirect::test::random_indices<std::int64_t>(rng, 50000, rows)));
    }
  }
}

TEST_CASE("tiered gather checks indices and a bad hot id leaves an empty tier")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  std::int64_t const rows = 1000, cols = 16;
  gnndirect::test::placed_table<float> table(memory_kind::managed_host, rows, cols);
  std::vector<unsigned char> const bytes = gnndirect::test::random_bytes(rng, table.owner.bytes());
  table.fill(bytes.data());
  gnndirect::tiered_table<float> tier(table.view(), 500 * cols * sizeof(float));
  std::vector<std::int64_t> hot{1, 2, 3, rows + 5, 7};
  auto const device_hot = to_buffer(hot);
  CHECK_THROWS_AS(tier.rebuild(cudaStream_t{}, device_hot.data(), 5), gnndirect::index_out_of_range);
  CHECK(tier.cached_rows() == 0);
  std::vector<std::int32_t> indices{5, -1, 7};
  auto const device_indices = to_buffer(indices);
  gnndirect::buffer<float> out(3 * cols, memory_kind::device);
  try {
    gnndirect::gather(cudaStream_t{}, tier.view(), device_indices.data(), 3,
                      table_view<float>(out.data(), 3, cols, cols, memory_kind::device));
    FAIL("expected index_out_of_range");
  } catch (const gnndirect::index_out_of_range& e) {
    CHECK(e.position() == 1);
    CHECK(e.value() == -1);
  }
  std::vector<float> host_rows(static_cast<std::size_t>(rows * cols));
  std::memcpy(host_rows.data(), bytes.data(), bytes.size());
  CHECK(tiered_gather_matches(tier.view(), host_rows, std::vector<std::int32_t>{0, 999, 5}));
}

TEST_CASE("a tier over a device-resident table is refused with invalid_argument, before allocating")
{
  // Issue #31 item 5: documented to throw and did not (it built a tier copying HBM to HBM).
  std::int64_t const rows = 1000, cols = 16;
  gnndirect::test::placed_table<float> table(memory_kind::device, rows, cols);
  gnndirect::test::counting_resource memory;
  cudaStream_t stream;
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (std::size_t budget : {std::size_t{0}, std::size_t{500 * cols * sizeof(float)}}) {
    CAPTURE(budget);
    try {
      gnndirect::tiered_table<float> const tier(table.view(), budget, memory);
      FAIL("a device-resident source was accepted");
    } catch (const gnndirect::invalid_argument& e) {
      CAPTURE(e.what());
      CHECK(std::string(e.what()).find("device-resident") != std::string::npos);
    }
    CHECK_THROWS_AS(gnndirect::tiered_table<float>(table.view(), budget, stream, memory), gnndirect::invalid_argument);
  }
  CHECK(memory.allocations == 0);
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
}

TEST_CASE("hot rows by degree, by access count, and by count then degree equal a host top-k")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  std::int64_t const nodes = 5000;
  std::vector<std::int64_t> indptr(nodes + 1, 0);
  for (std::int64_t v = 0; v < nodes; ++v) { indptr[v + 1] = indptr[v] + static_cast<std::int64_t>(rng() % 40); }
  std::vector<std::int32_t> indices(static_cast<std::size_t>(indptr.back()), 0);
  auto const d_indptr = to_buffer(indptr);
  auto const d_indices = to_buffer(indices);
  gnndirect::csr_view<std::int64_t, std::int32_t> csr;
  csr.indptr = d_indptr.data();
  csr.indices = d_indices.data();
  csr.num_nodes = nodes;
  csr.num_edges = indptr.back();
  auto host_top = [](const auto& keys, std::int64_t k) {  // keys: a vector of 32- or 64-bit keys
    std::vector<std::int64_t> ids(keys.size());
    std::iota(ids.begin(), ids.end(), 0);
    std::stable_sort(ids.begin(), ids.end(), [&](std::int64_t a, std::int64_t b) { return keys[a] > keys[b]; });
    ids.resize(static_cast<std::size_t>(k));
    return ids;
  };
  std::vector<std::uint32_t> degrees(nodes);
  for (std::int64_t v = 0; v < nodes; ++v) { degrees[v] = static_cast<std::uint32_t>(indptr[v + 1] - indptr[v]); }
  auto const by_degree = gnndirect::hot_rows_by_degree(cudaStream_t{}, csr, 321);
  CHECK(to_host(by_degree.data(), by_degree.size()) == host_top(degrees, 321));

  auto const accesses = gnndirect::test::random_indices<std::int32_t>(rng, 100000, nodes);
  auto const d_accesses = to_buffer(accesses);
  gnndirect::buffer<std::uint32_t> counts(nodes, memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemset(counts.data(), 0, counts.bytes()));
  gnndirect::count_accesses_async(cudaStream_t{}, d_accesses.data(), 100000, nodes, counts.data());
  std::vector<std::uint32_t> host_counts(nodes, 0);
  for (auto id : accesses) { ++host_counts[id]; }
  CHECK(to_host(counts.data(), nodes) == host_counts);
  auto const by_count = gnndirect::hot_rows_by_count(cudaStream_t{}, counts.data(), nodes, 1000);
  CHECK(to_host(by_count.data(), by_count.size()) == host_top(host_counts, 1000));
  CHECK(gnndirect::hot_rows_by_count(cudaStream_t{}, counts.data(), nodes, nodes + 10).size() == static_cast<std::size_t>(nodes));

  // With the graph: count first, degree breaks ties. Few accesses leave most counts at zero, so
  // most of the top 3000 is ranked by degree alone.
  auto const sparse = gnndirect::test::random_indices<std::int32_t>(rng, 800, nodes);
  auto const d_sparse = to_buffer(sparse);
  GNNDIRECT_CUDA_TRY(cudaMemset(counts.data(), 0, counts.bytes()));
  gnndirect::count_accesses_async(cudaStream_t{}, d_sparse.data(), 800, nodes, counts.data());
  std::vector<std::uint64_t> count_then_degree(nodes, 0);
  for (auto id : sparse) { count_then_degree[id] += std::uint64_t{1} << 32; }
  for (std::int64_t v = 0; v < nodes; ++v) { count_then_degree[v] += degrees[v]; }
  auto const by_count_degree = gnndirect::hot_rows_by_count(cudaStream_t{}, counts.data(), csr, 3000);
  CHECK(to_host(by_count_degree.data(), by_count_degree.size()) == host_top(count_then_degree, 3000));
  CHECK(gnndirect::hot_rows_by_count(cudaStream_t{}, counts.data(), csr, 0).size() == 0);
}

#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/pipeline/minibatch_pipeline.cuh>

TEST_CASE("the pipeline with a feature cache (a flag) yields the same batches as without")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  auto options = gnndirect::preset_options(gnndirect::graph_preset::small, 0.05, seed);
  auto const host_graph = gnndirect::host::generate_csr<std::int64_t, std::int32_t>(options);
  auto const graph = gnndirect::csr_graph<std::int64_t, std::int32_t>::adopt(
    host_graph.view(), gnndirect::csr_placement{memory_kind::device, memory_kind::managed_host});
  std::int64_t const n = graph.num_nodes(), dim = 24;
  std::mt19937_64 rng(seed);
  std::vector<float> host_features(static_cast<std::size_t>(n * dim));
  for (auto& f : host_features) { f = static_cast<float>(rng() % 100000) * 0.01f; }
  auto const features = gnndirect::table<float>::adopt_by_copy(host_features.data(), n, dim, memory_kind::managed_host);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  for (auto& l : labels) { l = static_cast<std::int32_t>(rng() % 47); }
  auto const device_labels = to_buffer(labels);
  std::vector<std::int32_t> train(static_cast<std::size_t>(n / 4));
  for (auto& t : train) { t = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(n)); }

  gnndirect::pipeline_options plain;
  plain.batch_size = 256;
  plain.fanouts = {10, 5};
  plain.seed = seed;
  gnndirect::pipeline_options cached = plain;
  cached.cache_bytes = static_cast<std::size_t>(n / 5) * dim * sizeof(float);  // 20% of the rows
  using pipeline = gnndirect::minibatch_pipeline<std::int64_t, std::int32_t, float, std::int32_t>;
  pipeline a(graph.view(), features.view(), device_labels.data(), train, plain);
  pipeline b(graph.view(), features.view(), device_labels.data(), train, cached);
  REQUIRE(b.feature_cache() != nullptr);
  CHECK(b.feature_cache()->cached_rows() == n / 5);
  CHECK(a.feature_cache() == nullptr);
  {  // device-resident features: every row is in HBM already, so cache_bytes is ignored
    auto const device_features = gnndirect::table<float>::adopt_by_copy(host_features.data(), n, dim, memory_kind::device);
    pipeline c(graph.view(), device_features.view(), device_labels.data(), train, cached);
    CHECK(c.feature_cache() == nullptr);
  }
  a.start_epoch(0);
  b.start_epoch(0);
  int batches = 0;
  std::size_t mismatches = 0;
  while (auto const* x = a.next(cudaStream_t{})) {
    auto const* y = b.next(cudaStream_t{});
    REQUIRE(y != nullptr);
    REQUIRE(x->num_input_nodes == y->num_input_nodes);
    GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
    auto const fx = to_host(x->features.data, static_cast<std::size_t>(x->num_input_nodes * dim));
    auto const fy = to_host(y->features.data, static_cast<std::size_t>(y->num_input_nodes * dim));
    auto const ids = to_host(x->blocks.input_nodes().data(), static_cast<std::size_t>(x->num_input_nodes));
    for (std::size_t r = 0; r < ids.size(); ++r) {
      mismatches += std::memcmp(fy.data() + r * dim, host_features.data() + static_cast<std::size_t>(ids[r]) * dim,
                                dim * sizeof(float)) != 0;
    }
    mismatches += fx != fy;
    a.release(x, cudaStream_t{});
    b.release(y, cudaStream_t{});
    ++batches;
  }
  CHECK(b.next(cudaStream_t{}) == nullptr);
  CHECK(batches > 3);
  CHECK(mismatches == 0);
}

TEST_CASE("rebuild on a non-blocking stream is ordered with that stream, not the legacy stream")
{
  // Before the fix, rebuild's reset of the slot map was a cudaMemset on the legacy stream: with
  // the legacy stream busy, it ran *after* the rebuild on a non-blocking stream. Meanwhile the
  // old tier's slots still pointed at cache rows now holding other nodes (wrong rows served),
  // and when the reset finally ran the tier was silently empty.
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::int64_t const rows = 4096, cols = 32;
  gnndirect::test::placed_table<float> table(memory_kind::pinned, rows, cols);
  std::vector<unsigned char> const bytes = gnndirect::test::random_bytes(rng, table.owner.bytes());
  table.fill(bytes.data());
  std::vector<float> host_rows(static_cast<std::size_t>(rows * cols));
  std::memcpy(host_rows.data(), bytes.data(), bytes.size());
  std::int64_t const hot_count = rows / 4;
  gnndirect::tiered_table<float> tier(table.view(), static_cast<std::size_t>(hot_count) * cols * sizeof(float));
  std::vector<std::int64_t> order(static_cast<std::size_t>(rows));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::int64_t> const first(order.begin(), order.begin() + hot_count);               // hot set A
  std::vector<std::int64_t> const second(order.begin() + hot_count, order.begin() + 2 * hot_count);  // B, disjoint
  auto const device_first = to_buffer(first);
  auto const device_second = to_buffer(second);
  // Every node of A and B, in random order, with a pre-allocated workspace and output (nothing
  // below may touch the legacy stream while it is held).
  std::vector<std::int64_t> probe(order.begin(), order.begin() + 2 * hot_count);
  std::shuffle(probe.begin(), probe.end(), rng);
  auto const device_probe = to_buffer(probe);
  auto const count = static_cast<std::int64_t>(probe.size());
  gnndirect::buffer<float> out(static_cast<std::size_t>(count * cols), memory_kind::device);
  gnndirect::buffer<std::byte> ws(gnndirect::gather_workspace_bytes<std::int64_t>(count, rows, memory_kind::pinned, cols * sizeof(float)),
                                  memory_kind::device);
  gnndirect::buffer<int> release(1, memory_kind::pinned);
  *release.host_data() = 0;
  cudaStream_t stream;
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  tier.rebuild(stream, device_first.data(), hot_count);
  REQUIRE(tier.cached_rows() == hot_count);
  GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());

  hold_until_released<<<1, 1, 0, cudaStreamLegacy>>>(release.data(), 2'000'000'000LL);  // legacy stream busy
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  tier.rebuild(stream, device_second.data(), hot_count);
  gnndirect::gather_async(stream, tier.view(), device_probe.data(), count,
                          table_view<float>(out.data(), count, cols, cols, memory_kind::device),
                          gnndirect::workspace_view{ws.data(), ws.bytes()});
  gnndirect::gather_check(stream, gnndirect::workspace_view{ws.data(), ws.bytes()}, rows);
  *static_cast<volatile int*>(release.host_data()) = 1;
  GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());

  std::vector<float> expected(static_cast<std::size_t>(count * cols));
  gnndirect::host::gather_reference(table_view<const float>(host_rows.data(), rows, cols, cols, memory_kind::pinned),
                                    probe.data(), count, table_view<float>(expected.data(), count, cols, cols, memory_kind::device));
  std::vector<float> const got = to_host(out.data(), count * cols);
  CHECK(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) == 0);  // no row of another node
  // The tier holds B afterwards: every slot of B is its position, every other row uncached.
  CHECK(tier.cached_rows() == hot_count);
  std::vector<std::int32_t> const slots = to_host(tier.view().slot_of, rows);
  std::vector<std::int32_t> expected_slots(static_cast<std::size_t>(rows), -1);
  for (std::int64_t i = 0; i < hot_count; ++i) { expected_slots[static_cast<std::size_t>(second[static_cast<std::size_t>(i)])] = static_cast<std::int32_t>(i); }
  CHECK(slots == expected_slots);  // not silently emptied
  CHECK(tiered_gather_matches(tier.view(), host_rows, gnndirect::test::random_indices<std::int64_t>(rng, 5000, rows)));
  // clear(stream) empties it, ordered the same way.
  tier.clear(stream);
  CHECK(tier.cached_rows() == 0);
  std::vector<std::int32_t> const cleared = to_host(tier.view().slot_of, rows);
  CHECK(std::all_of(cleared.begin(), cleared.end(), [](std::int32_t v) { return v == -1; }));
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
}

TEST_CASE("scatter into a tiered table writes through: later tiered gathers equal a host model")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (memory_kind kind : {memory_kind::managed_host, memory_kind::pinned}) {
    std::int64_t const rows = 5003, cols = 37;  // odd row bytes: 4-byte vectors
    gnndirect::test::placed_table<float> table(kind, rows, cols);
    std::vector<unsigned char> const bytes = gnndirect::test::random_bytes(rng, table.owner.bytes());
    table.fill(bytes.data());
    std::vector<float> model(static_cast<std::size_t>(rows * cols));
    std::memcpy(model.data(), bytes.data(), bytes.size());
    gnndirect::tiered_table<float> tier(table.view(), static_cast<std::size_t>(rows / 3) * cols * sizeof(float));
    std::vector<std::int64_t> hot(static_cast<std::size_t>(rows));
    std::iota(hot.begin(), hot.end(), 0);
    std::shuffle(hot.begin(), hot.end(), rng);
    auto const device_hot = to_buffer(hot);
    tier.rebuild(cudaStream_t{}, device_hot.data(), rows);
    for (bool unique : {false, true}) {
      // Updates with duplicates (the last occurrence wins), hitting cached and uncached rows.
      std::int64_t const count = 3001;
      std::vector<std::int64_t> indices = gnndirect::test::random_indices<std::int64_t>(rng, count, rows);
      if (unique) {
        std::vector<std::int64_t> all(static_cast<std::size_t>(rows));
        std::iota(all.begin(), all.end(), 0);
        std::shuffle(all.begin(), all.end(), rng);
        indices.assign(all.begin(), all.begin() + count);
      }
      std::vector<unsigned char> const update_bytes = gnndirect::test::random_bytes(rng, count * cols * sizeof(float));
      std::vector<float> updates(static_cast<std::size_t>(count * cols));
      std::memcpy(updates.data(), update_bytes.data(), update_bytes.size());
      for (std::int64_t i = 0; i < count; ++i) {
        std::memcpy(model.data() + indices[i] * cols, updates.data() + i * cols, cols * sizeof(float));
      }
      auto const device_updates = to_buffer(updates);
      auto const device_indices = to_buffer(indices);
      gnndirect::gather_policy policy;
      policy.unique_indices = unique;
      gnndirect::scatter(cudaStream_t{}, table_view<const float>(device_updates.data(), count, cols, cols, memory_kind::device),
                         device_indices.data(), count, tier.write_source(table.view()), policy);
      std::vector<std::int64_t> const all_rows = [&] {
        std::vector<std::int64_t> v(static_cast<std::size_t>(rows));
        std::iota(v.begin(), v.end(), 0);
        return v;
      }();
      CHECK(tiered_gather_matches(tier.view(), model, all_rows));
      // The host table itself holds the same rows (written through, not only the HBM copy).
      std::vector<unsigned char> const host_now = table.read();
      CHECK(std::memcmp(host_now.data(), model.data(), host_now.size()) == 0);
    }
  }
  // A tier refuses a write source over another table.
  gnndirect::test::placed_table<float> a(memory_kind::pinned, 10, 4), b(memory_kind::pinned, 10, 4);
  gnndirect::tiered_table<float> tier(a.view(), 4 * 4 * 4);
  CHECK_THROWS_AS(tier.write_source(b.view()), gnndirect::invalid_argument);
}
