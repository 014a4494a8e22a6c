// Host tests of small host-compilable building blocks: workspace carving, vector-width choice,
// radix bit ranges, epoch shuffles, per-batch seeds and per-thread wait modes.
#include <doctest/doctest.h>

#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/core/workspace.hpp>
#include <gnndirect/detail/core/bits.hpp>
#include <gnndirect/pipeline/epoch_order.hpp>

#include "support/random.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <set>
#include <thread>
#include <vector>

TEST_CASE("workspace carver: sizing and carving agree, slices aligned, too small refused")
{
  gnndirect::detail::workspace_carver sizing(gnndirect::workspace_view{});
  CHECK(sizing.take<int>(1) == nullptr);
  CHECK(sizing.take<double>(300) == nullptr);
  CHECK(sizing.take<char>(0) == nullptr);
  std::size_t const needed = sizing.used();
  CHECK(needed == 256 + 512);
  std::vector<unsigned char> memory(needed + 256);
  auto* base = memory.data() + (256 - reinterpret_cast<std::uintptr_t>(memory.data()) % 256) % 256;
  gnndirect::detail::workspace_carver carving(gnndirect::workspace_view{base, needed});
  auto* a = carving.take<int>(1);
  auto* b = carving.take<double>(300);
  CHECK(reinterpret_cast<unsigned char*>(a) == base);
  CHECK(reinterpret_cast<unsigned char*>(b) == base + 256);
  CHECK(carving.used() == needed);
  gnndirect::detail::workspace_carver small(gnndirect::workspace_view{base, needed - 1});
  (void)small.take<int>(1);
  CHECK(small.take<double>(300) == nullptr);  // does not fit: reported by used(), with the total
  CHECK_THROWS_WITH_AS((void)small.used(), doctest::Contains("workspace too small: needs at least 768 bytes, got 767"),
                       gnndirect::invalid_argument);
}

TEST_CASE("workspace too small reports the total the whole carving needs, not where it ran out")
{
  std::mt19937_64 rng(gnndirect::test::fresh_seed());
  std::vector<std::size_t> slices(3 + rng() % 5);
  for (auto& bytes : slices) { bytes = 1 + rng() % 100000; }
  gnndirect::detail::workspace_carver sizing(gnndirect::workspace_view{});
  for (std::size_t bytes : slices) { (void)sizing.take<char>(bytes); }
  std::size_t const needed = sizing.used();
  std::vector<unsigned char> memory(needed + 256);
  auto* base = memory.data() + (256 - reinterpret_cast<std::uintptr_t>(memory.data()) % 256) % 256;
  // Too small already for the second slice: the message still names the full total.
  std::size_t const given = gnndirect::detail::align_workspace(slices[0]) + 8;
  CAPTURE(needed);
  gnndirect::detail::workspace_carver small(gnndirect::workspace_view{base, given});
  CHECK(small.take<char>(slices[0]) == reinterpret_cast<char*>(base));
  for (std::size_t i = 1; i < slices.size(); ++i) { CHECK(small.take<char>(slices[i]) == nullptr); }
  CHECK_THROWS_WITH_AS((void)small.used(),
                       doctest::Contains(("workspace too small: needs at least " + std::to_string(needed) +
                                          " bytes, got " + std::to_string(given)).c_str()),
                       gnndirect::invalid_argument);
  // Exactly enough works.
  gnndirect::detail::workspace_carver exact(gnndirect::workspace_view{base, needed});
  for (std::size_t bytes : slices) { CHECK(exact.take<char>(bytes) != nullptr); }
  CHECK(exact.used() == needed);
}

TEST_CASE("workspace alignment is a checked requirement")
{
  CHECK(gnndirect::workspace_alignment == 256);
  std::vector<unsigned char> memory(4096);
  auto* base = memory.data() + (256 - reinterpret_cast<std::uintptr_t>(memory.data()) % 256) % 256;
  CHECK_NOTHROW(gnndirect::detail::workspace_carver(gnndirect::workspace_view{base, 1024}));
  for (std::size_t offset : {std::size_t{4}, std::size_t{8}, std::size_t{128}, std::size_t{255}}) {
    CAPTURE(offset);
    CHECK_THROWS_WITH_AS(gnndirect::detail::workspace_carver(gnndirect::workspace_view{base + offset, 1024}),
                         doctest::Contains(("workspace data must be 256-byte aligned, but it is " + std::to_string(offset) +
                                            " bytes past a boundary").c_str()),
                         gnndirect::invalid_argument);
  }
  CHECK_NOTHROW(gnndirect::detail::workspace_carver(gnndirect::workspace_view{}));  // sizing pass
}

TEST_CASE("vector width is the widest of 16/8/4/2/1 dividing every address, stride and size")
{
  CHECK(gnndirect::vector_width_for(0x1000, 0x2000, 0x3000, 64, 128) == 16);
  CHECK(gnndirect::vector_width_for(0x1008, 0x2000, 0x3000, 64, 128) == 8);
  CHECK(gnndirect::vector_width_for(0x1000, 0x2000, 0x3000, 64, 2408) == 8);   // 2408 = 8 * 301
  CHECK(gnndirect::vector_width_for(0x1000, 0x2000, 0x3000, 400, 400) == 16);
  CHECK(gnndirect::vector_width_for(0x1000, 0x2000, 0x3002, 64, 128) == 2);
  CHECK(gnndirect::vector_width_for(0x1000, 0x2000, 0x3000, 64, 3) == 1);
  CHECK(gnndirect::vector_width_for(0, 0, 0, 0, 0) == 16);  // nothing constrains it
}

TEST_CASE("significant bits cover [0, bound)")
{
  using gnndirect::detail::significant_bits;
  CHECK(significant_bits(0) == 1);
  CHECK(significant_bits(1) == 1);
  CHECK(significant_bits(2) == 1);
  CHECK(significant_bits(3) == 2);
  CHECK(significant_bits(1024) == 10);
  CHECK(significant_bits(1025) == 11);
  CHECK(significant_bits(std::int64_t{111059956}) == 27);
  for (std::int64_t bound : {5LL, 1000LL, 1LL << 31, (1LL << 40) + 3}) {
    int const bits = significant_bits(bound);
    CHECK((std::int64_t{1} << bits) >= bound);
    CHECK((std::int64_t{1} << (bits - 1)) < bound);
  }
}

TEST_CASE("epoch shuffles are permutations, deterministic per (seed, epoch), and differ across epochs")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::vector<std::int64_t> ids(5000);
  std::iota(ids.begin(), ids.end(), 100);
  auto a = ids, b = ids, c = ids;
  gnndirect::shuffle_epoch(a, seed, 3);
  gnndirect::shuffle_epoch(b, seed, 3);
  gnndirect::shuffle_epoch(c, seed, 4);
  CHECK(a == b);
  CHECK(a != c);
  CHECK(a != ids);
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == ids);
  // Roughly uniform: over many epochs, the first slot holds every one of 8 ids about equally.
  std::map<int, int> first;
  for (std::int64_t epoch = 0; epoch < 8000; ++epoch) {
    std::vector<int> small{0, 1, 2, 3, 4, 5, 6, 7};
    gnndirect::shuffle_epoch(small, seed, epoch);
    ++first[small[0]];
  }
  for (auto const& [id, n] : first) {
    CAPTURE(id);
    CHECK(n > 800);   // expected 1000 each; 800 is more than 6 standard deviations below
    CHECK(n < 1200);
  }
}

TEST_CASE("per-batch sampling seeds are distinct across batches and epochs, and reproducible")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  std::set<std::uint64_t> seen;
  for (std::int64_t epoch = 0; epoch < 20; ++epoch) {
    for (std::int64_t batch = 0; batch < 200; ++batch) {
      seen.insert(gnndirect::batch_sampling_seed(seed, epoch, batch));
    }
  }
  CHECK(seen.size() == 20 * 200);
  CHECK(gnndirect::batch_sampling_seed(seed, 5, 7) == gnndirect::batch_sampling_seed(seed, 5, 7));
}

TEST_CASE("wait mode: spin by default, scoped per thread, restored on scope exit")
{
  using gnndirect::wait_mode;
  CHECK(gnndirect::detail::thread_wait_mode() == wait_mode::spin);
  {
    gnndirect::scoped_wait_mode const outer(wait_mode::sleep);
    CHECK(gnndirect::detail::thread_wait_mode() == wait_mode::sleep);
    wait_mode seen_by_other = wait_mode::sleep;
    std::thread other([&seen_by_other] { seen_by_other = gnndirect::detail::thread_wait_mode(); });
    other.join();
    CHECK(seen_by_other == wait_mode::spin);  // another thread keeps its own mode
    {
      gnndirect::scoped_wait_mode const inner(wait_mode::spin);
      CHECK(gnndirect::detail::thread_wait_mode() == wait_mode::spin);
    }
    CHECK(gnndirect::detail::thread_wait_mode() == wait_mode::sleep);
  }
  CHECK(gnndirect::detail::thread_wait_mode() == wait_mode::spin);
  CHECK(gnndirect::to_string(wait_mode::sleep) == "sleep");
  CHECK(gnndirect::to_string(wait_mode::spin) == "spin");
}
