// The demo's option parsing and preset selection (bench/epoch/options.hpp; scripts/demo runs it), on the host: which
// pipeline shape each preset runs with, that command-line values win over the preset's, and which
// paths --codec applies to.
#include <doctest/doctest.h>

#include "../../bench/epoch/options.hpp"

#include <string>
#include <vector>

namespace {

gnndirect_demo::demo_args parse(std::vector<std::string> args)
{
  args.insert(args.begin(), "demo");
  std::vector<char*> argv;
  for (auto& a : args) { argv.push_back(a.data()); }
  return gnndirect_demo::parse_args(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST_CASE("demo presets: papers100m prepares with 6 workers and depth 6")
{
  auto const a = parse({"--preset", "papers100m"});
  CHECK(a.workers == 6);
  CHECK(a.depth == 6);
  CHECK(a.gather_max_blocks == 256);
  CHECK(a.gather_max_blocks_list == std::vector<int>{256});
  CHECK_FALSE(a.sweeps());
}

TEST_CASE("demo presets: the others keep 2 workers and depth 3; every preset gathers with 256 blocks")
{
  for (const char* preset : {"small", "products", "reddit", "twitter"}) {
    auto const a = parse({"--preset", preset});
    CHECK(a.workers == 2);
    CHECK(a.depth == 3);
    CHECK(a.gather_max_blocks == 256);  // preparation alone: wider than the library's 32
    CHECK(a.gather_max_blocks_list == std::vector<int>{256});
  }
}

TEST_CASE("demo options: command-line values win over the preset's, each on its own")
{
  auto const workers = parse({"--preset", "papers100m", "--workers", "2"});
  CHECK(workers.workers == 2);
  CHECK(workers.depth == 3);            // --workers alone replaces the preset's pipeline shape
  CHECK(workers.gather_max_blocks == 256);  // the demo's gathers stay
  auto const gathers = parse({"--gather-max-blocks", "0", "--preset", "papers100m"});
  CHECK(gathers.gather_max_blocks == 0);  // the selector's, as asked
  CHECK(gathers.workers == 6);
  auto const shape = parse({"--depth", "4", "--preset", "papers100m"});
  CHECK(shape.workers == 2);  // given before the preset: still the command line's pipeline shape
  CHECK(shape.depth == 4);
}

TEST_CASE("demo options: --sampling-max-blocks caps the pipelines' sampling (default: no cap)")
{
  CHECK(parse({"--preset", "papers100m"}).sampling_max_blocks == 0);
  auto const a = parse({"--sampling-max-blocks", "66", "--preset", "papers100m"});
  CHECK(a.sampling_max_blocks == 66);
  CHECK(a.gather_max_blocks == 256);  // the gathers' cap is its own
  CHECK_FALSE(a.sweeps());
}

TEST_CASE("demo options: --gather-max-blocks lists are a third sweep dimension")
{
  auto const a = parse({"--preset", "papers100m", "--gather-max-blocks", "32,128,512", "--depth", "6,10"});
  CHECK(a.gather_max_blocks_list == std::vector<int>{32, 128, 512});
  CHECK(a.gather_max_blocks == 32);
  CHECK(a.combinations() == 6);  // 1 worker count x 2 depths x 3 caps
  CHECK(a.sweeps());
  auto const single = parse({"--gather-max-blocks", "64"});
  CHECK(single.combinations() == 1);
  CHECK_FALSE(single.sweeps());
}

TEST_CASE("demo options: --codec names the row codec of the features the codec paths read (default fp32)")
{
  CHECK(parse({}).codec == "fp32");
  for (const char* codec : {"fp16", "bf16", "int8", "fp8", "int4"}) { CHECK(parse({"--codec", codec}).codec == codec); }
  // The run docs/performance.md §7 names: a codec path beside the fp32 baseline.
  auto const run = parse({"--preset", "papers100m", "--paths", "gnndirect,graph-hbm,gpu", "--codec", "int8"});
  CHECK(run.codec == "int8");
  CHECK(run.paths == std::vector<std::string>{"gnndirect", "graph-hbm", "gpu"});
  CHECK(parse({"--codec", "int4", "--paths", "transfer"}).codec == "int4");
}

TEST_CASE("demo options: --codec applies to the pipeline paths and transfer; cpu and gpu are fp32 baselines")
{
  for (const char* path : {"gnndirect", "cached", "graph-hbm", "cached-graph-hbm", "transfer"}) {
    CAPTURE(path);
    CHECK(gnndirect_demo::codec_applies_to(path));
  }
  CHECK_FALSE(gnndirect_demo::codec_applies_to("cpu"));
  CHECK_FALSE(gnndirect_demo::codec_applies_to("gpu"));
  // Every path --paths accepts is classified (a new path must decide).
  int applies = 0;
  for (const char* path : gnndirect_demo::known_paths) { applies += gnndirect_demo::codec_applies_to(path) ? 1 : 0; }
  CHECK(applies == 5);
}

TEST_CASE("demo host check: an encoded copy costs its padded rows beside the fp32 table")
{
  using gnndirect_demo::encoded_row_bytes;
  CHECK(encoded_row_bytes("fp32", 128) == 0);       // no copy
  CHECK(encoded_row_bytes("int8", 128) == 128);     // one whole line
  CHECK(encoded_row_bytes("int8", 100) == 128);     // 100 B padded to the line
  CHECK(encoded_row_bytes("int4", 128) == 64);      // two rows a line
  CHECK(encoded_row_bytes("fp16", 100) == 256);     // 200 B -> two lines
  CHECK(encoded_row_bytes("bf16", 602) == 1280);    // 1204 B -> ten lines
  CHECK(encoded_row_bytes("fp8", 602) == 640);
  CHECK(encoded_row_bytes("int4", 3) == 64);        // 2 B, the 64-B minimum
  CHECK(encoded_row_bytes("int8_affine", 100) == 128);  // the library's names too
  CHECK_THROWS_AS(encoded_row_bytes("int3", 128), gnndirect::invalid_argument);
}

TEST_CASE("demo options: --overlap-sweep names its variants (all: every one), each changing only its knob")
{
  auto const all = parse({"--preset", "papers100m", "--overlap-sweep", "all"});
  CHECK(all.overlap_variants.size() == std::size(gnndirect_demo::overlap_variant_names));
  CHECK(all.overlap_variants.front() == "base");
  auto const two = parse({"--overlap-sweep", "prio,w1", "--timeline", "t.json", "--timeline-variants", "w1"});
  CHECK(two.overlap_variants == std::vector<std::string>{"prio", "w1"});
  CHECK(two.timeline == "t.json");
  CHECK(two.timeline_variants == std::vector<std::string>{"w1"});
  CHECK(parse({}).overlap_variants.empty());
  CHECK(!parse({}).gather_priority.has_value());  // the library's default unless given
  CHECK(parse({"--gather-priority", "-1"}).gather_priority == -1);
  CHECK(parse({"--gather-order", "none"}).gather_order == "none");

  auto const base = parse({"--preset", "papers100m"});  // 6 workers, depth 6, 256-block gathers
  int const sms = 132;
  auto same_except = [&](const gnndirect_demo::demo_args& v, const char* knob) {
    std::string const k = knob;
    CHECK((k == "prio" || v.gather_priority == base.gather_priority));
    CHECK((k == "gather_max_blocks" || v.gather_max_blocks == base.gather_max_blocks));
    CHECK((k == "sampling_max_blocks" || k == "prio" || v.sampling_max_blocks == base.sampling_max_blocks));
    CHECK((k == "order" || v.gather_order == base.gather_order));
    CHECK((k == "workers" || v.workers == base.workers));
    CHECK((k == "workers" || k == "depth" || v.depth == base.depth));
  };
  auto const variant = [&](const char* name) { return gnndirect_demo::with_overlap_variant(base, name, sms); };
  same_except(variant("base"), "");
  CHECK(variant("prio").gather_priority == 1);
  same_except(variant("prio"), "prio");
  CHECK(variant("noprio").gather_priority == 0);
  CHECK(variant("sprio").gather_priority == -1);
  same_except(variant("sprio"), "prio");
  CHECK(variant("gb32").gather_max_blocks == 32);
  same_except(variant("gb32"), "gather_max_blocks");
  CHECK(variant("gbfull").gather_max_blocks == sms * 8);
  CHECK(variant("sbsms").sampling_max_blocks == sms);
  same_except(variant("sbsms"), "sampling_max_blocks");
  CHECK(variant("prio+sbsms").sampling_max_blocks == sms);
  CHECK(variant("prio+sbsms").gather_priority == 1);
  same_except(variant("prio+sbsms"), "prio");
  CHECK(variant("unsorted").gather_order == "none");
  same_except(variant("unsorted"), "order");
  CHECK(variant("more").workers == 12);
  CHECK(variant("more").depth == 12);
  same_except(variant("more"), "workers");
  CHECK(variant("w1").workers == 1);
  CHECK(variant("w1").depth == base.depth);
  CHECK(variant("depth+1").depth == base.workers + 1);  // the preset's 6 workers on a depth of 6
  same_except(variant("depth+1"), "depth");
  CHECK(variant("calib").calibrate_gather == 1);
  CHECK(variant("calib").gather_max_blocks == 0);  // an explicit cap would win over the calibration
  CHECK(base.calibrate_gather == -1);
}
