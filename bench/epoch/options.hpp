#pragma once
// The epoch benchmark (bench/epoch/epoch.cu), command line: the demo's options, presets and the host-memory check.
#include <gnndirect/algorithms/codec_choice.hpp>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/owners/encoded_table.hpp>
#include <gnndirect/owners/host_memory.hpp>

#include "common.hpp"

#include <cmath>
#include <type_traits>

namespace gnndirect_demo {

// ---------------------------------------------------------------------------------------------
// Command line

/// The demo's feature-gather block cap: it prepares batches with nothing else on the GPU, where
/// wide gathers win (H200, docs/performance.md §4: papers100M 2.47 s per epoch with the
/// selector's 32 blocks, 2.21 s with 256, 2.21 s with a full grid; products 0.43 s with 32, 0.31 s
/// with a full grid). The library's default stays 32 because beside training wide gathers cost.
inline constexpr int demo_gather_max_blocks = 256;

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
  std::vector<int> gather_max_blocks_list{demo_gather_max_blocks};  // --gather-max-blocks: likewise (0: the selector's)
  bool pipeline_given{false};  // --workers or --depth on the command line (else the preset's)
  int workers{2};  // pipeline worker threads in use (gnndirect, cached and all-in-gpu paths)
  int depth{3};    // pipeline batches in flight in use (after a sweep: the best combination's)
  int gather_max_blocks{demo_gather_max_blocks};  // thread-block cap of the feature gathers in use
  int sampling_max_blocks{0};  // --sampling-max-blocks: thread-block cap of the pipelines' sampling (0: none)
  std::string json;
  std::string codec{"fp32"};  // --codec: row codec of the features the codec paths read (codec_applies_to)
  std::optional<int> gather_priority;  // --gather-priority -1|0|1 (none: the library's default_gather_priority)
  int calibrate_gather{-1};    // --calibrate-gather 0|1 (-1: the library's default_calibrate_gather)
  std::string gather_order{"auto"};  // --gather-order auto|none|sorted: the feature gathers' locality order
  std::string timeline;              // --timeline FILE: per-path timelines of one more epoch (FILE-<path>.json)
  std::vector<std::string> overlap_variants;  // --overlap-sweep: the variants to run (empty: no sweep)
  std::vector<std::string> timeline_variants;  // --timeline-variants: the sweep's variants recorded (empty: all)

  /// Combinations of --workers, --depth and --gather-max-blocks.
  std::size_t combinations() const { return workers_list.size() * depth_list.size() * gather_max_blocks_list.size(); }
  /// True when --workers, --depth and --gather-max-blocks name more than one combination.
  bool sweeps() const { return combinations() > 1; }
};

inline void print_usage(std::FILE* out)
{
  std::fprintf(out,
    "usage: epoch [options]      (scripts/demo [options] builds and runs it)\n"
    "  --preset NAME        small | products | reddit | twitter | papers100m (default small)\n"
    "  --scale X            multiply the preset's nodes and edges by X (default 1)\n"
    "  --batch-size N       seeds per mini-batch (default 1024)\n"
    "  --fanouts A,B,C      neighbours sampled per layer, seeds side first (default 15,10,5)\n"
    "  --epochs N           epochs per data path; the median epoch is reported (default 1)\n"
    "  --max-batches N      stop each epoch after N batches (default 0 = all)\n"
    "  --cpu-max-batches N  run only N batches of the CPU-centric path and extrapolate its\n"
    "                       epoch (it is the slow one; default 0 = all)\n"
    "  --cache-pct P        path 'cached': gnndirect with P%% of feature rows in a device tier\n"
    "                       (highest degree first; default 20)\n"
    "  --paths LIST         any of gnndirect,cached,cpu,gpu,transfer,graph-hbm,cached-graph-hbm\n"
    "                       (default gnndirect,cpu,gpu);\n"
    "                       transfer: the feature transfer alone, per batch, gnndirect's gather\n"
    "                       against the CPU-centric staged gather of the same rows (bounded by\n"
    "                       --cpu-max-batches like cpu); graph-hbm: gnndirect with the neighbour\n"
    "                       lists in HBM and the features in host memory (its floor: the\n"
    "                       feature rows alone); cached-graph-hbm: both, the --cache-pct\n"
    "                       feature tier and the neighbour lists in HBM\n"
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
    "  --gather-max-blocks N[,N..]  thread-block cap of each feature gather (0 = the gather\n"
    "                       selector's: 32 blocks of 256 threads from host memory, the\n"
    "                       library's default, which leaves SMs to training; default 256, as\n"
    "                       the demo prepares with nothing else on the GPU); a list is a third\n"
    "                       sweep dimension, like --workers and --depth\n"
    "  --sampling-max-blocks N  thread-block cap of every pipeline path's sampling kernels (default\n"
    "                       0: none), so that feature gathers of other batches find free SMs\n"
    "  --codec NAME         fp32 | fp16 | bf16 | int8 | fp8 | int4 (default fp32): the paths\n"
    "                       gnndirect, cached, graph-hbm, cached-graph-hbm and transfer read a\n"
    "                       copy of the features encoded once with this row codec (same\n"
    "                       placement; per-row metadata in device memory), decoded to fp32\n"
    "                       inside the gather; the cached tiers hold encoded rows (the same\n"
    "                       bytes hold more rows). cpu, gpu and the transfer path's CPU-centric\n"
    "                       side stay fp32: they are the baselines. Every codec reaches every\n"
    "                       path it applies to.\n"
    "                       Each path reports the encoded bytes it read, its link floor from\n"
    "                       them, and checks one batch against the host decode\n"
    "  --gather-priority -1|0|1  1: each batch's gathers on a stream of the greatest priority,\n"
    "                       -1: its sampling there instead, 0: neither\n"
    "                       (pipeline_options::gather_priority; default the library's)\n"
    "  --calibrate-gather 0|1  calibrate the feature gathers' block cap and rows in flight on the\n"
    "                       features at construction (pipeline_options::calibrate_gather; only\n"
    "                       with --gather-max-blocks 0: an explicit cap wins)\n"
    "  --gather-order auto|none|sorted  locality order of the feature gathers (default auto:\n"
    "                       the selector sorts large batches from host memory; none: one launch)\n"
    "  --timeline FILE      record every batch's stages in one more (untimed) epoch of each\n"
    "                       pipeline path (CUDA events per stream, worker host spans) and write\n"
    "                       FILE-<path>.json\n"
    "                       (in an --overlap-sweep: FILE-<path>-<variant>.json, gnndirect paths\n"
    "                       only); draw with scripts/results.py timeline\n"
    "  --overlap-sweep all|V,V..  run the pipeline paths of --paths (gnndirect, graph-hbm, gpu,\n"
    "                       cached, cached-graph-hbm) once per overlap variant on the same data and\n"
    "                       print how much of the GPU work and the link floor each overlaps\n"
    "                       (variants: base prio sprio noprio gb32 gbfull sbsms prio+sbsms\n"
    "                       unsorted more w1 calib; see bench/epoch/overlap.cuh)\n"
    "  --timeline-variants V,V..  in an --overlap-sweep, record --timeline for these variants only\n"
    "                       (default: every variant)\n"
    "  --json FILE          also write the results as JSON\n"
    "  --help               this text\n");
}

/// The program named in option errors (other tools reuse these parsers, e.g. bench/tier_model).
inline std::string& program_name()
{
  static std::string name = "demo";
  return name;
}

/// Reports a bad command-line value naming the option and what it accepts, then exits 2.
[[noreturn]] inline void bad_option(const std::string& flag, const std::string& expected, const std::string& got)
{
  std::fprintf(stderr, "%s: %s expects %s, got '%s' (see --help)\n", program_name().c_str(), flag.c_str(),
               expected.c_str(), got.c_str());
  std::exit(2);
}

/// Splits a comma-separated list; an empty entry ("15,,5", a trailing comma) is an error.
inline std::vector<std::string> split_list(const std::string& flag, const std::string& text,
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
inline double parse_real(const std::string& flag, const std::string& text, double lo, double hi,
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
inline std::uint64_t parse_seed(const std::string& flag, const std::string& text)
{
  char* end = nullptr;
  errno = 0;
  unsigned long long const value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno != 0) {
    bad_option(flag, "an integer in [0, 2^64)", text);
  }
  return value;
}

inline gnndirect::graph_preset parse_preset(const std::string& name)
{
  if (name == "small") { return gnndirect::graph_preset::small; }
  if (name == "products") { return gnndirect::graph_preset::products; }
  if (name == "reddit") { return gnndirect::graph_preset::reddit; }
  if (name == "papers100m") { return gnndirect::graph_preset::papers100m; }
  if (name == "twitter") { return gnndirect::graph_preset::twitter; }
  bad_option("--preset", "one of small, products, reddit, twitter, papers100m", name);
}


/// True when --codec changes what `path` reads: the pipeline paths on host-resident features and
/// the transfer path; cpu and gpu stay fp32 (the baselines).
inline bool codec_applies_to(const std::string& path)
{
  return path != "cpu" && path != "gpu";
}

/// The data paths --paths accepts.
constexpr const char* known_paths[] = {"gnndirect", "cached", "cpu",       "gpu",
                                       "transfer",  "graph-hbm", "cached-graph-hbm"};

/// A comma-separated list of distinct integers in [lo, hi]; each entry is checked (and named) as a
/// single value would be.
inline std::vector<int> parse_int_list(const std::string& flag, const std::string& text, int lo, int hi)
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

/// The overlap variants --overlap-sweep accepts (bench/epoch/overlap.cuh applies them).
constexpr const char* overlap_variant_names[] = {"base",     "prio", "sprio", "noprio", "gb32",  "gbfull",  "sbsms",
                                                 "prio+sbsms", "unsorted", "more", "w1",    "calib",  "depth+1"};

/// The value of --overlap-sweep (or --timeline-variants, `flag`): "all" or distinct variant names.
inline std::vector<std::string> parse_overlap_variants(const std::string& flag, const std::string& text)
{
  if (text == "all") { return {std::begin(overlap_variant_names), std::end(overlap_variant_names)}; }
  std::string expected = "all or a comma-separated list of";
  for (const char* v : overlap_variant_names) { expected += std::string(" ") + v; }
  auto variants = split_list(flag, text, expected);
  for (std::size_t i = 0; i < variants.size(); ++i) {
    auto const& v = variants[i];
    if (std::find(std::begin(overlap_variant_names), std::end(overlap_variant_names), v) ==
        std::end(overlap_variant_names)) {
      bad_option(flag, expected + " ('" + v + "' is none of them)", text);
    }
    if (std::find(variants.begin(), variants.begin() + static_cast<std::ptrdiff_t>(i), v) !=
        variants.begin() + static_cast<std::ptrdiff_t>(i)) {
      bad_option(flag, "distinct variants ('" + v + "' repeats)", text);
    }
  }
  return variants;
}

/// `a` with overlap variant `name` applied (bench/epoch/overlap.cuh says what each tests); `sms`: the device's SM count.
inline demo_args with_overlap_variant(demo_args a, const std::string& name, int sms)
{
  if (name == "prio" || name == "prio+sbsms") { a.gather_priority = 1; }
  if (name == "sprio") { a.gather_priority = -1; }
  if (name == "noprio") { a.gather_priority = 0; }
  if (name == "gb32") { a.gather_max_blocks = 32; }
  if (name == "gbfull") { a.gather_max_blocks = sms * 8; }
  if (name == "sbsms" || name == "prio+sbsms") { a.sampling_max_blocks = sms; }
  if (name == "unsorted") { a.gather_order = "none"; }
  if (name == "more") {
    a.workers *= 2;
    a.depth *= 2;
  }
  if (name == "w1") { a.workers = 1; }
  if (name == "depth+1") { a.depth = std::max(a.depth, a.workers + 1); }  // no head-of-line wait
  if (name == "calib") {  // the calibration replaces the cap: none given
    a.gather_max_blocks = 0;
    a.calibrate_gather = 1;
  }
  return a;
}

inline std::vector<std::string> parse_paths(const std::string& text)
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
inline void check_json_writable(const std::string& path)
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

inline bool is_option_with_value(const std::string& flag)
{
  static const char* const flags[] = {"--preset", "--scale", "--batch-size", "--fanouts", "--epochs",
                                      "--max-batches", "--cpu-max-batches", "--cache-pct", "--paths",
                                      "--feature-dim", "--train-nodes", "--workers", "--depth",
                                      "--gather-max-blocks", "--sampling-max-blocks", "--seed", "--json", "--codec",
                                      "--gather-priority", "--gather-order", "--timeline", "--overlap-sweep",
                                      "--timeline-variants", "--calibrate-gather"};
  return std::find(std::begin(flags), std::end(flags), flag) != std::end(flags);
}

/// Applies one option (flag known to take a value) to `a`, validating the value.
inline void apply_option(demo_args& a, const std::string& flag, const std::string& value)
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
  } else if (flag == "--gather-max-blocks") {
    a.gather_max_blocks_list = parse_int_list(flag, value, 0, 65536);
    a.gather_max_blocks = a.gather_max_blocks_list.front();
  } else if (flag == "--sampling-max-blocks") {
    a.sampling_max_blocks = parse_integer<int>(flag, value, 0, 65536);
  } else if (flag == "--gather-priority") {
    a.gather_priority = parse_integer<int>(flag, value, -1, 1);
  } else if (flag == "--calibrate-gather") {
    a.calibrate_gather = parse_integer<int>(flag, value, 0, 1);
  } else if (flag == "--gather-order") {
    if (value != "auto" && value != "none" && value != "sorted") { bad_option(flag, "one of auto, none, sorted", value); }
    a.gather_order = value;
  } else if (flag == "--timeline") {
    if (value.empty()) { bad_option(flag, "a file name", value); }
    a.timeline = value;
  } else if (flag == "--overlap-sweep") {
    a.overlap_variants = parse_overlap_variants("--overlap-sweep", value);
  } else if (flag == "--timeline-variants") {
    a.timeline_variants = parse_overlap_variants("--timeline-variants", value);
  } else if (flag == "--seed") {
    a.seed = parse_seed(flag, value);
  } else if (flag == "--json") {
    if (value.empty()) { bad_option(flag, "a file name", value); }
    a.json = value;
  } else if (flag == "--codec") {
    try {
      static_cast<void>(gnndirect::codec_from_name(value));  // the library's names, short or long
    } catch (const gnndirect::invalid_argument&) {
      bad_option(flag, "one of fp32 fp16 bf16 int8 fp8 int4", value);
    }
    a.codec = value;
  }
}

/// The pipeline shape of a preset where the command line gives none: papers100m prepares batches
/// with 6 workers and 6 batches in flight, the fastest region of its measured sweep (H200,
/// docs/performance.md §4: 3.90 s with 1 worker, 3.02 s with 2, 2.49 s with 6 or 8 at depth 6);
/// the smaller presets keep 2 x 3.
inline void apply_preset_pipeline(demo_args& a)
{
  if (a.preset != gnndirect::graph_preset::papers100m || a.pipeline_given) { return; }
  a.workers_list = {6};
  a.depth_list = {6};
  a.workers = 6;
  a.depth = 6;
}

/// Parses and validates the command line; every bad option exits 2 with a message naming it and
/// the values it accepts. Relative paths are relative to the current directory (scripts/demo runs
/// the demo from the caller's).
inline demo_args parse_args(int argc, char** argv)
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
    std::fprintf(stderr, "demo: --workers/--depth/--gather-max-blocks lists (a sweep) need the gnndirect "
                         "path in --paths (see --help)\n");
    std::exit(2);
  }
  if (!a.overlap_variants.empty() && a.sweeps()) {
    std::fprintf(stderr, "demo: --overlap-sweep and --workers/--depth/--gather-max-blocks lists are two sweeps: "
                         "give one (see --help)\n");
    std::exit(2);
  }
  if (a.codec != "fp32" && std::none_of(a.paths.begin(), a.paths.end(), codec_applies_to)) {
    std::fprintf(stderr, "demo: --codec %s applies to the paths gnndirect, cached, graph-hbm, cached-graph-hbm "
                         "and transfer, and --paths names none of them (cpu and gpu stay fp32, the "
                         "baselines; see --help)\n", a.codec.c_str());
    std::exit(2);
  }
  if (!a.json.empty()) { check_json_writable(a.json); }
  return a;
}

inline std::int64_t default_feature_dim(gnndirect::graph_preset preset)
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

inline std::int64_t default_train_nodes(gnndirect::graph_preset preset, double scale, std::int64_t nodes)
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

/// A type as a value, so that a generic lambda can receive `void`.
template <class T>
struct type_tag {
  using type = T;
};

/// Calls f(type_tag<C>{}) with C the codec type `codec` names, or C = void for fp32 (the paths
/// read the plain fp32 table: no encoded copy), and returns what f returns. The one place the
/// demo maps --codec onto a type (the library's visit_codec).
template <class F>
decltype(auto) with_codec_type(const std::string& codec, F&& f)
{
  return gnndirect::visit_codec(gnndirect::codec_from_name(codec), [&](auto c) {
    using C = decltype(c);
    if constexpr (std::is_same_v<C, gnndirect::codecs::fp32>) {
      return f(type_tag<void>{});
    } else {
      return f(type_tag<C>{});
    }
  });
}

/// Bytes a row of `cols` features takes encoded with the codec named `codec` (0 for fp32: the
/// fp32 table is read as it is, no copy), by owners/encoded_table.hpp's stride rule.
inline double encoded_row_bytes(const std::string& codec, double cols)
{
  return with_codec_type(codec, [&](auto tag) -> double {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_void_v<C>) {
      return 0;
    } else {
      auto const payload = gnndirect::encoded_payload_bytes<C>(static_cast<std::int64_t>(cols));
      return static_cast<double>(gnndirect::encoded_row_stride(payload));
    }
  });
}

/// Refuses (exit 2) a preset whose graph and features cannot fit in the host memory available,
/// before anything is generated: features (fp32, and the --codec copy), edge ids, indptr copy, labels, against
/// query_host_memory_available(). A lower bound
/// (the process, CUDA and the CPU-centric path need more), so it never refuses a run that fits.
inline void check_host_memory(const demo_args& a)
{
  auto const shape = gnndirect::preset_options(a.preset, a.scale, a.seed);
  auto const nodes = static_cast<double>(shape.num_nodes);
  double const dim = static_cast<double>(a.feature_dim > 0 ? a.feature_dim : default_feature_dim(a.preset));
  double const index_bytes = shape.num_nodes - 1 <= std::numeric_limits<std::int32_t>::max() ? 4 : 8;
  double const features = nodes * dim * 4;
  // With --codec, the encoded copy lives beside the fp32 table (the baselines read fp32).
  double const encoded = nodes * encoded_row_bytes(a.codec, dim);
  double const edges = static_cast<double>(gnndirect::output_edge_count(shape)) * index_bytes;
  double const needed = features + encoded + edges + nodes * (8 + sizeof(label_type));
  gnndirect::host_memory_available const host = gnndirect::query_host_memory_available();
  double const available = host.known ? static_cast<double>(host.bytes) : 0;
  if (available > 0 && needed > available) {
    char copy[64] = "";
    if (encoded > 0) { std::snprintf(copy, sizeof copy, ", %s copy %.1f GB", a.codec.c_str(), encoded / 1e9); }
    std::fprintf(stderr,
                 "demo: --preset %s --scale %g needs at least %.1f GB of host memory (features %.1f GB%s,\n"
                 "      edges %.1f GB), and %.1f GB are available (%s):\n"
                 "      use a smaller --scale (about %.2f fits) or --feature-dim\n",
                 a.preset_name.c_str(), a.scale, needed / 1e9, features / 1e9, copy, edges / 1e9,
                 available / 1e9, host.source.c_str(), a.scale * available / needed * 0.9);
    std::exit(2);
  }
}


}  // namespace gnndirect_demo
