// Host tests of the "can the host give it" check (host_memory.hpp): the availability rule from
// fixture trees of /proc and /sys/fs/cgroup text (cgroup v2, v1, none, a host that grows on
// demand), the refusal message, an oversized request against the real probe and against the
// override, and the chunked .npy streaming that keeps peak memory bounded (io/npy.hpp).
#include <doctest/doctest.h>

#include <gnndirect/device/codecs.hpp>
#include <gnndirect/io/npy.hpp>
#include <gnndirect/owners/encoded_table.hpp>
#include <gnndirect/owners/allocation.hpp>
#include <gnndirect/owners/host_memory.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

/// A fake root with the files the probe reads; removed on destruction.
struct fake_root {
  fs::path dir;
  fake_root()
  {
    dir = fs::temp_directory_path() /
          ("gnndirect_capacity_" + std::to_string(std::random_device{}()) + "_" + std::to_string(::getpid()));
    fs::create_directories(dir);
  }
  ~fake_root() { fs::remove_all(dir); }
  void write(const std::string& relative, const std::string& text) const
  {
    fs::path const path = dir / relative.substr(1);
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  std::string root() const { return dir.string(); }
};

std::string meminfo(std::uint64_t total_kb, std::uint64_t available_kb)
{
  return "MemTotal:       " + std::to_string(total_kb) + " kB\nMemFree:        1000 kB\n"
         "MemAvailable:   " + std::to_string(available_kb) + " kB\nBuffers:         0 kB\n";
}

/// Environment variable set (or unset) for a scope, restored afterwards.
struct env_scope {
  std::string name;
  std::string old;
  bool had;
  env_scope(const char* n, const char* value) : name(n)
  {
    const char* o = std::getenv(n);
    had = o != nullptr;
    if (had) { old = o; }
    if (value) { ::setenv(n, value, 1); } else { ::unsetenv(n); }
  }
  ~env_scope()
  {
    if (had) { ::setenv(name.c_str(), old.c_str(), 1); } else { ::unsetenv(name.c_str()); }
  }
};

}  // namespace

TEST_CASE("capacity arithmetic: cgroup headroom, host headroom, memory.stat")
{
  using namespace gnndirect::detail;
  std::mt19937_64 rng(std::random_device{}());
  for (int round = 0; round < 100; ++round) {
    std::uint64_t const limit = 1 + rng() % (64 * GiB);
    std::uint64_t const usage = rng() % (80 * GiB);
    std::uint64_t const cache = rng() % (usage + 1);
    CAPTURE(limit);
    CAPTURE(usage);
    CAPTURE(cache);
    std::uint64_t const used = usage - cache;  // independent reference
    std::uint64_t const expected = used >= limit ? 0 : limit - used;
    CHECK(cgroup_headroom(limit, usage, cache).value() == expected);
  }
  CHECK_FALSE(cgroup_headroom(0, 5, 0).has_value());   // no limit
  CHECK(cgroup_headroom(10, 5, 9).value() == 10);      // cache larger than usage: all free
  CHECK(host_headroom(0, 8 * GiB, 16 * GiB) == 0);     // MemAvailable unread: unknown
  CHECK(host_headroom(2 * GiB, 8 * GiB, 0) == 2 * GiB);
  CHECK(host_headroom(2 * GiB, 8 * GiB, 128 * GiB) == 122 * GiB);  // memory not yet online counts
  std::string const stat = "anon 100\nfile 4096\nkernel 7\ntotal_cache 555\n";
  CHECK(parse_stat_value(stat, "file") == 4096);
  CHECK(parse_stat_value(stat, "total_cache") == 555);
  CHECK(parse_stat_value(stat, "missing") == 0);
  CHECK(parse_stat_value("file notanumber\n", "file") == 0);
}

TEST_CASE("availability probe: cgroup v2 headroom wins over a low MemAvailable")
{
  fake_root const tree;
  // A host whose memory grows on demand: MemAvailable reads 1 GiB, the cgroup allows 40 GiB.
  tree.write("/proc/meminfo", meminfo(4 * 1024 * 1024, 1024 * 1024));
  tree.write("/proc/self/cgroup", "0::/job/worker\n");
  tree.write("/sys/fs/cgroup/job/memory.max", std::to_string(48 * GiB) + "\n");
  tree.write("/sys/fs/cgroup/job/memory.current", std::to_string(10 * GiB) + "\n");
  tree.write("/sys/fs/cgroup/job/memory.stat", "anon 1\nfile " + std::to_string(2 * GiB) + "\n");
  tree.write("/sys/fs/cgroup/job/worker/memory.max", "max\n");
  tree.write("/sys/fs/cgroup/job/worker/memory.current", "12345\n");
  tree.write("/sys/devices/system/memory/block_size_bytes", "80000000\n");  // 2 GiB blocks
  for (int b = 0; b < 64; ++b) { tree.write("/sys/devices/system/memory/memory" + std::to_string(b) + "/online", "1\n"); }
  auto const got = gnndirect::detail::probe_host_memory_available(tree.root());
  CHECK(got.known);
  CHECK(got.has_cgroup_limit);
  CHECK(got.bytes == 40 * GiB);  // 48 - (10 - 2)
  CHECK(got.cgroup_bytes == 40 * GiB);
  CHECK(got.mem_available == GiB);
  CHECK(got.source.find("cgroup v2") != std::string::npos);
  CHECK(got.source.find("job/memory.max") != std::string::npos);
  // The message names both figures, the bytes needed, and the zero-copy alternatives.
  std::string const text = gnndirect::detail::unavailable_message(41 * GiB, got);
  CHECK(text.find(std::to_string(41 * GiB)) != std::string::npos);
  CHECK(text.find("can give " + std::to_string(40 * GiB)) != std::string::npos);
  CHECK(text.find("MemAvailable " + std::to_string(GiB)) != std::string::npos);
  CHECK(text.find("registered") != std::string::npos);
  CHECK(text.find("from_npy") != std::string::npos);
}

TEST_CASE("availability probe: a cgroup limit at or above the machine limits nothing")
{
  fake_root const tree;
  tree.write("/proc/meminfo", meminfo(8 * 1024 * 1024, 6 * 1024 * 1024));  // 8 GiB machine, 6 free
  tree.write("/proc/self/cgroup", "0::/\n");
  tree.write("/sys/fs/cgroup/memory.max", std::to_string(512 * GiB));
  tree.write("/sys/fs/cgroup/memory.current", "0");
  auto const got = gnndirect::detail::probe_host_memory_available(tree.root());
  CHECK(got.known);
  CHECK_FALSE(got.has_cgroup_limit);
  CHECK(got.bytes == 6 * GiB);  // MemAvailable decides
}

TEST_CASE("availability probe: cgroup v1 usage less total_cache, smallest ancestor")
{
  fake_root const tree;
  tree.write("/proc/meminfo", meminfo(64 * 1024 * 1024, 60 * 1024 * 1024));
  tree.write("/proc/self/cgroup", "12:cpu,cpuacct:/x\n7:memory:/docker/abc\n");
  tree.write("/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", std::to_string(16 * GiB));
  tree.write("/sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes", std::to_string(6 * GiB));
  tree.write("/sys/fs/cgroup/memory/docker/abc/memory.stat", "cache 9\ntotal_cache " + std::to_string(GiB) + "\n");
  tree.write("/sys/fs/cgroup/memory/docker/memory.limit_in_bytes", std::to_string(12 * GiB));
  tree.write("/sys/fs/cgroup/memory/docker/memory.usage_in_bytes", std::to_string(9 * GiB));
  tree.write("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");  // unlimited
  tree.write("/sys/fs/cgroup/memory/memory.usage_in_bytes", std::to_string(50 * GiB));
  auto const got = gnndirect::detail::probe_host_memory_available(tree.root());
  CHECK(got.known);
  CHECK(got.bytes == 3 * GiB);  // docker: 12 - 9 (no memory.stat there) < abc: 16 - (6 - 1)
  CHECK(got.source.find("cgroup v1") != std::string::npos);
  CHECK(got.source.find("/memory/docker/memory.limit_in_bytes") != std::string::npos);
}

TEST_CASE("availability probe: no cgroup limit -> MemAvailable plus memory not yet online")
{
  fake_root const tree;
  tree.write("/proc/meminfo", meminfo(8 * 1024 * 1024, 3 * 1024 * 1024));  // 8 GiB online, 3 free
  tree.write("/proc/self/cgroup", "0::/user.slice\n");
  tree.write("/sys/fs/cgroup/user.slice/memory.max", "max\n");
  tree.write("/sys/fs/cgroup/user.slice/memory.current", "100\n");
  SUBCASE("plain host")
  {
    auto const got = gnndirect::detail::probe_host_memory_available(tree.root());
    CHECK(got.known);
    CHECK_FALSE(got.has_cgroup_limit);
    CHECK(got.bytes == 3 * GiB);
    CHECK(got.source == "MemAvailable of /proc/meminfo");
  }
  SUBCASE("host that grows on demand: 128 GiB of memory blocks")
  {
    tree.write("/sys/devices/system/memory/block_size_bytes", "40000000\n");  // 1 GiB blocks
    for (int b = 0; b < 128; ++b) { tree.write("/sys/devices/system/memory/memory" + std::to_string(b) + "/online", "0\n"); }
    auto const got = gnndirect::detail::probe_host_memory_available(tree.root());
    CHECK(got.bytes == 123 * GiB);  // 3 free + (128 - 8) not yet online
    CHECK(got.source.find("not yet online") != std::string::npos);
  }
}

TEST_CASE("availability probe: nothing readable -> unknown, nothing refused")
{
  fake_root const tree;
  auto const got = gnndirect::detail::probe_host_memory_available(tree.root());
  CHECK_FALSE(got.known);
}

TEST_CASE("oversized host requests are refused with an exception naming needed and available")
{
  {
    env_scope const probe("GNNDIRECT_HOST_MEMORY_LIMIT", nullptr);  // the real probe
    auto const real = gnndirect::query_host_memory_available();
    if (real.known) {
      std::size_t const bytes = static_cast<std::size_t>(real.bytes) + (std::size_t{1} << 40);
      CHECK_THROWS_AS(gnndirect::detail::refuse_beyond_host_available(bytes, gnndirect::memory_kind::managed_host),
                      gnndirect::allocation_error);
      CHECK_NOTHROW(gnndirect::detail::refuse_beyond_host_available(4096, gnndirect::memory_kind::pinned));
    }
  }
  env_scope const limit("GNNDIRECT_HOST_MEMORY_LIMIT", "1G");  // an RLIMIT-style ceiling
  auto const got = gnndirect::query_host_memory_available();
  CHECK(got.known);
  CHECK(got.bytes == GiB);
  CHECK(got.source == "GNNDIRECT_HOST_MEMORY_LIMIT");
  try {
    gnndirect::detail::refuse_beyond_host_available(GiB + 1, gnndirect::memory_kind::pinned);
    FAIL("expected allocation_error");
  } catch (const gnndirect::allocation_error& e) {
    std::string const what = e.what();
    CHECK(e.bytes() == GiB + 1);
    CHECK(what.find("needs " + std::to_string(GiB + 1) + " bytes") != std::string::npos);
    CHECK(what.find("can give " + std::to_string(GiB)) != std::string::npos);
  }
  CHECK_NOTHROW(gnndirect::detail::refuse_beyond_host_available(GiB, gnndirect::memory_kind::pinned));
  // commit_host_pages on plain host memory: touches every page, contents unspecified, no throw.
  std::vector<unsigned char> plain(3 * 4096 + 17, 0xAB);
  CHECK_NOTHROW(gnndirect::detail::commit_host_pages(plain.data(), plain.size(), gnndirect::memory_kind::pinned));
}

TEST_CASE("npy streaming: chunked conversion matches an element-wise reference at every chunk edge")
{
  std::mt19937_64 rng(std::random_device{}());
  fake_root const tree;
  std::string const path = (tree.dir / "values.npy").string();
  std::int64_t const n = 1000 + static_cast<std::int64_t>(rng() % 5000);
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  for (auto& v : values) { v = static_cast<std::int64_t>(rng() % 2000000) - 1000000; }
  gnndirect::save_npy(path, values);
  gnndirect::npy_array const array(path);
  for (std::size_t chunk : {std::size_t{8}, std::size_t{24}, std::size_t{4096}, std::size_t{1} << 26}) {
    CAPTURE(chunk);
    std::vector<std::int32_t> out(values.size(), -7);  // poisoned
    gnndirect::detail::stream_elements(array, array.data_as<std::int64_t>(),
                                       gnndirect::detail::npy_sink<std::int32_t>{out.data(), false}, chunk);
    std::int64_t mismatches = 0;
    for (std::size_t i = 0; i < values.size(); ++i) { mismatches += out[i] != static_cast<std::int32_t>(values[i]); }
    CHECK(mismatches == 0);
  }
  // A value out of range is named with its global position, also past the first chunk.
  std::size_t const bad = values.size() - 3;
  values[bad] = std::int64_t{1} << 40;
  gnndirect::save_npy(path, values);
  gnndirect::npy_array const broken(path);
  std::vector<std::int32_t> out(values.size());
  CHECK_THROWS_WITH_AS(gnndirect::detail::stream_elements(broken, broken.data_as<std::int64_t>(),
                                                          gnndirect::detail::npy_sink<std::int32_t>{out.data(), false}, 64),
                       doctest::Contains(("element " + std::to_string(bad) + " = ").c_str()),
                       gnndirect::invalid_argument);
}

TEST_CASE("registration: pages not yet resident beyond what the host can give are refused before pinning")
{
  // Issue #42 item 3: pinning faults in and locks every page, so a range whose non-resident
  // pages exceed what the host can give now would commit memory until the OOM killer; pages
  // already resident commit nothing and never count.
  auto const page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::size_t const pages = 64;
  void* const mapping = ::mmap(nullptr, pages * page, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  REQUIRE(mapping != MAP_FAILED);
  auto* const bytes = static_cast<unsigned char*>(mapping);
  CHECK(gnndirect::detail::non_resident_bytes(mapping, pages * page) == pages * page);
  std::mt19937_64 rng(std::random_device{}());
  std::size_t const touched = 1 + rng() % (pages - 1);
  CAPTURE(touched);
  for (std::size_t p = 0; p < touched; ++p) { bytes[p * page] = 1; }
  CHECK(gnndirect::detail::non_resident_bytes(mapping, pages * page) == (pages - touched) * page);
  CHECK(gnndirect::detail::non_resident_bytes(bytes + 1, page - 1) == 0);  // inside the first (touched) page
  {
    // Can give exactly the untouched part: accepted; one byte less: refused, naming the bytes.
    std::string const exact = std::to_string((pages - touched) * page);
    env_scope const limit("GNNDIRECT_HOST_MEMORY_LIMIT", exact.c_str());
    CHECK_NOTHROW(gnndirect::detail::refuse_registration_beyond_available(mapping, pages * page));
  }
  {
    std::string const less = std::to_string((pages - touched) * page - 1);
    env_scope const limit("GNNDIRECT_HOST_MEMORY_LIMIT", less.c_str());
    try {
      gnndirect::detail::refuse_registration_beyond_available(mapping, pages * page);
      FAIL("expected allocation_error");
    } catch (const gnndirect::allocation_error& e) {
      CHECK(e.kind() == gnndirect::memory_kind::registered);
      CHECK(std::string(e.what()).find(std::to_string((pages - touched) * page) + " bytes of the range are not resident") !=
            std::string::npos);
    }
  }
  ::munmap(mapping, pages * page);
}

TEST_CASE("an encoded table larger than the host from a MAP_NORESERVE input is refused before committing")
{
  // Issue #42 item 3: 512 GiB of fp32 rows encoded into registered memory calloc'ed the codes and
  // wrote them until the OOM killer ended the process. The refusal comes before anything is
  // allocated or read (the input is a MAP_NORESERVE mapping that is never touched).
  std::size_t const bytes = std::size_t{512} << 30;
  void* const input = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (input == MAP_FAILED) {
    MESSAGE("a 512 GiB MAP_NORESERVE mapping is not allowed here (strict overcommit): skipped");
    return;
  }
  std::int64_t const cols = 32;  // 128-byte rows: codes of 512 GiB
  auto const rows = static_cast<std::int64_t>(bytes / (cols * 4));
  auto const encode = [&] {
    gnndirect::encoded_table<gnndirect::codecs::fp32> const t(static_cast<const float*>(input), rows, cols,
                                                              gnndirect::memory_kind::registered);
  };
  {
    env_scope const probe("GNNDIRECT_HOST_MEMORY_LIMIT", nullptr);  // the real probe
    auto const available = gnndirect::query_host_memory_available();
    if (available.known && available.bytes < bytes) {
      CHECK_THROWS_WITH_AS(encode(), doctest::Contains("cannot allocate"), gnndirect::allocation_error);
    } else {
      MESSAGE("this host can give 512 GiB: only the override case runs");
    }
  }
  env_scope const limit("GNNDIRECT_HOST_MEMORY_LIMIT", "64G");
  try {
    encode();
    FAIL("expected allocation_error");
  } catch (const gnndirect::allocation_error& e) {
    CHECK(e.kind() == gnndirect::memory_kind::registered);
    CHECK(e.bytes() >= bytes);
    CHECK(std::string(e.what()).find("GNNDIRECT_HOST_MEMORY_LIMIT") != std::string::npos);
  }
  ::munmap(input, bytes);
}
