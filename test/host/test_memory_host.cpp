// Host tests of the memory layer: kinds, placement choice, capacity probes, argument checks that
// happen before any CUDA call, and the GPU-less behaviour of allocations.
#include <doctest/doctest.h>

#include <gnndirect/device.hpp>
#include <gnndirect/host/parallel.hpp>
#include <gnndirect/memory/buffer.hpp>
#include <gnndirect/memory/placement.hpp>
#include <gnndirect/memory/registration.hpp>
#include <gnndirect/memory/table.hpp>

#include <atomic>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <vector>

using gnndirect::memory_kind;

TEST_CASE("memory_kind names")
{
  CHECK(gnndirect::to_string(memory_kind::device) == "device");
  CHECK(gnndirect::to_string(memory_kind::pinned) == "pinned");
  CHECK(gnndirect::to_string(memory_kind::registered) == "registered");
  CHECK(gnndirect::to_string(memory_kind::managed_host) == "managed_host");
  CHECK_FALSE(gnndirect::is_host_resident(memory_kind::device));
  CHECK(gnndirect::is_host_resident(memory_kind::registered));
}

TEST_CASE("auto placement picks the fastest supported host-resident kind")
{
  using gnndirect::choose_host_placement;
  using gnndirect::device_capabilities;
  CHECK(choose_host_placement(device_capabilities{true, true}).kind == memory_kind::managed_host);
  CHECK(choose_host_placement(device_capabilities{false, true}).kind == memory_kind::pinned);
  CHECK(choose_host_placement(device_capabilities{false, false}).kind == memory_kind::device);
  CHECK(std::string(choose_host_placement(device_capabilities{true, true}).reason).size() > 10);
  if (gnndirect::device_count() == 0) {
    CHECK_THROWS_AS(choose_host_placement(), gnndirect::no_device_error);
  }
}

TEST_CASE("meminfo and size parsing")
{
  std::string const meminfo = "MemTotal:       131072 kB\nMemFree:  100 kB\nMemAvailable: 2048 kB\n";
  CHECK(gnndirect::detail::parse_meminfo_bytes(meminfo, "MemTotal") == 131072ull * 1024);
  CHECK(gnndirect::detail::parse_meminfo_bytes(meminfo, "MemAvailable") == 2048ull * 1024);
  CHECK(gnndirect::detail::parse_meminfo_bytes(meminfo, "Missing") == 0);
  CHECK(gnndirect::detail::parse_size_bytes("64G") == 64ull << 30);
  CHECK(gnndirect::detail::parse_size_bytes("512M") == 512ull << 20);
  CHECK(gnndirect::detail::parse_size_bytes("4096") == 4096);
  CHECK(gnndirect::detail::parse_size_bytes("max") == 0);
  CHECK(gnndirect::detail::parse_size_bytes("lots") == 0);
  CHECK(gnndirect::detail::parse_size_bytes("12Q") == 0);
}

TEST_CASE("host memory limit: probe, and the environment override")
{
  ::unsetenv("GNNDIRECT_HOST_MEMORY_LIMIT");
  std::uint64_t const probed = gnndirect::host_memory_limit_bytes();
  CHECK(probed >= (std::uint64_t{1} << 28));  // any CI machine has more than 256 MiB
  ::setenv("GNNDIRECT_HOST_MEMORY_LIMIT", "3G", 1);
  CHECK(gnndirect::host_memory_limit_bytes() == (3ull << 30));
  ::setenv("GNNDIRECT_HOST_MEMORY_LIMIT", "garbage", 1);
  CHECK(gnndirect::host_memory_limit_bytes() == probed);
  ::unsetenv("GNNDIRECT_HOST_MEMORY_LIMIT");
}

TEST_CASE("argument errors are raised before any CUDA call")
{
  CHECK_THROWS_AS(gnndirect::allocation(memory_kind::registered, 16), gnndirect::invalid_argument);
  CHECK_THROWS_AS(gnndirect::host_registration(nullptr, 64), gnndirect::invalid_argument);
  std::vector<char> bytes(64);
  CHECK_THROWS_WITH_AS(gnndirect::host_registration(bytes.data(), 0),
                       doctest::Contains("zero-size"), gnndirect::invalid_argument);
  CHECK_THROWS_AS(gnndirect::table<float>(-1, 4, memory_kind::device), gnndirect::invalid_argument);
  CHECK_THROWS_AS(gnndirect::table<float>(4, 4, memory_kind::registered),
                  gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::table<double>(std::int64_t{1} << 40, std::int64_t{1} << 40,
                                                memory_kind::pinned),
                       doctest::Contains("overflows"), gnndirect::invalid_argument);
}

TEST_CASE("zero-size owners need no device")
{
  gnndirect::buffer<float> const empty(0, memory_kind::managed_host);
  CHECK(empty.empty());
  CHECK(empty.data() == nullptr);
  gnndirect::table<int> const none(0, 8, memory_kind::pinned);
  CHECK(none.bytes() == 0);
  CHECK(none.view().empty());
}

TEST_CASE("without a GPU, allocations fail with no_device_error")
{
  if (gnndirect::device_count() != 0) { return; }  // covered by the GPU suite instead
  for (memory_kind kind : {memory_kind::device, memory_kind::pinned, memory_kind::managed_host}) {
    CAPTURE(gnndirect::to_string(kind));
    CHECK_THROWS_AS(gnndirect::buffer<int>(16, kind), gnndirect::no_device_error);
  }
  std::vector<int> host(1024);
  CHECK_THROWS_AS(gnndirect::host_registration(host.data(), host.size() * sizeof(int)),
                  gnndirect::no_device_error);
  // The failed registration must not stay recorded: the range can be tried again.
  CHECK_THROWS_AS(gnndirect::host_registration(host.data(), host.size() * sizeof(int)),
                  gnndirect::no_device_error);
}

TEST_CASE("registration registry detects every overlap and forgets released ranges")
{
  auto& registry = gnndirect::detail::registration_registry::instance();
  std::uintptr_t const base = 0x7f0000000000ull;
  registry.add(base + 100, base + 200);
  registry.add(base + 300, base + 400);
  CHECK_THROWS_AS(registry.add(base + 150, base + 160), gnndirect::invalid_argument);  // inside
  CHECK_THROWS_AS(registry.add(base + 50, base + 101), gnndirect::invalid_argument);   // head
  CHECK_THROWS_AS(registry.add(base + 199, base + 250), gnndirect::invalid_argument);  // tail
  CHECK_THROWS_AS(registry.add(base + 0, base + 1000), gnndirect::invalid_argument);   // covers
  CHECK_NOTHROW(registry.add(base + 200, base + 300));  // touching is not overlapping
  registry.remove(base + 200);
  registry.remove(base + 100);
  CHECK_NOTHROW(registry.add(base + 150, base + 160));
  registry.remove(base + 150);
  registry.remove(base + 300);
}

TEST_CASE("parallel_for_ranges covers [0, n) exactly once and rethrows")
{
  std::mt19937_64 rng(std::random_device{}());
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{1000}, static_cast<std::int64_t>(rng() % 100000)}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    gnndirect::host::parallel_for_ranges(
      n, [&](std::int64_t b, std::int64_t e, int) {
        for (std::int64_t i = b; i < e; ++i) { hits[static_cast<std::size_t>(i)]++; }
      }, 5);
    bool all_once = true;
    for (auto& h : hits) { all_once = all_once && h.load() == 1; }
    CHECK(all_once);
  }
  CHECK_THROWS_AS(gnndirect::host::parallel_for_ranges(
                    100, [](std::int64_t b, std::int64_t, int) {
                      if (b > 0) { throw std::runtime_error("worker failed"); }
                    }, 4),
                  std::runtime_error);
}

TEST_CASE("parallel_memcpy copies every byte")
{
  std::mt19937 rng(std::random_device{}());
  std::size_t const bytes = (std::size_t{3} << 20) + 12345;
  std::vector<unsigned char> src(bytes), dst(bytes, 0xAB);
  for (auto& b : src) { b = static_cast<unsigned char>(rng()); }
  gnndirect::host::parallel_memcpy(dst.data(), src.data(), bytes, 3);
  CHECK(dst == src);
}
