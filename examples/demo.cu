// End-to-end demo: one training epoch's data loading for a GNN on a large graph, three ways side
// by side on one GPU:
//   gnndirect    graph and features stay in host memory; the mini-batch pipeline samples and
//                gathers on the GPU straight from there (no CPU gather, no staging copy);
//   cpu-centric  a good CPU loader: fast host sampling and relabelling on all cores
//                (host::cpu_sampler), feature gather on all cores into two pinned staging
//                buffers, each copied to the GPU while the other fills (host::staged_gather),
//                then blocks and labels copied; no wait between batches;
//   all-in-gpu   graph and features copied into GPU memory first (when they fit), same pipeline.
// Every path prepares the same batches (same shuffle, same seed nodes, same fanouts; the
// CPU-centric sampler draws the neighbours with its own generator).
// Reports epoch time, batches/s, feature GB/s, CPU core-seconds, ratios to the CPU-centric path,
// and how close gnndirect comes to the host link's floor (bytes that must cross it / link peak
// measured in the same run). Every path's JSON entry carries the wall-clock bounds of its timed
// epochs (start_unix_s, end_unix_s), so that an external power log (scripts/paper-table) can be
// averaged per path.
// Two extras, off by default:
//   --workers/--depth lists  sweep the pipeline's worker count and depth on the same data; the
//                            best combination is reported as "gnndirect" and used by the others;
//   path transfer            the feature transfer alone, per batch of an epoch: gnndirect's gather
//                            from the host-resident table against the CPU-centric staged gather of
//                            the same rows (the comparison of PyTorch-Direct, Min et al. 2021).
//
//   demo [--preset small|products|reddit|twitter|papers100m] [--scale X] [--batch-size N]
//        [--fanouts 15,10,5] [--epochs N] [--max-batches N] [--paths gnndirect,cpu,gpu,transfer]
//        [--workers 1,2,4] [--depth 2,3,4,6] [--feature-dim D] [--train-nodes N] [--seed S]
//        [--json FILE]
#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/graph/generate.cuh>
#include <gnndirect/host/cpu_gather.hpp>
#include <gnndirect/host/cpu_sampler.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/placement.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/pipeline/epoch_order.hpp>
#include <gnndirect/pipeline/minibatch_pipeline.cuh>
#include <gnndirect/util/parallel.hpp>

#include <cuda_runtime_api.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

using gnndirect::memory_kind;
using clock_type = std::chrono::steady_clock;
using label_type = std::int32_t;

// ---------------------------------------------------------------------------------------------
// Command line

struct demo_args {
  gnndirect::graph_preset preset{gnndirect::graph_preset::small};
  std::string preset_name{"small"};
  double scale{1.0};
  std::int64_t batch_size{1024};
  std::vector<int> fanouts{15, 10, 5};
  int epochs{1};
  std::int64_t max_batches{0};
  std::int64_t cpu_max_batches{0};  // CPU-centric path only; its epoch is then extrapolated
  double cache_pct{20};             // path "cached": % of feature rows in the device tier
  std::vector<std::string> paths{"gnndirect", "cpu", "gpu"};
  std::int64_t feature_dim{-1};  // -1: the preset's
  std::int64_t train_nodes{-1};  // -1: the preset's, scaled
  std::uint64_t seed{1};
  std::vector<int> workers_list{2};  // --workers: one value, or several to sweep
  std::vector<int> depth_list{3};    // --depth: likewise
  bool pipeline_given{false};  // --workers or --depth on the command line (else the preset's)
  int workers{2};  // pipeline worker threads in use (gnndirect, cached and all-in-gpu paths)
  int depth{3};    // pipeline batches in flight in use (after a sweep: the best combination's)
  std::string json;

  /// True when --workers and --depth name more than one combination.
  bool sweeps() const { return workers_list.size() * depth_list.size() > 1; }
};

void print_usage(std::FILE* out)
{
  std::fprintf(out,
    "usage: demo [options]\n"
    "  --preset NAME        small | products | reddit | twitter | papers100m (default small)\n"
    "  --scale X            multiply the preset's nodes and edges by X (default 1)\n"
    "  --batch-size N       seeds per mini-batch (default 1024)\n"
    "  --fanouts A,B,C      neighbours sampled per layer, seeds side first (default 15,10,5)\n"
    "  --epochs N           epochs per data path (default 1)\n"
    "  --max-batches N      stop each epoch after N batches (default 0 = all)\n"
    "  --cpu-max-batches N  run only N batches of the CPU-centric path and extrapolate its\n"
    "                       epoch (it is the slow one; default 0 = all)\n"
    "  --cache-pct P        path 'cached': gnndirect with P%% of feature rows in a device tier\n"
    "                       (highest degree first; default 20)\n"
    "  --paths LIST         any of gnndirect,cached,cpu,gpu,transfer,graph-hbm (default gnndirect,cpu,gpu);\n"
    "                       transfer: the feature transfer alone, per batch, gnndirect's gather\n"
    "                       against the CPU-centric staged gather of the same rows (bounded by\n"
    "                       --cpu-max-batches like cpu); graph-hbm: gnndirect with the neighbour\n"
    "                       lists in HBM and the features in host memory (its floor: the\n"
    "                       feature rows alone)\n"
    "  --feature-dim D      fp32 features per node (default: products 100, reddit 602,\n"
    "                       twitter 343, papers100m 128, small 128)\n"
    "  --train-nodes N      training nodes (default: products 196615, reddit 153431,\n"
    "                       papers100m 1200000, twitter and small 10%% of nodes; times --scale)\n"
    "  --seed S             seed of the graph, features, shuffle and sampling (default 1)\n"
    "  --workers N[,N..]    pipeline threads preparing batches concurrently (default 2;\n"
    "                       papers100m 6, the fastest of its measured sweep)\n"
    "  --depth N[,N..]      pipeline batches in flight (default 3; papers100m 6). With lists,\n"
    "                       gnndirect runs once per combination on the same data (after a short\n"
    "                       warm-up), and the fastest is reported as gnndirect and used by cached\n"
    "                       and gpu (needs gnndirect in --paths; it then runs first)\n"
    "  --json FILE          also write the results as JSON\n"
    "  --help               this text\n");
}

/// Reports a bad command-line value naming the option and what it accepts, then exits 2.
[[noreturn]] void bad_option(const std::string& flag, const std::string& expected, const std::string& got)
{
  std::fprintf(stderr, "demo: %s expects %s, got '%s' (see --help)\n", flag.c_str(), expected.c_str(),
               got.c_str());
  std::exit(2);
}

/// Splits a comma-separated list; an empty entry ("15,,5", a trailing comma) is an error.
std::vector<std::string> split_list(const std::string& flag, const std::string& text,
                                    const std::string& expected)
{
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (true) {
    std::size_t const comma = text.find(',', begin);
    std::string part = text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    if (part.empty()) { bad_option(flag, expected + " (no empty entries)", text); }
    parts.push_back(std::move(part));
    if (comma == std::string::npos) { return parts; }
    begin = comma + 1;
  }
}

/// Parses an integer in [lo, hi] or exits naming the flag and the range.
template <class T>
T parse_integer(const std::string& flag, const std::string& text, long long lo, long long hi)
{
  std::string const expected = hi == std::numeric_limits<long long>::max()
                                 ? "an integer >= " + std::to_string(lo)
                                 : "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  char* end = nullptr;
  errno = 0;
  long long const value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < lo || value > hi) {
    bad_option(flag, expected, text);
  }
  return static_cast<T>(value);
}

/// Parses a finite number in (lo, hi] or exits naming the flag and the range.
double parse_real(const std::string& flag, const std::string& text, double lo, double hi,
                  const std::string& expected)
{
  char* end = nullptr;
  errno = 0;
  double const value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(value) || !(value > lo) ||
      value > hi) {
    bad_option(flag, expected, text);
  }
  return value;
}

/// A seed: any unsigned 64-bit integer.
std::uint64_t parse_seed(const std::string& flag, const std::string& text)
{
  char* end = nullptr;
  errno = 0;
  unsigned long long const value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno != 0) {
    bad_option(flag, "an integer in [0, 2^64)", text);
  }
  return value;
}

gnndirect::graph_preset parse_preset(const std::string& name)
{
  if (name == "small") { return gnndirect::graph_preset::small; }
  if (name == "products") { return gnndirect::graph_preset::products; }
  if (name == "reddit") { return gnndirect::graph_preset::reddit; }
  if (name == "papers100m") { return gnndirect::graph_preset::papers100m; }
  if (name == "twitter") { return gnndirect::graph_preset::twitter; }
  bad_option("--preset", "one of small, products, reddit, twitter, papers100m", name);
}

/// The data paths --paths accepts.
constexpr const char* known_paths[] = {"gnndirect", "cached", "cpu", "gpu", "transfer", "graph-hbm"};

/// A comma-separated list of distinct integers in [lo, hi]; each entry is checked (and named) as a
/// single value would be.
std::vector<int> parse_int_list(const std::string& flag, const std::string& text, int lo, int hi)
{
  std::string const range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  std::vector<int> values;
  for (auto const& part : split_list(flag, text, "a comma-separated list of integers in " + range)) {
    int const value = parse_integer<int>(flag, part, lo, hi);
    if (std::find(values.begin(), values.end(), value) != values.end()) {
      bad_option(flag, "distinct integers in " + range + " ('" + part + "' repeats)", text);
    }
    values.push_back(value);
  }
  return values;
}

std::vector<std::string> parse_paths(const std::string& text)
{
  std::string expected = "a comma-separated list of";
  for (const char* p : known_paths) { expected += std::string(" ") + p; }
  auto paths = split_list("--paths", text, expected);
  for (auto const& path : paths) {
    if (std::find(std::begin(known_paths), std::end(known_paths), path) == std::end(known_paths)) {
      bad_option("--paths", expected + " ('" + path + "' is none of them)", text);
    }
  }
  return paths;
}

/// Checks before the run that the --json file can be written (an unwritable path found after a
/// long run would lose its results); leaves no file behind when there was none.
void check_json_writable(const std::string& path)
{
  bool const existed = ::access(path.c_str(), F_OK) == 0;
  std::FILE* const probe = std::fopen(path.c_str(), "a");
  if (probe == nullptr) {
    std::fprintf(stderr, "demo: --json: cannot write '%s': %s\n", path.c_str(), std::strerror(errno));
    std::exit(2);
  }
  std::fclose(probe);
  if (!existed) { std::remove(path.c_str()); }
}

bool is_option_with_value(const std::string& flag)
{
  static const char* const flags[] = {"--preset", "--scale", "--batch-size", "--fanouts", "--epochs",
                                      "--max-batches", "--cpu-max-batches", "--cache-pct", "--paths",
                                      "--feature-dim", "--train-nodes", "--workers", "--depth",
                                      "--seed", "--json"};
  return std::find(std::begin(flags), std::end(flags), flag) != std::end(flags);
}

/// Applies one option (flag known to take a value) to `a`, validating the value.
void apply_option(demo_args& a, const std::string& flag, const std::string& value)
{
  constexpr long long any = std::numeric_limits<long long>::max();
  constexpr long long int_max = std::numeric_limits<int>::max();
  if (flag == "--preset") {
    a.preset = parse_preset(value);
    a.preset_name = value;
  } else if (flag == "--scale") {
    a.scale = parse_real(flag, value, 0, 1e6, "a number > 0");
  } else if (flag == "--batch-size") {
    a.batch_size = parse_integer<std::int64_t>(flag, value, 1, int_max);
  } else if (flag == "--fanouts") {
    a.fanouts.clear();
    for (auto const& f : split_list(flag, value, "a comma-separated list of integers >= 0, one per layer")) {
      a.fanouts.push_back(parse_integer<int>(flag, f, 0, int_max));
    }
  } else if (flag == "--epochs") {
    a.epochs = parse_integer<int>(flag, value, 1, 1000);
  } else if (flag == "--max-batches") {
    a.max_batches = parse_integer<std::int64_t>(flag, value, 0, any);
  } else if (flag == "--cpu-max-batches") {
    a.cpu_max_batches = parse_integer<std::int64_t>(flag, value, 0, any);
  } else if (flag == "--cache-pct") {
    a.cache_pct = parse_real(flag, value, 0, 100, "a percentage in (0, 100]");
  } else if (flag == "--paths") {
    a.paths = parse_paths(value);
  } else if (flag == "--feature-dim") {
    a.feature_dim = parse_integer<std::int64_t>(flag, value, 1, 1 << 20);
  } else if (flag == "--train-nodes") {
    a.train_nodes = parse_integer<std::int64_t>(flag, value, 1, any);
  } else if (flag == "--workers") {
    a.workers_list = parse_int_list(flag, value, 1, 256);
    a.workers = a.workers_list.front();
    a.pipeline_given = true;
  } else if (flag == "--depth") {
    a.depth_list = parse_int_list(flag, value, 1, 256);
    a.depth = a.depth_list.front();
    a.pipeline_given = true;
  } else if (flag == "--seed") {
    a.seed = parse_seed(flag, value);
  } else if (flag == "--json") {
    if (value.empty()) { bad_option(flag, "a file name", value); }
    a.json = value;
  }
}

/// The pipeline shape of a preset when the command line gives none: papers100m prepares batches
/// with 6 workers and 6 batches in flight, the fastest region of its measured sweep (H200,
/// docs/performance.md §4: 3.90 s with 1 worker, 3.02 s with 2, 2.49 s with 6 or 8 at depth 6);
/// the smaller presets keep 2 x 3.
void apply_preset_pipeline(demo_args& a)
{
  if (a.pipeline_given || a.preset != gnndirect::graph_preset::papers100m) { return; }
  a.workers_list = {6};
  a.depth_list = {6};
  a.workers = 6;
  a.depth = 6;
}

/// Parses and validates the command line; every bad option exits 2 with a message naming it and
/// the values it accepts. Relative paths are relative to the current directory (scripts/demo runs
/// the demo from the caller's).
demo_args parse_args(int argc, char** argv)
{
  demo_args a;
  for (int i = 1; i < argc; ++i) {
    std::string const flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      print_usage(stdout);
      std::exit(0);
    }
    if (!is_option_with_value(flag)) {
      std::fprintf(stderr, "demo: unknown option '%s' (see --help)\n", flag.c_str());
      std::exit(2);
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "demo: %s needs a value (see --help)\n", flag.c_str());
      std::exit(2);
    }
    apply_option(a, flag, argv[++i]);
  }
  apply_preset_pipeline(a);
  if (a.sweeps() && std::find(a.paths.begin(), a.paths.end(), "gnndirect") == a.paths.end()) {
    std::fprintf(stderr, "demo: --workers/--depth lists (a sweep) need the gnndirect path in --paths "
                         "(see --help)\n");
    std::exit(2);
  }
  if (!a.json.empty()) { check_json_writable(a.json); }
  return a;
}

std::int64_t default_feature_dim(gnndirect::graph_preset preset)
{
  switch (preset) {
    case gnndirect::graph_preset::products: return 100;
    case gnndirect::graph_preset::reddit: return 602;
    // Our choice: a width between reddit's and products' (PyTorch-Direct's own value for its
    // twitter graph, whose features are synthetic, is not confirmed here).
    case gnndirect::graph_preset::twitter: return 343;
    default: return 128;
  }
}

std::int64_t default_train_nodes(gnndirect::graph_preset preset, double scale, std::int64_t nodes)
{
  double full = 0;
  switch (preset) {
    case gnndirect::graph_preset::products: full = 196'615; break;
    case gnndirect::graph_preset::reddit: full = 153'431; break;
    case gnndirect::graph_preset::papers100m: full = 1'200'000; break;
    // twitter-2010 has no split: 10% of the full-size nodes, scaled like the others.
    case gnndirect::graph_preset::twitter: full = 4'165'223; break;
    case gnndirect::graph_preset::small: return std::max<std::int64_t>(1, nodes / 10);
  }
  return std::clamp<std::int64_t>(std::llround(full * scale), 1, nodes);
}

/// Bytes of host memory available to this process: MemAvailable, or less under a cgroup limit;
/// 0 when unknown.
std::uint64_t available_host_bytes()
{
  std::uint64_t available = 0;
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    unsigned long long kib = 0;
    while (std::fgets(line, sizeof line, f) != nullptr) {
      if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) { available = kib * 1024ull; }
    }
    std::fclose(f);
  }
  unsigned long long limit = 0;
  unsigned long long used = 0;
  std::FILE* max = std::fopen("/sys/fs/cgroup/memory.max", "r");
  std::FILE* cur = std::fopen("/sys/fs/cgroup/memory.current", "r");
  if (max != nullptr && cur != nullptr && std::fscanf(max, "%llu", &limit) == 1 &&
      std::fscanf(cur, "%llu", &used) == 1 && limit > used) {
    available = available == 0 ? limit - used : std::min<std::uint64_t>(available, limit - used);
  }
  if (max != nullptr) { std::fclose(max); }
  if (cur != nullptr) { std::fclose(cur); }
  return available;
}

/// Refuses (exit 2) a preset whose graph and features cannot fit in the host memory available,
/// before anything is generated: features (fp32), edge ids, indptr copy, labels. A lower bound
/// (the process, CUDA and the CPU-centric path need more), so it never refuses a run that fits.
void check_host_memory(const demo_args& a)
{
  auto const shape = gnndirect::preset_options(a.preset, a.scale, a.seed);
  auto const nodes = static_cast<double>(shape.num_nodes);
  double const dim = static_cast<double>(a.feature_dim > 0 ? a.feature_dim : default_feature_dim(a.preset));
  double const index_bytes = shape.num_nodes - 1 <= std::numeric_limits<std::int32_t>::max() ? 4 : 8;
  double const features = nodes * dim * 4;
  double const edges = static_cast<double>(gnndirect::output_edge_count(shape)) * index_bytes;
  double const needed = features + edges + nodes * (8 + sizeof(label_type));
  double const available = static_cast<double>(available_host_bytes());
  if (available > 0 && needed > available) {
    std::fprintf(stderr,
                 "demo: --preset %s --scale %g needs at least %.1f GB of host memory (features %.1f GB,\n"
                 "      edges %.1f GB), and %.1f GB are available: use a smaller --scale (about %.2f\n"
                 "      fits) or --feature-dim\n",
                 a.preset_name.c_str(), a.scale, needed / 1e9, features / 1e9, edges / 1e9,
                 available / 1e9, a.scale * available / needed * 0.9);
    std::exit(2);
  }
}

// ---------------------------------------------------------------------------------------------
// Progress on stderr: a bar for phases with a known total, elapsed seconds otherwise. Redrawn in
// place on a terminal; one line at the start and one at the end in logs.

bool stderr_is_terminal() { return isatty(fileno(stderr)) != 0; }

double seconds_since(clock_type::time_point start)
{
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

class progress_bar {
 public:
  progress_bar(std::string label, std::int64_t total)
    : label_(std::move(label)), total_(std::max<std::int64_t>(total, 1)), start_(clock_type::now()),
      terminal_(stderr_is_terminal())
  {
    if (!terminal_) { std::fprintf(stderr, "%s ...\n", label_.c_str()); }
  }

  /// Redraws at most ten times a second.
  void update(std::int64_t done)
  {
    if (!terminal_) { return; }
    auto const now = clock_type::now();
    if (done < total_ && now - last_ < std::chrono::milliseconds(100)) { return; }
    last_ = now;
    int const width = 30;
    auto const filled = static_cast<int>(width * std::min(done, total_) / total_);
    std::fprintf(stderr, "\r%-28s [%s%s] %lld/%lld %6.1f s", label_.c_str(),
                 std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), '.').c_str(),
                 static_cast<long long>(done), static_cast<long long>(total_), seconds_since(start_));
    std::fflush(stderr);
  }

  /// Ends the bar with the elapsed time.
  void finish()
  {
    if (terminal_) { std::fprintf(stderr, "\n"); }
    std::fprintf(stderr, "%s: done in %.1f s\n", label_.c_str(), seconds_since(start_));
  }

 private:
  std::string label_;
  std::int64_t total_;
  clock_type::time_point start_;
  clock_type::time_point last_{};
  bool terminal_;
};

/// Shows the elapsed time of a phase whose length is unknown (one blocking call) from a thread.
class elapsed_ticker {
 public:
  explicit elapsed_ticker(std::string label) : label_(std::move(label)), start_(clock_type::now())
  {
    std::fprintf(stderr, "%s ...%s", label_.c_str(), stderr_is_terminal() ? "" : "\n");
    if (stderr_is_terminal()) { thread_ = std::thread([this] { tick(); }); }
  }
  elapsed_ticker(const elapsed_ticker&) = delete;
  elapsed_ticker& operator=(const elapsed_ticker&) = delete;
  ~elapsed_ticker()
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) { thread_.join(); }
    std::fprintf(stderr, "%s%s: done in %.1f s\n", stderr_is_terminal() ? "\r" : "", label_.c_str(),
                 seconds_since(start_));
  }

 private:
  void tick()
  {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(500), [this] { return done_; })) {
      std::fprintf(stderr, "\r%s ... %.1f s", label_.c_str(), seconds_since(start_));
      std::fflush(stderr);
    }
  }

  std::string label_;
  clock_type::time_point start_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_{false};
  std::thread thread_;
};

// ---------------------------------------------------------------------------------------------
// Measurements

/// User + system CPU seconds of the whole process (all threads) so far.
double process_cpu_seconds()
{
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto const seconds = [](timeval t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

/// Wall-clock time now in seconds since the Unix epoch: the time base of an external power log
/// (nvidia-smi's timestamps, a RAPL sampler), unlike the steady clock the durations use.
double unix_now()
{
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// Wall time and CPU time of one epoch, measured from construction to stop().
class epoch_meter {
 public:
  epoch_meter() : start_(clock_type::now()), cpu_start_(process_cpu_seconds()) {}
  void stop()
  {
    seconds = seconds_since(start_);
    core_seconds = process_cpu_seconds() - cpu_start_;
  }
  double seconds{0};
  double core_seconds{0};

 private:
  clock_type::time_point start_;
  double cpu_start_;
};

/// Median pinned host-to-device cudaMemcpy bandwidth of 256 MiB, in bytes/s: the link peak that
/// every path is compared with, measured in this run.
double measure_link_peak()
{
  std::size_t const bytes = std::size_t{256} << 20;
  gnndirect::buffer<std::byte> host(bytes, memory_kind::pinned);
  gnndirect::buffer<std::byte> device(bytes, memory_kind::device);
  std::memset(host.host_data(), 1, bytes);
  cudaEvent_t start{};
  cudaEvent_t stop{};
  GNNDIRECT_CUDA_TRY(cudaEventCreate(&start));
  GNNDIRECT_CUDA_TRY(cudaEventCreate(&stop));
  std::vector<double> rates;
  for (int i = 0; i < 8; ++i) {
    GNNDIRECT_CUDA_TRY(cudaEventRecord(start));
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(device.data(), host.host_data(), bytes, cudaMemcpyHostToDevice));
    GNNDIRECT_CUDA_TRY(cudaEventRecord(stop));
    GNNDIRECT_CUDA_TRY(cudaEventSynchronize(stop));
    float ms = 0;
    GNNDIRECT_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
    if (i > 0) { rates.push_back(static_cast<double>(bytes) / (1e-3 * ms)); }  // first: warm-up
  }
  GNNDIRECT_CUDA_TRY(cudaEventDestroy(start));
  GNNDIRECT_CUDA_TRY(cudaEventDestroy(stop));
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

// ---------------------------------------------------------------------------------------------
// Data set: graph, features and labels generated on the GPU

__host__ __device__ inline std::uint64_t mix64(std::uint64_t x)
{
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// data[i] = a deterministic pseudo-random value in [-1, 1) of element first + i.
__global__ void fill_features_kernel(float* data, std::int64_t first, std::int64_t count, std::uint64_t seed)
{
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t const bits = mix64(seed ^ static_cast<std::uint64_t>(first + i)) >> 40;
    data[i] = static_cast<float>(bits) * (2.0f / 16777216.0f) - 1.0f;
  }
}

/// labels[v] = a deterministic class in [0, classes).
__global__ void fill_labels_kernel(label_type* labels, std::int64_t n, std::uint64_t seed, int classes)
{
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < n;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    labels[v] = static_cast<label_type>(mix64(seed ^ ~static_cast<std::uint64_t>(v)) % static_cast<std::uint64_t>(classes));
  }
}

/// Neighbour-list bytes sampling must read over the link for these dst nodes, when the indices
/// are host-resident: per node min(lines of its list, draws) 128-byte lines (a draw reads one
/// line; a short list is read whole). A lower bound: lists that straddle a line read one more.
template <class Offset, class Index>
__global__ void neighbour_bytes_kernel(const Offset* indptr, const Index* dst, std::int64_t n, int fanout,
                                       unsigned long long* total)
{
  unsigned long long local = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    auto const v = static_cast<std::int64_t>(dst[i]);
    auto const degree = static_cast<std::int64_t>(indptr[v + 1] - indptr[v]);
    std::int64_t const lines = (degree * static_cast<std::int64_t>(sizeof(Index)) + 127) / 128;
    local += static_cast<unsigned long long>(std::min<std::int64_t>(lines, fanout)) * 128ull;
  }
  if (local != 0) { atomicAdd(total, local); }
}

unsigned grid_for(std::int64_t n)
{
  return static_cast<unsigned>(std::clamp<std::int64_t>((n + 255) / 256, 1, 4096));
}

template <class Index>
struct dataset {
  using graph_type = gnndirect::csr_graph<std::int64_t, Index>;
  graph_type graph;                     // indptr device, indices host-resident
  gnndirect::table<float> features;     // host-resident
  gnndirect::buffer<label_type> labels;  // device
  std::vector<std::int64_t> host_indptr;  // for the CPU-centric path
  std::vector<label_type> host_labels;
  std::vector<Index> training_ids;
  memory_kind host_kind{memory_kind::managed_host};

  /// A csr_view with host addresses for the CPU-centric sampler (indices are CPU-readable).
  gnndirect::csr_view<std::int64_t, Index> host_view() const
  {
    auto view = graph.view();
    view.indptr = host_indptr.data();
    view.indices = graph.indices().host_data();
    return view;
  }
};

int const num_classes = 172;

template <class Index>
dataset<Index> make_dataset(const demo_args& a, cudaStream_t stream, memory_kind host_kind)
{
  dataset<Index> d;
  d.host_kind = host_kind;
  auto const options = gnndirect::preset_options(a.preset, a.scale, a.seed);
  {
    elapsed_ticker const ticker("generating R-MAT graph on the GPU");
    // indptr in HBM: it is small (8 B per node) and read once per sampled node, and the sampling
    // probe (docs/design.md §3) ran with it there; the edge arrays live in host memory.
    d.graph = gnndirect::generate_csr<std::int64_t, Index>(
      stream, options, gnndirect::csr_placement{memory_kind::device, host_kind});
  }
  std::int64_t const n = d.graph.num_nodes();
  std::int64_t const dim = a.feature_dim;
  d.features = gnndirect::table<float>(n, dim, host_kind);
  {
    std::int64_t const total = n * dim;
    std::int64_t const chunk = std::int64_t{1} << 28;  // 1 GiB of fp32 per launch
    progress_bar bar("filling features on the GPU", (total + chunk - 1) / chunk);
    for (std::int64_t first = 0, step = 0; first < total; first += chunk, ++step) {
      std::int64_t const count = std::min(chunk, total - first);
      fill_features_kernel<<<grid_for(count), 256, 0, stream>>>(d.features.view().data + first, first,
                                                                count, a.seed);
      GNNDIRECT_CUDA_TRY(cudaGetLastError());
      GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
      bar.update(step + 1);
    }
    bar.finish();
  }
  d.labels = gnndirect::buffer<label_type>(static_cast<std::size_t>(n), memory_kind::device);
  fill_labels_kernel<<<grid_for(n), 256, 0, stream>>>(d.labels.data(), n, a.seed, num_classes);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  d.host_labels.resize(static_cast<std::size_t>(n));
  d.host_indptr.resize(static_cast<std::size_t>(n) + 1);
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(d.host_labels.data(), d.labels.data(), d.labels.bytes(),
                                     cudaMemcpyDeviceToHost, stream));
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(d.host_indptr.data(), d.graph.indptr().data(),
                                     d.graph.indptr().bytes(), cudaMemcpyDeviceToHost, stream));
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
  // Training nodes spread evenly over the id range; R-MAT ids are scrambled, so this is a random
  // sample with respect to degree.
  std::int64_t const train = a.train_nodes > 0 ? std::min(a.train_nodes, n)
                                               : default_train_nodes(a.preset, a.scale, n);
  d.training_ids.resize(static_cast<std::size_t>(train));
  for (std::int64_t i = 0; i < train; ++i) {
    d.training_ids[static_cast<std::size_t>(i)] = static_cast<Index>(i * n / train);
  }
  return d;
}

// ---------------------------------------------------------------------------------------------
// Paths

struct path_result {
  explicit path_result(std::string name_) : name(std::move(name_)) {}
  std::string name;
  double seconds{0};
  double core_seconds{0};
  std::int64_t batches{0};
  std::uint64_t feature_bytes{0};
  std::uint64_t link_bytes{0};  // gnndirect, graph-in-hbm: bytes that must cross the host link
  double start_unix_s{0};       // wall-clock start of the first timed epoch
  double end_unix_s{0};         // wall-clock end of the last timed epoch
  int workers{0};               // pipeline paths: the worker count and depth they ran with
  int depth{0};
  bool sweep_entry{false};      // one combination of a --workers/--depth sweep
  bool ran{false};
  std::string note;
};

/// One table row of `r` (defined with the report below); `width` of the name column.
void print_result_line(const path_result& r, const path_result* cpu, int width = 12);

gnndirect::pipeline_options pipeline_options_for(const demo_args& a)
{
  gnndirect::pipeline_options options;
  options.fanouts = a.fanouts;
  options.batch_size = a.batch_size;
  options.sampling.seed = a.seed;
  options.sampling.tile_size = 32;
  options.shuffle_seed = a.seed;
  options.depth = a.depth;
  options.workers = a.workers;
  return options;
}

std::int64_t batches_per_epoch(const demo_args& a, std::int64_t train)
{
  std::int64_t const all = (train + a.batch_size - 1) / a.batch_size;
  return a.max_batches > 0 ? std::min(all, a.max_batches) : all;
}

/// Runs the pipeline on the given views for the configured epochs; the consumer only waits for
/// each batch (and, when counting, enqueues the link-byte model kernel) and releases it.
template <class Index>
path_result run_pipeline_path(const std::string& name, const demo_args& a, const dataset<Index>& d,
                              const gnndirect::csr_view<std::int64_t, Index>& graph,
                              gnndirect::table_view<const float> features, bool count_link_bytes,
                              std::size_t cache_bytes = 0)
{
  path_result result{name};
  auto const consumer = gnndirect::detail::make_non_blocking_stream();
  gnndirect::buffer<unsigned long long> link_bytes(1, memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemsetAsync(link_bytes.data(), 0, sizeof(unsigned long long), consumer.get()));
  gnndirect::pipeline_options options = pipeline_options_for(a);
  options.cache_bytes = cache_bytes;
  gnndirect::minibatch_pipeline<std::int64_t, Index, float, label_type> pipeline(
    graph, features, d.labels.data(), d.training_ids, options);
  std::int64_t const batches = batches_per_epoch(a, static_cast<std::int64_t>(d.training_ids.size()));
  result.workers = a.workers;
  result.depth = a.depth;
  for (int epoch = 0; epoch < a.epochs; ++epoch) {
    progress_bar bar(name + " epoch " + std::to_string(epoch), batches);
    if (epoch == 0) { result.start_unix_s = unix_now(); }
    epoch_meter meter;
    pipeline.start_epoch(epoch);
    result.feature_bytes = 0;
    for (std::int64_t b = 0; b < batches; ++b) {
      auto* batch = pipeline.next(consumer.get());
      if (batch == nullptr) { break; }
      result.feature_bytes += batch->feature_bytes;
      for (std::size_t l = 0; count_link_bytes && l < batch->blocks.layers.size(); ++l) {
        auto const& layer = batch->blocks.layers[l];
        neighbour_bytes_kernel<<<grid_for(layer.num_dst()), 256, 0, consumer.get()>>>(
          graph.indptr, layer.dst_nodes.data(), layer.num_dst(), a.fanouts[l], link_bytes.data());
        GNNDIRECT_CUDA_TRY(cudaGetLastError());
      }
      pipeline.release(batch, consumer.get());
      bar.update(b + 1);
    }
    GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));
    meter.stop();
    result.end_unix_s = unix_now();
    bar.finish();
    result.seconds = meter.seconds;
    result.core_seconds = meter.core_seconds;
    result.batches = batches;
    if (count_link_bytes) {
      unsigned long long neighbour_bytes = 0;
      GNNDIRECT_CUDA_TRY(cudaMemcpy(&neighbour_bytes, link_bytes.data(), sizeof(neighbour_bytes),
                                    cudaMemcpyDeviceToHost));
      GNNDIRECT_CUDA_TRY(cudaMemsetAsync(link_bytes.data(), 0, sizeof(unsigned long long), consumer.get()));
      result.link_bytes = neighbour_bytes + result.feature_bytes;
    }
  }
  result.ran = true;
  return result;
}

/// Device copies of one batch prepared on the host (what a CPU-centric loader hands to training).
template <class Index>
struct uploaded_batch {
  std::vector<gnndirect::buffer<Index>> ids;
  std::vector<gnndirect::buffer<std::int64_t>> offsets;
  std::vector<gnndirect::buffer<std::int64_t>> edge_ids;
  gnndirect::buffer<float> features;
  gnndirect::buffer<label_type> labels;
};

template <class T, class Allocator>
gnndirect::buffer<T> upload(cudaStream_t stream, cudaMemPool_t pool, const std::vector<T, Allocator>& host)
{
  gnndirect::buffer<T> device(host.size(), stream, pool);
  if (!host.empty()) {
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(device.data(), host.data(), device.bytes(), cudaMemcpyHostToDevice, stream));
  }
  return device;
}

/// Samples batch `b` of an epoch's shuffled `order` on the CPU into `blocks`, with the seeds and
/// the per-batch key the pipeline uses; returns the batch's seed count.
template <class Index>
std::int64_t sample_host_batch(gnndirect::host::cpu_sampler& sampler, const demo_args& a,
                               const gnndirect::csr_view<std::int64_t, Index>& graph,
                               const std::vector<Index>& order, const gnndirect::sampling_policy& base,
                               int epoch, std::int64_t b, gnndirect::host::cpu_blocks<std::int64_t, Index>& blocks)
{
  std::int64_t const first = b * a.batch_size;
  std::int64_t const n = std::min(a.batch_size, static_cast<std::int64_t>(order.size()) - first);
  gnndirect::sampling_policy policy = base;
  policy.seed = gnndirect::batch_sampling_seed(base.seed, epoch, b);
  sampler.sample_blocks(graph, order.data() + first, n, a.fanouts, policy, blocks);
  return n;
}

/// The CPU-centric loader: fast host sampling on all cores, then the feature gather double
/// buffered with its copies to the GPU, blocks and labels copied. Same seed nodes in the same
/// order as the pipeline; the stream is synchronised once per epoch, not per batch.
template <class Index>
path_result run_cpu_path(const demo_args& a, const dataset<Index>& d)
{
  path_result result{"cpu-centric"};
  auto const stream = gnndirect::detail::make_non_blocking_stream();
  auto const pool = gnndirect::detail::make_retaining_pool(gnndirect::require_device());
  auto const graph = d.host_view();
  gnndirect::table_view<const float> const host_features = d.features.host_view();
  std::int64_t const dim = host_features.cols;
  gnndirect::host::cpu_sampler sampler;                          // all cores, persistent threads
  gnndirect::host::staged_gather<float> staged(std::size_t{16} << 20);  // 2 x 16 MiB pinned
  gnndirect::host::cpu_blocks<std::int64_t, Index> blocks;       // reused: no per-batch allocation
  std::int64_t const epoch_batches = batches_per_epoch(a, static_cast<std::int64_t>(d.training_ids.size()));
  std::int64_t const batches = a.cpu_max_batches > 0 ? std::min(epoch_batches, a.cpu_max_batches) : epoch_batches;
  gnndirect::pipeline_options const options = pipeline_options_for(a);
  for (int epoch = 0; epoch < a.epochs; ++epoch) {
    progress_bar bar("cpu-centric epoch " + std::to_string(epoch), batches);
    if (epoch == 0) { result.start_unix_s = unix_now(); }
    epoch_meter meter;
    std::vector<Index> order = d.training_ids;
    gnndirect::shuffle_epoch(order, options.shuffle_seed, epoch);
    result.feature_bytes = 0;
    for (std::int64_t b = 0; b < batches; ++b) {
      std::int64_t const first = b * a.batch_size;
      std::int64_t const n = sample_host_batch(sampler, a, graph, order, options.sampling, epoch, b, blocks);
      auto const& inputs = blocks.input_nodes();
      auto const n_in = static_cast<std::int64_t>(inputs.size());
      std::vector<label_type> labels(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        labels[static_cast<std::size_t>(i)] =
          d.host_labels[static_cast<std::size_t>(order[static_cast<std::size_t>(first + i)])];
      }
      uploaded_batch<Index> up;  // freed stream-ordered at the end of the iteration
      for (auto const& layer : blocks.layers) {
        // Pageable sources: cudaMemcpyAsync returns once the bytes are staged, so `blocks` may be
        // overwritten by the next batch.
        up.ids.push_back(upload(stream.get(), pool.get(), layer.src_nodes));
        up.ids.push_back(upload(stream.get(), pool.get(), layer.indices));
        up.offsets.push_back(upload(stream.get(), pool.get(), layer.offsets));
        up.edge_ids.push_back(upload(stream.get(), pool.get(), layer.edge_ids));
      }
      up.features = gnndirect::buffer<float>(static_cast<std::size_t>(n_in * dim), stream.get(), pool.get());
      // Pieces of 16 MiB alternate between the two pinned buffers: the gather of one overlaps
      // the copy of the other, and the last copy overlaps the next batch's sampling.
      staged.gather(sampler.pool(), host_features, inputs.data(), n_in, up.features.data(), stream.get());
      up.labels = upload(stream.get(), pool.get(), labels);
      result.feature_bytes += static_cast<std::uint64_t>(n_in) * host_features.row_bytes();
      bar.update(b + 1);
    }
    GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream.get()));  // the epoch ends when its data has landed
    meter.stop();
    result.end_unix_s = unix_now();
    bar.finish();
    // With --cpu-max-batches the epoch is extrapolated from the batches that ran (batches are
    // statistically alike: same size, same fanouts, shuffled seeds).
    double const scale = static_cast<double>(epoch_batches) / static_cast<double>(std::max<std::int64_t>(batches, 1));
    result.seconds = meter.seconds * scale;
    result.core_seconds = meter.core_seconds * scale;
    result.feature_bytes = static_cast<std::uint64_t>(static_cast<double>(result.feature_bytes) * scale);
    result.batches = epoch_batches;
    if (batches < epoch_batches) {
      result.note = "extrapolated from " + std::to_string(batches) + " of " + std::to_string(epoch_batches) + " batches";
    }
  }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream.get()));
  result.ran = true;
  return result;
}

/// Why a path that copies `needed` bytes into device memory cannot run: they do not fit in the
/// device's free memory with headroom for the pipeline's pool, CUB and the CUDA context. Empty
/// when they fit.
std::optional<std::string> does_not_fit(std::size_t needed, const char* what)
{
  std::size_t const headroom = std::size_t{8} << 30;
  std::size_t const free_bytes = gnndirect::device_memory().free_bytes;
  if (needed + headroom <= free_bytes) { return std::nullopt; }
  return std::string("skipped: ") + what + " (" + std::to_string(needed >> 20) + " MiB) do not fit in " +
         std::to_string(free_bytes >> 20) + " MiB free device memory with headroom";
}

/// A path that did not run, and why.
path_result skipped_path(const std::string& name, std::string why)
{
  path_result skipped{name};
  skipped.note = std::move(why);
  return skipped;
}

/// The dataset's graph with its neighbour lists at `device_indices` (a device copy).
template <class Index>
gnndirect::csr_view<std::int64_t, Index> graph_with_device_indices(const dataset<Index>& d,
                                                                  const Index* device_indices)
{
  auto graph = d.graph.view();
  graph.indices = device_indices;
  graph.indices_kind = memory_kind::device;
  return graph;
}

/// A device copy of `host`'s bytes (synchronous on `stream`).
template <class T>
gnndirect::buffer<T> device_copy(const T* host, std::size_t count, cudaStream_t stream)
{
  gnndirect::buffer<T> copy(count, memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(copy.data(), host, copy.bytes(), cudaMemcpyDefault, stream));
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
  return copy;
}

/// Copies graph and features into device memory (when they fit) and runs the same pipeline.
template <class Index>
path_result run_gpu_path(const demo_args& a, const dataset<Index>& d, cudaStream_t stream)
{
  if (auto why = does_not_fit(d.graph.indices().bytes() + d.features.bytes(), "graph + features")) {
    return skipped_path("all-in-gpu", *why);
  }
  gnndirect::buffer<Index> indices;
  gnndirect::buffer<float> features;
  {
    elapsed_ticker const ticker("copying graph and features into GPU memory");
    indices = device_copy(d.graph.indices().data(), d.graph.indices().size(), stream);
    features = device_copy(d.features.view().data,
                           static_cast<std::size_t>(d.features.rows() * d.features.cols()), stream);
  }
  gnndirect::table_view<const float> const table(features.data(), d.features.rows(), d.features.cols(),
                                                 d.features.cols(), memory_kind::device);
  return run_pipeline_path("all-in-gpu", a, d, graph_with_device_indices(d, indices.data()), table, false);
}

/// gnndirect with the neighbour lists copied into HBM and the features left in host memory: only
/// feature rows cross the link, so this epoch against its own floor (feature bytes at the link
/// peak) separates the feature gather's share of gnndirect's gap from the sampling reads'.
template <class Index>
path_result run_graph_hbm_path(const demo_args& a, const dataset<Index>& d, cudaStream_t stream)
{
  if (auto why = does_not_fit(d.graph.indices().bytes(), "the neighbour lists")) {
    return skipped_path("graph-in-hbm", *why);
  }
  gnndirect::buffer<Index> indices;
  {
    elapsed_ticker const ticker("copying the neighbour lists into GPU memory");
    indices = device_copy(d.graph.indices().data(), d.graph.indices().size(), stream);
  }
  path_result result = run_pipeline_path("graph-in-hbm", a, d, graph_with_device_indices(d, indices.data()),
                                         d.features.view(), false);
  result.link_bytes = result.feature_bytes;  // its floor: the feature rows alone
  return result;
}

/// The gnndirect path over every --workers x --depth combination (the caller checked that there
/// is more than one), on the same data: a short untimed warm-up first, so that the first
/// combination does not pay for first touches (pool growth, page mappings) alone. Appends one
/// result per combination ("gnndirect w=W d=D") and then the fastest one's copy named "gnndirect";
/// sets a.workers and a.depth to the fastest combination for the paths that follow.
template <class Index>
void run_gnndirect_sweep(demo_args& a, const dataset<Index>& d, bool count_link_bytes,
                         std::vector<path_result>& results)
{
  {
    demo_args warm = a;
    warm.epochs = 1;
    warm.max_batches = std::min<std::int64_t>(batches_per_epoch(a, static_cast<std::int64_t>(d.training_ids.size())), 32);
    (void)run_pipeline_path("warm-up", warm, d, d.graph.view(), d.features.view(), false);
  }
  std::size_t best = results.size();
  for (int w : a.workers_list) {
    for (int depth : a.depth_list) {
      demo_args combo = a;
      combo.workers = w;
      combo.depth = depth;
      std::string const name = "gnndirect w=" + std::to_string(w) + " d=" + std::to_string(depth);
      path_result r = run_pipeline_path(name, combo, d, d.graph.view(), d.features.view(), count_link_bytes);
      r.sweep_entry = true;
      print_result_line(r, nullptr, 20);
      if (best == results.size() || r.seconds < results[best].seconds) { best = results.size(); }
      results.push_back(std::move(r));
    }
  }
  path_result chosen = results[best];
  chosen.name = "gnndirect";
  chosen.sweep_entry = false;
  chosen.note = "fastest of " + std::to_string(a.workers_list.size() * a.depth_list.size()) +
                " combinations: --workers " + std::to_string(chosen.workers) + " --depth " +
                std::to_string(chosen.depth);
  a.workers = chosen.workers;
  a.depth = chosen.depth;
  results.push_back(std::move(chosen));
}

/// Per-epoch totals of the feature transfer alone (path "transfer").
struct transfer_result {
  bool ran{false};
  std::string note;
  std::int64_t batches{0};      // batches per epoch
  std::int64_t batches_run{0};  // batches measured (the totals are extrapolated from them)
  double rows{0};               // feature rows per epoch (both methods move the same rows)
  double bytes{0};              // feature bytes per epoch
  double gnndirect_seconds{0};  // sum of the per-batch gathers (CUDA events)
  double cpu_seconds{0};        // sum of the per-batch staged gathers (wall, to completion)
  double gnndirect_core_seconds{0};
  double cpu_core_seconds{0};
  double start_unix_s{0};
  double end_unix_s{0};
  bool verified{false};  // the first batch's rows were identical from both methods
};

/// Device buffers of the transfer path, grown to the largest batch seen.
template <class Index>
struct transfer_buffers {
  std::int64_t capacity{0};  // rows
  gnndirect::buffer<Index> ids;
  gnndirect::buffer<float> direct;
  gnndirect::buffer<float> staged;
  gnndirect::buffer<unsigned char> workspace;

  void reserve(std::int64_t rows, std::int64_t dim, const gnndirect::table_view<const float>& table,
               const gnndirect::gather_policy& policy)
  {
    if (rows <= capacity) { return; }
    capacity = rows + rows / 4;
    auto const n = static_cast<std::size_t>(capacity);
    ids = gnndirect::buffer<Index>(n, memory_kind::device);
    direct = gnndirect::buffer<float>(n * static_cast<std::size_t>(dim), memory_kind::device);
    staged = gnndirect::buffer<float>(n * static_cast<std::size_t>(dim), memory_kind::device);
    workspace = gnndirect::buffer<unsigned char>(
      gnndirect::gather_workspace_bytes<Index>(capacity, table.rows, table.kind, table.row_bytes(), policy),
      memory_kind::device);
  }
};

/// Compares the first rows of both methods' outputs (a transfer that moved the wrong bytes fast
/// must not win the table).
template <class Index>
bool same_rows(const transfer_buffers<Index>& buf, std::int64_t rows, std::int64_t dim)
{
  auto const count = static_cast<std::size_t>(std::min<std::int64_t>(rows, 4096) * dim);
  std::vector<float> direct(count);
  std::vector<float> staged(count);
  GNNDIRECT_CUDA_TRY(cudaMemcpy(direct.data(), buf.direct.data(), count * sizeof(float), cudaMemcpyDeviceToHost));
  GNNDIRECT_CUDA_TRY(cudaMemcpy(staged.data(), buf.staged.data(), count * sizeof(float), cudaMemcpyDeviceToHost));
  return std::memcmp(direct.data(), staged.data(), count * sizeof(float)) == 0;
}

/// Times gnndirect's gather of `n` rows (ids already in device memory) from the host-resident
/// table into device memory with CUDA events, as the pipeline enqueues it (gather_async with the
/// pipeline's policy); the index check that follows is not timed. Adds to the result's totals.
template <class Index>
void time_direct_gather(transfer_result& r, transfer_buffers<Index>& buf, gnndirect::table_view<const float> table,
                        std::int64_t n, const gnndirect::gather_policy& policy, cudaStream_t stream,
                        cudaEvent_t start, cudaEvent_t stop)
{
  gnndirect::table_view<float> const out(buf.direct.data(), n, table.cols, table.cols, memory_kind::device);
  gnndirect::workspace_view const ws{buf.workspace.data(), buf.workspace.bytes()};
  double const cpu0 = process_cpu_seconds();
  GNNDIRECT_CUDA_TRY(cudaEventRecord(start, stream));
  gnndirect::gather_async(stream, table, buf.ids.data(), n, out, ws, policy);
  GNNDIRECT_CUDA_TRY(cudaEventRecord(stop, stream));
  GNNDIRECT_CUDA_TRY(cudaEventSynchronize(stop));
  r.gnndirect_core_seconds += process_cpu_seconds() - cpu0;
  float ms = 0;
  GNNDIRECT_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
  r.gnndirect_seconds += 1e-3 * static_cast<double>(ms);
  gnndirect::gather_check(stream, ws, table.rows);
}

/// Times the CPU-centric staged gather of the same rows (all cores gather into two pinned
/// buffers, each copied while the other fills), wall time until the last copy has landed.
template <class Index>
void time_staged_gather(transfer_result& r, transfer_buffers<Index>& buf,
                        gnndirect::host::staged_gather<float>& staged, gnndirect::host::worker_pool& pool,
                        gnndirect::table_view<const float> host_table, const Index* ids, std::int64_t n,
                        cudaStream_t stream)
{
  double const cpu0 = process_cpu_seconds();
  auto const t0 = clock_type::now();
  staged.gather(pool, host_table, ids, n, buf.staged.data(), stream);
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
  r.cpu_seconds += seconds_since(t0);
  r.cpu_core_seconds += process_cpu_seconds() - cpu0;
}

/// The feature transfer alone, per batch of an epoch: the batch's input nodes come from the
/// CPU-centric sampler and are uploaded (neither timed); then gnndirect's gather and the staged
/// gather move the same rows, in alternating order from batch to batch (whichever runs second
/// finds some rows in the CPU caches). With --cpu-max-batches the totals are extrapolated like
/// the cpu path's. Totals are those of the last epoch.
template <class Index>
transfer_result run_transfer_path(const demo_args& a, const dataset<Index>& d)
{
  transfer_result result;
  auto const stream = gnndirect::detail::make_non_blocking_stream();
  auto const graph = d.host_view();
  gnndirect::table_view<const float> const table = d.features.view();
  gnndirect::table_view<const float> const host_table = d.features.host_view();
  std::int64_t const dim = table.cols;
  gnndirect::host::cpu_sampler sampler;
  gnndirect::host::staged_gather<float> staged(std::size_t{16} << 20);  // as the cpu path's
  gnndirect::host::cpu_blocks<std::int64_t, Index> blocks;
  transfer_buffers<Index> buf;
  gnndirect::pipeline_options const options = pipeline_options_for(a);
  gnndirect::gather_policy const policy = options.gather;
  std::int64_t const epoch_batches = batches_per_epoch(a, static_cast<std::int64_t>(d.training_ids.size()));
  std::int64_t const batches = a.cpu_max_batches > 0 ? std::min(epoch_batches, a.cpu_max_batches) : epoch_batches;
  cudaEvent_t start{};
  cudaEvent_t stop{};
  GNNDIRECT_CUDA_TRY(cudaEventCreate(&start));
  GNNDIRECT_CUDA_TRY(cudaEventCreate(&stop));
  result.start_unix_s = unix_now();
  for (int epoch = 0; epoch < a.epochs; ++epoch) {
    progress_bar bar("transfer epoch " + std::to_string(epoch), batches);
    std::vector<Index> order = d.training_ids;
    gnndirect::shuffle_epoch(order, options.shuffle_seed, epoch);
    transfer_result totals;
    for (std::int64_t b = 0; b < batches; ++b) {
      sample_host_batch(sampler, a, graph, order, options.sampling, epoch, b, blocks);
      auto const& inputs = blocks.input_nodes();
      auto const n_in = static_cast<std::int64_t>(inputs.size());
      buf.reserve(n_in, dim, table, policy);
      GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(buf.ids.data(), inputs.data(), static_cast<std::size_t>(n_in) * sizeof(Index),
                                         cudaMemcpyHostToDevice, stream.get()));
      GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream.get()));
      for (int k = 0; k < 2; ++k) {
        if ((k == 0) == (b % 2 == 0)) {
          time_direct_gather(totals, buf, table, n_in, policy, stream.get(), start, stop);
        } else {
          time_staged_gather(totals, buf, staged, sampler.pool(), host_table, inputs.data(), n_in, stream.get());
        }
      }
      if (epoch == 0 && b == 0) { result.verified = same_rows(buf, n_in, dim); }
      totals.rows += static_cast<double>(n_in);
      bar.update(b + 1);
    }
    bar.finish();
    double const scale = static_cast<double>(epoch_batches) / static_cast<double>(std::max<std::int64_t>(batches, 1));
    result.rows = totals.rows * scale;
    result.bytes = result.rows * static_cast<double>(table.row_bytes());
    result.gnndirect_seconds = totals.gnndirect_seconds * scale;
    result.cpu_seconds = totals.cpu_seconds * scale;
    result.gnndirect_core_seconds = totals.gnndirect_core_seconds * scale;
    result.cpu_core_seconds = totals.cpu_core_seconds * scale;
  }
  result.end_unix_s = unix_now();
  GNNDIRECT_CUDA_TRY(cudaEventDestroy(start));
  GNNDIRECT_CUDA_TRY(cudaEventDestroy(stop));
  result.batches = epoch_batches;
  result.batches_run = batches;
  if (batches < epoch_batches) {
    result.note = "extrapolated from " + std::to_string(batches) + " of " + std::to_string(epoch_batches) + " batches";
  }
  result.ran = true;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Report

struct report_context {
  std::string device;
  std::string placement;
  std::int64_t nodes{0};
  std::int64_t edges{0};
  std::int64_t dim{0};
  std::int64_t train{0};
  std::string index_type;
  double link_peak{0};  // bytes/s
};

const path_result* find_path(const std::vector<path_result>& results, const std::string& name)
{
  for (auto const& r : results) {
    if (r.ran && r.name == name) { return &r; }
  }
  return nullptr;
}

void print_path_line(const path_result& r, const path_result* cpu, int width)
{
  double const gbps = static_cast<double>(r.feature_bytes) / r.seconds / 1e9;
  std::printf("%-*s %9.3f %10.1f %10.2f %10.2f %8.2f", width, r.name.c_str(), r.seconds,
              static_cast<double>(r.batches) / r.seconds, gbps, r.core_seconds, r.core_seconds / r.seconds);
  if (cpu != nullptr) {
    std::printf(" %9.2fx %10.2fx\n", cpu->seconds / r.seconds, cpu->core_seconds / std::max(r.core_seconds, 1e-9));
  } else {
    std::printf(" %10s %11s\n", "-", "-");
  }
}

/// One table row; a path that did not run prints why. `width`: of the name column.
void print_result_line(const path_result& r, const path_result* cpu, int width)
{
  if (r.ran) {
    print_path_line(r, cpu, width);
    if (!r.note.empty()) { std::printf("%-*s (%s)\n", width, "", r.note.c_str()); }
  } else {
    std::printf("%-*s %s\n", width, r.name.c_str(), r.note.c_str());
  }
}

void print_table(const report_context& ctx, const std::vector<path_result>& results)
{
  path_result const* cpu = find_path(results, "cpu-centric");
  int width = 12;  // wider only for the names of a sweep's combinations
  for (auto const& r : results) { width = std::max(width, static_cast<int>(r.name.size())); }
  std::printf("\n%-*s %9s %10s %10s %10s %8s %10s %11s\n", width, "path", "epoch s", "batches/s",
              "feat GB/s", "core-s", "cores", "speedup", "CPU saving");
  for (auto const& r : results) { print_result_line(r, cpu, width); }
  std::printf("(speedup and CPU saving: cpu-centric epoch time / path epoch time, cpu-centric "
              "core-seconds / path core-seconds)\n");
  if (path_result const* g = find_path(results, "gnndirect"); g != nullptr && g->link_bytes > 0) {
    double const floor_s = static_cast<double>(g->link_bytes) / ctx.link_peak;
    std::printf("gnndirect link floor: %.2f GB must cross the host link (features %.2f GB + "
                "neighbour lists %.2f GB) at %.1f GB/s = %.3f s; epoch time / link floor = %.2f\n",
                static_cast<double>(g->link_bytes) / 1e9, static_cast<double>(g->feature_bytes) / 1e9,
                static_cast<double>(g->link_bytes - g->feature_bytes) / 1e9, ctx.link_peak / 1e9,
                floor_s, g->seconds / floor_s);
  }
}

/// The transfer path's per-epoch totals and the reduction gnndirect brings.
void print_transfer(const transfer_result& t)
{
  std::printf("\nfeature transfer per epoch (%lld batches%s%s): %.0f rows, %.2f GB\n",
              static_cast<long long>(t.batches), t.note.empty() ? "" : ", ", t.note.c_str(), t.rows,
              t.bytes / 1e9);
  std::printf("  %-44s %9.3f s %8.2f GB/s %9.2f core-s\n", "gnndirect gather (GPU reads host rows)",
              t.gnndirect_seconds, t.bytes / t.gnndirect_seconds / 1e9, t.gnndirect_core_seconds);
  std::printf("  %-44s %9.3f s %8.2f GB/s %9.2f core-s\n", "cpu-centric staged gather (CPU gather + copy)",
              t.cpu_seconds, t.bytes / t.cpu_seconds / 1e9, t.cpu_core_seconds);
  std::printf("  gnndirect: %.1f%% less transfer time (cpu-centric / gnndirect = %.2fx); first batch's "
              "rows %s\n",
              100.0 * (1.0 - t.gnndirect_seconds / t.cpu_seconds), t.cpu_seconds / t.gnndirect_seconds,
              t.verified ? "identical from both" : "DIFFER between the two methods");
}

std::string json_escape(const std::string& text)
{
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') { out += '\\'; }
    out += c;
  }
  return out;
}

/// Writes the --workers/--depth sweep (when there was one) as the JSON member "sweep".
void write_json_sweep(std::FILE* out, const std::vector<path_result>& results, const path_result* chosen)
{
  bool first = true;
  for (auto const& r : results) {
    if (!r.sweep_entry) { continue; }
    std::fprintf(out,
                 "%s\n    {\"workers\": %d, \"depth\": %d, \"epoch_seconds\": %.6f, "
                 "\"batches_per_second\": %.3f, \"cpu_core_seconds\": %.3f, \"best\": %s}",
                 first ? ",\n  \"sweep\": [" : ",", r.workers, r.depth, r.seconds,
                 static_cast<double>(r.batches) / r.seconds, r.core_seconds,
                 chosen != nullptr && chosen->workers == r.workers && chosen->depth == r.depth ? "true" : "false");
    first = false;
  }
  if (!first) { std::fprintf(out, "\n  ]"); }
}

/// Writes the transfer path's totals as the JSON member "transfer" (when it ran or was skipped).
void write_json_transfer(std::FILE* out, const transfer_result& t)
{
  if (!t.ran) {
    if (!t.note.empty()) {
      std::fprintf(out, ",\n  \"transfer\": {\"ran\": false, \"note\": \"%s\"}", json_escape(t.note).c_str());
    }
    return;
  }
  std::fprintf(out,
               ",\n  \"transfer\": {\"ran\": true, \"batches\": %lld, \"batches_run\": %lld, "
               "\"rows\": %.0f, \"bytes\": %.0f,\n    \"gnndirect_seconds\": %.6f, \"cpu_centric_seconds\": %.6f, "
               "\"reduction_pct\": %.3f,\n    \"gnndirect_gbps\": %.3f, \"cpu_centric_gbps\": %.3f, "
               "\"gnndirect_core_seconds\": %.3f, \"cpu_centric_core_seconds\": %.3f,\n    "
               "\"start_unix_s\": %.3f, \"end_unix_s\": %.3f, \"verified\": %s",
               static_cast<long long>(t.batches), static_cast<long long>(t.batches_run), t.rows, t.bytes,
               t.gnndirect_seconds, t.cpu_seconds, 100.0 * (1.0 - t.gnndirect_seconds / t.cpu_seconds),
               t.bytes / t.gnndirect_seconds / 1e9, t.bytes / t.cpu_seconds / 1e9, t.gnndirect_core_seconds,
               t.cpu_core_seconds, t.start_unix_s, t.end_unix_s, t.verified ? "true" : "false");
  if (!t.note.empty()) { std::fprintf(out, ", \"note\": \"%s\"", json_escape(t.note).c_str()); }
  std::fprintf(out, "}");
}

/// Writes the results as JSON; false (after a message) when the file cannot be written.
bool write_json(const std::string& file, const demo_args& a, const report_context& ctx,
                const std::vector<path_result>& results, const transfer_result& transfer)
{
  std::FILE* out = std::fopen(file.c_str(), "w");
  if (out == nullptr) {
    std::fprintf(stderr, "demo: cannot write %s: %s\n", file.c_str(), std::strerror(errno));
    return false;
  }
  std::string fanouts;
  for (int f : a.fanouts) { fanouts += (fanouts.empty() ? "" : ",") + std::to_string(f); }
  std::fprintf(out,
               "{\n  \"device\": \"%s\",\n  \"placement\": \"%s\",\n  \"preset\": \"%s\",\n"
               "  \"scale\": %g,\n  \"nodes\": %lld,\n  \"edges\": %lld,\n  \"feature_dim\": %lld,\n"
               "  \"train_nodes\": %lld,\n  \"index_type\": \"%s\",\n  \"batch_size\": %lld,\n"
               "  \"fanouts\": [%s],\n  \"seed\": %llu,\n  \"workers\": %d,\n  \"depth\": %d,\n"
               "  \"link_peak_gbps\": %.3f,\n  \"paths\": [",
               json_escape(ctx.device).c_str(), ctx.placement.c_str(), a.preset_name.c_str(), a.scale,
               static_cast<long long>(ctx.nodes), static_cast<long long>(ctx.edges),
               static_cast<long long>(ctx.dim), static_cast<long long>(ctx.train),
               ctx.index_type.c_str(), static_cast<long long>(a.batch_size), fanouts.c_str(),
               static_cast<unsigned long long>(a.seed), a.workers, a.depth, ctx.link_peak / 1e9);
  bool first = true;
  for (auto const& r : results) {
    std::fprintf(out, "%s\n    {\"name\": \"%s\", \"ran\": %s", first ? "" : ",", r.name.c_str(),
                 r.ran ? "true" : "false");
    first = false;
    if (r.ran) {
      std::fprintf(out,
                   ", \"epoch_seconds\": %.6f, \"batches\": %lld, \"batches_per_second\": %.3f, "
                   "\"feature_bytes\": %llu, \"feature_gbps\": %.3f, \"cpu_core_seconds\": %.3f, "
                   "\"cpu_cores_busy\": %.3f",
                   r.seconds, static_cast<long long>(r.batches), static_cast<double>(r.batches) / r.seconds,
                   static_cast<unsigned long long>(r.feature_bytes),
                   static_cast<double>(r.feature_bytes) / r.seconds / 1e9, r.core_seconds,
                   r.core_seconds / r.seconds);
      std::fprintf(out, ", \"start_unix_s\": %.3f, \"end_unix_s\": %.3f", r.start_unix_s, r.end_unix_s);
      if (r.sweep_entry) { std::fprintf(out, ", \"workers\": %d, \"depth\": %d", r.workers, r.depth); }
      if (r.link_bytes > 0) {
        double const floor_s = static_cast<double>(r.link_bytes) / ctx.link_peak;
        std::fprintf(out, ", \"link_bytes\": %llu, \"link_floor_seconds\": %.6f, \"epoch_over_link_floor\": %.3f",
                     static_cast<unsigned long long>(r.link_bytes), floor_s, r.seconds / floor_s);
      }
    }
    if (!r.note.empty()) { std::fprintf(out, ", \"note\": \"%s\"", json_escape(r.note).c_str()); }
    std::fprintf(out, "}");
  }
  std::fprintf(out, "\n  ]");
  write_json_sweep(out, results, find_path(results, "gnndirect"));
  write_json_transfer(out, transfer);
  std::fprintf(out, "\n}\n");
  if (std::fclose(out) != 0) {
    std::fprintf(stderr, "demo: writing %s failed: %s\n", file.c_str(), std::strerror(errno));
    return false;
  }
  std::printf("results written to %s\n", file.c_str());
  return true;
}

// ---------------------------------------------------------------------------------------------

template <class Index>
int run(demo_args a, report_context ctx, gnndirect::placement_decision where)
{
  auto const stream = gnndirect::detail::make_non_blocking_stream();
  ctx.index_type = sizeof(Index) == 4 ? "int32" : "int64";
  dataset<Index> const d = make_dataset<Index>(a, stream.get(), where.kind);
  ctx.nodes = d.graph.num_nodes();
  ctx.edges = d.graph.num_edges();
  ctx.dim = a.feature_dim;
  ctx.train = static_cast<std::int64_t>(d.training_ids.size());
  std::printf("graph: %lld nodes, %lld edges (mean degree %.1f), %s ids; indptr in device memory "
              "(%.2f GB), indices in %s (%.2f GB)\n",
              static_cast<long long>(ctx.nodes), static_cast<long long>(ctx.edges),
              static_cast<double>(ctx.edges) / static_cast<double>(std::max<std::int64_t>(ctx.nodes, 1)),
              ctx.index_type.c_str(), static_cast<double>(d.graph.indptr().bytes()) / 1e9,
              gnndirect::to_string(where.kind).data(), static_cast<double>(d.graph.indices().bytes()) / 1e9);
  std::printf("features: %lld x %lld fp32 in %s (%.2f GB); labels in device memory; %lld training "
              "nodes, batch %lld -> %lld batches per epoch%s\n",
              static_cast<long long>(ctx.nodes), static_cast<long long>(ctx.dim),
              gnndirect::to_string(where.kind).data(), static_cast<double>(d.features.bytes()) / 1e9,
              static_cast<long long>(ctx.train), static_cast<long long>(a.batch_size),
              static_cast<long long>(batches_per_epoch(a, ctx.train)),
              a.max_batches > 0 ? " (capped by --max-batches)" : "");
  ctx.link_peak = measure_link_peak();
  std::printf("host link peak (pinned H2D cudaMemcpy, 256 MiB, median): %.1f GB/s\n\n", ctx.link_peak / 1e9);

  std::vector<path_result> results;
  transfer_result transfer;
  std::vector<std::string> paths = a.paths;
  if (a.sweeps()) {  // the sweep picks the combination the other pipeline paths then use
    std::stable_partition(paths.begin(), paths.end(), [](const std::string& p) { return p == "gnndirect"; });
  }
  for (auto const& path : paths) {
    if (path == "gnndirect" && a.sweeps()) {
      run_gnndirect_sweep(a, d, gnndirect::is_host_resident(where.kind), results);
    } else if (path == "gnndirect") {
      results.push_back(run_pipeline_path("gnndirect", a, d, d.graph.view(), d.features.view(),
                                          gnndirect::is_host_resident(where.kind)));
    } else if (path == "transfer" && !gnndirect::is_host_resident(where.kind)) {
      transfer.note = "skipped: the device cannot map host memory, so the data is not host-resident";
      std::printf("%-12s %s\n", "transfer", transfer.note.c_str());
      continue;
    } else if (path == "transfer") {
      transfer = run_transfer_path(a, d);
      print_transfer(transfer);
      continue;
    } else if (path == "cached") {
      auto const rows = static_cast<std::size_t>(static_cast<double>(d.features.rows()) * a.cache_pct / 100.0);
      results.push_back(run_pipeline_path("cached", a, d, d.graph.view(), d.features.view(), false,
                                          rows * d.features.view().row_bytes()));
    } else if (path == "cpu" && !gnndirect::is_host_resident(where.kind)) {
      results.push_back(skipped_path("cpu-centric", "skipped: the device cannot map host memory, so the "
                                                    "data is not host-resident"));
    } else if (path == "cpu") {
      results.push_back(run_cpu_path(a, d));
    } else if (path == "gpu") {
      results.push_back(run_gpu_path(a, d, stream.get()));
    } else if (path == "graph-hbm" && !gnndirect::is_host_resident(where.kind)) {
      results.push_back(skipped_path("graph-in-hbm", "skipped: the device cannot map host memory, so the "
                                                     "features are not host-resident"));
    } else if (path == "graph-hbm") {
      results.push_back(run_graph_hbm_path(a, d, stream.get()));
    }
    print_result_line(results.back(), nullptr);
  }
  print_table(ctx, results);
  if (transfer.ran) { print_transfer(transfer); }
  if (!a.json.empty() && !write_json(a.json, a, ctx, results, transfer)) { return 1; }
  return 0;
}

}  // namespace

int main(int argc, char** argv)
{
  demo_args a = parse_args(argc, argv);
  check_host_memory(a);
  if (gnndirect::device_count() == 0) {
    std::fprintf(stderr, "demo: no CUDA device found; this demo needs an NVIDIA GPU and driver.\n");
    return 1;
  }
  // Threads that wait for the GPU sleep instead of spinning: the demo counts CPU core-seconds.
  cudaError_t const flags = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
  if (flags != cudaSuccess) {
    (void)cudaGetLastError();
    std::fprintf(stderr, "demo: warning: cudaSetDeviceFlags(BlockingSync) failed: %s\n",
                 cudaGetErrorName(flags));
  }
  try {
    int const device = gnndirect::require_device();
    cudaDeviceProp props{};
    GNNDIRECT_CUDA_TRY(cudaGetDeviceProperties(&props, device));
    auto const where = gnndirect::choose_host_placement();
    std::printf("device %d: %s, %d SMs, %.1f GiB\n", device, props.name, props.multiProcessorCount,
                static_cast<double>(props.totalGlobalMem) / (1u << 30));
    std::printf("auto placement for host-resident data: %s (%s)\n", gnndirect::to_string(where.kind).data(),
                where.reason);
    if (a.feature_dim < 0) { a.feature_dim = default_feature_dim(a.preset); }
    report_context ctx;
    ctx.device = props.name;
    ctx.placement = std::string(gnndirect::to_string(where.kind));
    auto const shape = gnndirect::preset_options(a.preset, a.scale, a.seed);
    std::printf("preset %s x %g, batch %lld, fanouts", a.preset_name.c_str(), a.scale,
                static_cast<long long>(a.batch_size));
    for (int f : a.fanouts) { std::printf(" %d", f); }
    std::printf(", %d epoch(s)\n", a.epochs);
    if (shape.num_nodes - 1 <= std::numeric_limits<std::int32_t>::max()) {
      return run<std::int32_t>(a, ctx, where);
    }
    return run<std::int64_t>(a, ctx, where);
  } catch (const gnndirect::error& e) {
    std::fprintf(stderr, "demo: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "demo: %s\n", e.what());
    return 1;
  }
}
