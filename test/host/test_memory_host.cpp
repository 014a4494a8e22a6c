// Host tests of the memory layer: kinds, placement choice, capacity probes, argument checks that
// happen before any CUDA call, and the GPU-less behaviour of allocations.
#include <doctest/doctest.h>

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/host_memory.hpp>
#include <gnndirect/owners/placement.hpp>
#include <gnndirect/owners/registration.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/util/parallel.hpp>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <random>
#include <cstdint>
#include <type_traits>
#include <utility>
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
  // Sized: a table larger than the GPU's free memory never gets managed memory (the library
  // refuses such managed requests), but pinned, with the reason.
  std::size_t const free = std::size_t{80} << 30;
  CHECK(choose_host_placement(device_capabilities{true, true}, free / 2, free).kind == memory_kind::managed_host);
  CHECK(choose_host_placement(device_capabilities{true, true}, free - free / 8, free).kind == memory_kind::managed_host);
  auto const big = choose_host_placement(device_capabilities{true, true}, free - free / 8 + 1, free);
  CHECK(big.kind == memory_kind::pinned);
  CHECK(std::string(big.reason).find("larger than 7/8 of the GPU's free memory") != std::string::npos);
  CHECK(choose_host_placement(device_capabilities{true, true}, std::size_t{512} << 30, free).kind == memory_kind::pinned);
  CHECK(choose_host_placement(device_capabilities{false, true}, std::size_t{512} << 30, free).kind == memory_kind::pinned);
  CHECK(choose_host_placement(device_capabilities{false, false}, 1, free).kind == memory_kind::device);
  CHECK(choose_host_placement(device_capabilities{true, false}, std::size_t{512} << 30, free).kind == memory_kind::device);
  std::mt19937_64 rng(std::random_device{}());
  for (int round = 0; round < 1000; ++round) {  // managed only ever where the allocator accepts it
    std::size_t const f = rng() % (std::size_t{1} << 40);
    std::size_t const bytes = rng() % (std::size_t{1} << 41);
    auto const d = choose_host_placement(device_capabilities{true, true}, bytes, f);
    CHECK((d.kind == memory_kind::managed_host) == (bytes <= f - f / 8));
    CHECK(d.kind != memory_kind::device);
  }
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
  CHECK(gnndirect::query_host_memory_limit().source == "GNNDIRECT_HOST_MEMORY_LIMIT");
  // Forms that were silently ignored before: decimal-looking units, lower case, fractions.
  for (const char* text : {"64GB", "64g", "64GiB", "64 G", " 64G\n"}) {
    CAPTURE(text);
    ::setenv("GNNDIRECT_HOST_MEMORY_LIMIT", text, 1);
    CHECK(gnndirect::host_memory_limit_bytes() == (64ull << 30));
  }
  ::setenv("GNNDIRECT_HOST_MEMORY_LIMIT", "1.5G", 1);
  CHECK(gnndirect::host_memory_limit_bytes() == (3ull << 29));
  // Garbage, zero and values that overflow 64 bits are errors, never ignored or wrapped.
  for (const char* text : {"garbage", "", "12Q", "-5G", "0", "99999999999T", "18446744073709551616", "1.G"}) {
    CAPTURE(text);
    ::setenv("GNNDIRECT_HOST_MEMORY_LIMIT", text, 1);
    CHECK_THROWS_WITH_AS(gnndirect::host_memory_limit_bytes(),
                         doctest::Contains(("GNNDIRECT_HOST_MEMORY_LIMIT='" + std::string(text) + "' is not a size").c_str()),
                         gnndirect::invalid_argument);
  }
  ::unsetenv("GNNDIRECT_HOST_MEMORY_LIMIT");
  CHECK(gnndirect::host_memory_limit_bytes() == probed);
}

TEST_CASE("size parsing: binary units in any spelling, exact, overflow-checked")
{
  using gnndirect::detail::parse_size;
  std::mt19937_64 rng(std::random_device{}());
  for (int round = 0; round < 200; ++round) {
    std::uint64_t const value = rng() % 100000;
    int const exponent = static_cast<int>(rng() % 5);
    char const letter = "BKMGT"[exponent];
    std::string const suffixes[] = {"", "B", "iB"};
    std::string unit = exponent == 0 ? std::string(rng() % 2 ? "" : "B") : std::string(1, letter) + suffixes[rng() % 3];
    if (rng() % 2) {
      for (char& c : unit) { c = static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
    }
    std::string const text = std::to_string(value) + unit;
    CAPTURE(text);
    REQUIRE(parse_size(text).has_value());
    CHECK(*parse_size(text) == value << (10 * exponent));
  }
  CHECK(parse_size("0.5k") == 512);
  CHECK(parse_size("1.25M") == (5ull << 18));
  CHECK(parse_size("16383P") == 16383ull << 50);
  CHECK_FALSE(parse_size("16384P").has_value());  // 2^64
  CHECK(parse_size("18446744073709551615") == ~0ull);
  CHECK_FALSE(parse_size("18446744073709551616").has_value());
  CHECK_FALSE(parse_size("99999999999T").has_value());
  CHECK_FALSE(parse_size("1e9").has_value());
  CHECK_FALSE(parse_size("G").has_value());
  CHECK(gnndirect::detail::parse_cgroup_limit("max\n") == 0);
  CHECK(gnndirect::detail::parse_cgroup_limit("9223372036854771712\n") == 0);  // v1 "unlimited"
  CHECK(gnndirect::detail::parse_cgroup_limit("34359738368\n") == (32ull << 30));
}

namespace {

/// A throw-away directory tree standing in for / (proc and sys files) in probe tests.
class fake_root {
 public:
  fake_root()
  {
    char pattern[] = "/tmp/gnndirect-fake-root-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    root_ = pattern;
  }
  ~fake_root()
  {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  fake_root(const fake_root&) = delete;
  fake_root& operator=(const fake_root&) = delete;
  /// Writes `text` to root + path, creating the directories.
  void write(const std::string& path, const std::string& text) const
  {
    std::string const full = root_ + path;
    std::filesystem::create_directories(full.substr(0, full.rfind('/')));
    std::ofstream(full) << text;
  }
  void meminfo_gib(std::uint64_t gib) const
  {
    write("/proc/meminfo", "MemTotal:       " + std::to_string(gib << 20) + " kB\nMemAvailable: 1024 kB\n");
  }
  const std::string& path() const { return root_; }

 private:
  std::string root_;
};

}  // namespace

TEST_CASE("host memory limit: the smallest cgroup v2 limit up the hierarchy wins over MemTotal")
{
  fake_root fs;
  fs.meminfo_gib(512);
  fs.write("/proc/self/cgroup", "0::/kubepods/pod1/c1\n");
  fs.write("/sys/fs/cgroup/kubepods/memory.max", std::to_string(40ull << 30) + "\n");
  fs.write("/sys/fs/cgroup/kubepods/pod1/memory.max", std::to_string(32ull << 30) + "\n");
  fs.write("/sys/fs/cgroup/kubepods/pod1/c1/memory.max", "max\n");
  gnndirect::host_memory_limit const limit = gnndirect::detail::probe_host_memory_limit(fs.path());
  CHECK(limit.bytes == (32ull << 30));  // the old probe took the maximum: 512 GiB
  CHECK(limit.source == "cgroup v2 " + fs.path() + "/sys/fs/cgroup/kubepods/pod1/memory.max");
  // A 100 GiB request in that container is refused (to the OOM killer before).
  CHECK(limit.bytes < (100ull << 30));
}

TEST_CASE("host memory limit: cgroup v1 memory controller, hybrid v2 and namespaced roots")
{
  {  // v1, combined controller list, "unlimited" sentinel at the root
    fake_root fs;
    fs.meminfo_gib(256);
    fs.write("/proc/self/cgroup", "9:pids:/\n4:cpu,memory:/docker/abc\n0::/\n");
    fs.write("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
    fs.write("/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", std::to_string(16ull << 30) + "\n");
    gnndirect::host_memory_limit const limit = gnndirect::detail::probe_host_memory_limit(fs.path());
    CHECK(limit.bytes == (16ull << 30));
    CHECK(limit.source.find("cgroup v1") == 0);
  }
  {  // hybrid: v2 under unified/, limited; cgroup namespace ("0::/") with the limit at the mount root
    fake_root fs;
    fs.meminfo_gib(64);
    fs.write("/proc/self/cgroup", "0::/\n");
    fs.write("/sys/fs/cgroup/unified/memory.max", std::to_string(8ull << 30) + "\n");
    CHECK(gnndirect::detail::probe_host_memory_limit(fs.path()).bytes == (8ull << 30));
  }
  {  // no cgroup limit: MemTotal
    fake_root fs;
    fs.meminfo_gib(64);
    fs.write("/proc/self/cgroup", "0::/user.slice\n");
    fs.write("/sys/fs/cgroup/user.slice/memory.max", "max\n");
    gnndirect::host_memory_limit const limit = gnndirect::detail::probe_host_memory_limit(fs.path());
    CHECK(limit.bytes == (64ull << 30));
    CHECK(limit.source == "MemTotal of /proc/meminfo");
  }
  {  // a VM whose memory grows on demand: MemTotal reads low, the block total is what it can
     // give; a cgroup limit still caps it
    fake_root fs;
    fs.meminfo_gib(16);
    fs.write("/sys/devices/system/memory/block_size_bytes", "8000000\n");  // 128 MiB
    for (int b = 0; b < 1024; ++b) { fs.write("/sys/devices/system/memory/memory" + std::to_string(b) + "/online", "1\n"); }
    CHECK(gnndirect::detail::probe_host_memory_limit(fs.path()).bytes == (128ull << 30));
    fs.write("/proc/self/cgroup", "0::/\n");
    fs.write("/sys/fs/cgroup/memory.max", std::to_string(100ull << 30) + "\n");
    CHECK(gnndirect::detail::probe_host_memory_limit(fs.path()).bytes == (100ull << 30));
  }
  {  // nothing readable: 0, nothing is refused
    fake_root fs;
    CHECK(gnndirect::detail::probe_host_memory_limit(fs.path()).bytes == 0);
  }
}

TEST_CASE("registration beyond the host-memory limit is refused before any CUDA call")
{
  ::setenv("GNNDIRECT_HOST_MEMORY_LIMIT", "1M", 1);
  std::vector<char> bytes(std::size_t{2} << 20);
  try {
    gnndirect::host_registration const r(bytes.data(), bytes.size());
    FAIL("expected allocation_error");
  } catch (const gnndirect::allocation_error& e) {
    CAPTURE(e.what());
    CHECK(e.kind() == memory_kind::registered);
    CHECK(e.bytes() == bytes.size());
    CHECK(std::string(e.what()).find("exceeds the host's memory (1048576 bytes, from GNNDIRECT_HOST_MEMORY_LIMIT)") != std::string::npos);
  }
  ::unsetenv("GNNDIRECT_HOST_MEMORY_LIMIT");
  // Refused before anything was recorded: the same range can be registered (GPU) or fails only
  // for lack of a device (CPU CI).
  if (gnndirect::device_count() == 0) {
    CHECK_THROWS_AS(gnndirect::host_registration(bytes.data(), bytes.size()), gnndirect::no_device_error);
  }
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

TEST_CASE("host thread count: set_host_threads, GNNDIRECT_NUM_THREADS, OMP_NUM_THREADS, CPUs")
{
  using gnndirect::detail::resolve_host_threads;
  CHECK(resolve_host_threads(0, "3", "8", 64) == 3);
  CHECK(resolve_host_threads(0, nullptr, "8", 64) == 8);
  CHECK(resolve_host_threads(0, nullptr, "6,2", 64) == 6);  // nested OpenMP list: first level
  CHECK(resolve_host_threads(0, "abc", "5", 64) == 5);      // garbage ignored (warned once)
  CHECK(resolve_host_threads(0, "0", "-1", 12) == 12);
  CHECK(resolve_host_threads(0, nullptr, nullptr, 0) == 1);
  CHECK(resolve_host_threads(2, "3", "8", 64) == 2);        // set_host_threads wins
  CHECK(gnndirect::detail::available_cpus() >= 1);
  ::setenv("OMP_NUM_THREADS", "3", 1);
  CHECK(gnndirect::host_threads() == 3);
  ::setenv("GNNDIRECT_NUM_THREADS", "2", 1);
  CHECK(gnndirect::host::default_thread_count() == 2);
  gnndirect::set_host_threads(5);
  CHECK(gnndirect::host_threads() == 5);
  gnndirect::set_host_threads(0);
  CHECK(gnndirect::host_threads() == 2);
  ::unsetenv("GNNDIRECT_NUM_THREADS");
  ::unsetenv("OMP_NUM_THREADS");
}

TEST_CASE("parallel_for_ranges runs on at most the configured number of threads")
{
  std::mt19937_64 rng(std::random_device{}());
  int const limit = 2 + static_cast<int>(rng() % 5);
  CAPTURE(limit);
  gnndirect::set_host_threads(limit);
  std::mutex mutex;
  std::set<std::thread::id> seen;
  std::vector<std::atomic<int>> hits(100000);
  std::atomic<int> top_worker{0};
  gnndirect::host::parallel_for_ranges(static_cast<std::int64_t>(hits.size()), [&](std::int64_t b, std::int64_t e, int w) {
    int seen_top = top_worker.load();
    while (w > seen_top && !top_worker.compare_exchange_weak(seen_top, w)) {}
    for (std::int64_t i = b; i < e; ++i) { hits[static_cast<std::size_t>(i)]++; }
    std::lock_guard<std::mutex> lock(mutex);
    seen.insert(std::this_thread::get_id());
  });
  gnndirect::set_host_threads(0);
  CHECK(top_worker.load() == limit - 1);
  CHECK(seen.size() <= static_cast<std::size_t>(limit));
  CHECK(seen.count(std::this_thread::get_id()) == 1);  // the caller works too
  bool all_once = true;
  for (auto& h : hits) { all_once = all_once && h.load() == 1; }
  CHECK(all_once);
}

TEST_CASE("a refused worker thread raises gnndirect::error after joining the started ones")
{
  std::mt19937_64 rng(std::random_device{}());
  int const threads = 3 + static_cast<int>(rng() % 6);
  int const refused = 1 + static_cast<int>(rng() % static_cast<std::uint64_t>(threads - 1));
  CAPTURE(threads);
  CAPTURE(refused);
  std::atomic<int> ran{0};
  gnndirect::detail::fail_thread_start_at() = refused;
  try {
    gnndirect::host::parallel_for_ranges(1000, [&](std::int64_t, std::int64_t, int) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // still running when refused
      ++ran;
    }, threads);
    FAIL("expected gnndirect::error");
  } catch (const gnndirect::error& e) {
    CAPTURE(e.what());
    CHECK(std::string(e.what()).find("could not start host worker thread " + std::to_string(refused) + " of " +
                                     std::to_string(threads)) != std::string::npos);
    CHECK(std::string(e.what()).find("GNNDIRECT_NUM_THREADS") != std::string::npos);
  }
  gnndirect::detail::fail_thread_start_at() = -1;
  CHECK(ran.load() == refused - 1);  // every started worker finished before the throw
  // The helpers still work afterwards.
  std::atomic<std::int64_t> sum{0};
  gnndirect::host::parallel_for_ranges(1000, [&](std::int64_t b, std::int64_t e, int) { sum += e - b; }, threads);
  CHECK(sum.load() == 1000);
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

namespace {

/// A resource over host memory (no CUDA call) that returns what it is told to: a good block,
/// null, or a block `offset` bytes past an aligned one. Counts what it holds.
struct scripted_resource {
  enum class answer { good, null, misaligned } mode{answer::good};
  std::size_t offset{8};
  std::int64_t live{0};
  std::vector<std::pair<void*, std::size_t>> returned;  // (pointer, bytes) of each deallocate

  void* give(std::size_t bytes, std::size_t alignment)
  {
    if (mode == answer::null) { return nullptr; }
    ++live;
    auto* const block = static_cast<char*>(std::aligned_alloc(alignment, (bytes + 2 * alignment) / alignment * alignment));
    return mode == answer::good ? block : block + offset;
  }
  void take(void* p, std::size_t bytes) noexcept
  {
    --live;
    returned.emplace_back(p, bytes);
    std::free(static_cast<char*>(p) - (mode == answer::good ? 0 : offset));
  }
};
struct scripted_device_resource : scripted_resource {
  void* allocate(::cuda::stream_ref, std::size_t bytes, std::size_t alignment) { return give(bytes, alignment); }
  void deallocate(::cuda::stream_ref, void* p, std::size_t bytes, std::size_t) noexcept { take(p, bytes); }
};
struct scripted_host_resource : scripted_resource {
  void* allocate(std::size_t bytes, std::size_t alignment) { return give(bytes, alignment); }
  void deallocate(void* p, std::size_t bytes, std::size_t) noexcept { take(p, bytes); }
};

struct throwing_deallocate {
  void* allocate(::cuda::stream_ref, std::size_t, std::size_t);
  void deallocate(::cuda::stream_ref, void*, std::size_t, std::size_t);
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// Calls allocate(bytes) through `ref`; returns the allocation_error's message ("" when none).
template <class Allocate>
std::string allocation_message(Allocate&& allocate)
{
  try {
    allocate();
  } catch (const gnndirect::allocation_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("resource concepts: what fits, and deallocate must be noexcept")
{
  static_assert(gnndirect::is_stream_ordered_resource_v<scripted_device_resource>);
  static_assert(!gnndirect::is_stream_ordered_resource_v<const scripted_device_resource>);
  static_assert(!gnndirect::is_stream_ordered_resource_v<scripted_host_resource>);
  static_assert(gnndirect::is_host_resource_v<scripted_host_resource>);
  static_assert(!gnndirect::is_host_resource_v<scripted_device_resource>);
  static_assert(gnndirect::detail::has_noexcept_stream_deallocate<scripted_device_resource>::value);
  static_assert(gnndirect::is_stream_ordered_resource_v<throwing_deallocate>);
  static_assert(!gnndirect::detail::has_noexcept_stream_deallocate<throwing_deallocate>::value);
  static_assert(std::is_trivially_copyable_v<gnndirect::host_resource_ref>);
  CHECK(gnndirect::resource_ref{}.is_default());
  CHECK(gnndirect::host_resource_ref{}.is_default());
}

TEST_CASE("resource_ref and host_resource_ref check every block: null, misaligned (handed back), good")
{
  std::size_t const bytes = 400;
  scripted_device_resource device;
  scripted_host_resource host;
  gnndirect::resource_ref const device_ref(device);
  gnndirect::host_resource_ref const host_ref(host);
  CHECK(!device_ref.is_default());
  CHECK(!host_ref.is_default());

  device.mode = host.mode = scripted_resource::answer::null;
  std::string what = allocation_message([&] { (void)device_ref.allocate(cudaStream_t{}, bytes); });
  CAPTURE(what);
  CHECK(has(what, "cannot allocate 400 bytes of device memory"));
  CHECK(has(what, "allocate(stream, ...)(bytes = 400, alignment = 256) returned null"));
  what = allocation_message([&] { (void)host_ref.allocate(bytes, 64); });
  CHECK(has(what, "cannot allocate 400 bytes of pinned memory"));
  CHECK(has(what, "allocate(host, ...)(bytes = 400, alignment = 64) returned null"));
  CHECK(device.live == 0);
  CHECK(host.live == 0);

  for (std::size_t offset : {std::size_t{8}, std::size_t{128}, std::size_t{255}}) {
    CAPTURE(offset);
    device.mode = host.mode = scripted_resource::answer::misaligned;
    device.offset = host.offset = offset;
    device.returned.clear();
    what = allocation_message([&] { (void)device_ref.allocate(cudaStream_t{}, bytes); });
    CHECK(has(what, "(bytes = 400, alignment = 256) returned 0x"));
    CHECK(has(what, "not aligned to 256 bytes"));
    CHECK(device.live == 0);  // the bad block went back, with the size asked for
    REQUIRE(device.returned.size() == 1);
    CHECK(device.returned[0].second == bytes);
    what = allocation_message([&] { (void)host_ref.allocate(bytes); });
    CHECK(has(what, "not aligned to 256 bytes"));
    CHECK(host.live == 0);
  }

  device.mode = host.mode = scripted_resource::answer::good;
  void* const a = device_ref.allocate(cudaStream_t{}, bytes);
  void* const b = host_ref.allocate(bytes);
  CHECK(reinterpret_cast<std::uintptr_t>(a) % 256 == 0);
  CHECK(reinterpret_cast<std::uintptr_t>(b) % 256 == 0);
  device_ref.deallocate(cudaStream_t{}, a, bytes);
  host_ref.deallocate(b, bytes);
  CHECK(device.live == 0);
  CHECK(host.live == 0);
  // Zero bytes: null is the right answer and is not an error.
  device.mode = scripted_resource::answer::null;
  CHECK(device_ref.allocate(cudaStream_t{}, 0) == nullptr);
}
