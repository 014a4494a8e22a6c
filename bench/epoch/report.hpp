#pragma once
// The epoch benchmark (bench/epoch/epoch.cu), the report: the table on stdout and the JSON file.
#include "common.hpp"
#include "options.hpp"
#include "paths.cuh"

namespace gnndirect_demo {

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

inline const path_result* find_path(const std::vector<path_result>& results, const std::string& name)
{
  for (auto const& r : results) {
    if (r.ran && r.name == name) { return &r; }
  }
  return nullptr;
}

inline void print_path_line(const path_result& r, const path_result* cpu, int width)
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
inline void print_result_line(const path_result& r, const path_result* cpu, int width)
{
  if (r.ran) {
    print_path_line(r, cpu, width);
    if (!r.note.empty()) { std::printf("%-*s (%s)\n", width, "", r.note.c_str()); }
  } else {
    std::printf("%-*s %s\n", width, r.name.c_str(), r.note.c_str());
  }
}

inline void print_table(const report_context& ctx, const std::vector<path_result>& results)
{
  path_result const* cpu = find_path(results, "cpu-centric");
  int width = 12;  // wider only for the names of a sweep's combinations
  for (auto const& r : results) { width = std::max(width, static_cast<int>(r.name.size())); }
  std::printf("\n%-*s %9s %10s %10s %10s %8s %10s %11s\n", width, "path", "epoch s", "batches/s",
              "feat GB/s", "core-s", "cores", "speedup", "CPU saving");
  for (auto const& r : results) { print_result_line(r, cpu, width); }
  std::printf("(speedup and CPU saving: cpu-centric epoch time / path epoch time, cpu-centric "
              "core-seconds / path core-seconds)\n");
  for (auto const& r : results) {  // the link floor of each path that has one (from the bytes it read)
    if (!r.ran || r.sweep_entry || r.link_bytes == 0) { continue; }
    double const floor_s = static_cast<double>(r.link_bytes) / ctx.link_peak;
    std::printf("%s link floor: %.2f GB must cross the host link (%s feature rows %.2f GB + "
                "neighbour lists %.2f GB) at %.1f GB/s = %.3f s; epoch time / link floor = %.2f\n",
                r.name.c_str(), static_cast<double>(r.link_bytes) / 1e9, r.codec.c_str(),
                static_cast<double>(r.link_feature_bytes) / 1e9,
                static_cast<double>(r.link_bytes - r.link_feature_bytes) / 1e9, ctx.link_peak / 1e9, floor_s,
                r.seconds / floor_s);
  }
  for (auto const& r : results) {  // what each pipeline path read, and its check against the host
    if (!r.ran || r.sweep_entry || !r.checked) { continue; }
    std::printf("%s: features %s, %.2f GB of rows read (%.2f GB decoded); last batch's features %s\n",
                r.name.c_str(), r.codec.c_str(), static_cast<double>(r.encoded_bytes) / 1e9,
                static_cast<double>(r.feature_bytes) / 1e9,
                r.verified ? (r.codec == "fp32" ? "equal to the host rows" : "equal to the host decode")
                           : (r.codec == "fp32" ? "DIFFER from the host rows" : "DIFFER from the host decode"));
  }
}

/// The transfer path's per-epoch totals and the reduction gnndirect brings.
inline void print_transfer(const transfer_result& t)
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
              t.verified ? (t.codec == "fp32" ? "identical from both" : "equal to the host decode")
                         : (t.codec == "fp32" ? "DIFFER between the two methods" : "DIFFER from the host decode"));
  if (t.codec != "fp32") {
    std::printf("  codec %s: gnndirect read %.2f GB of encoded rows (%.2fx fewer than fp32) and wrote %.2f GB "
                "of decoded fp32 rows\n",
                t.codec.c_str(), t.encoded_bytes / 1e9, t.bytes / t.encoded_bytes, t.bytes / 1e9);
  }
}

inline std::string json_escape(const std::string& text)
{
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') { out += '\\'; }
    out += c;
  }
  return out;
}

/// Writes the --workers/--depth/--gather-max-blocks sweep (when there was one) as the JSON member
/// "sweep" (gather_max_blocks 0: the selector's budget).
inline void write_json_sweep(std::FILE* out, const std::vector<path_result>& results, const path_result* chosen)
{
  bool first = true;
  for (auto const& r : results) {
    if (!r.sweep_entry) { continue; }
    std::fprintf(out,
                 "%s\n    {\"workers\": %d, \"depth\": %d, \"gather_max_blocks\": %d, \"epoch_seconds\": %.6f, "
                 "\"batches_per_second\": %.3f, \"cpu_core_seconds\": %.3f, \"best\": %s}",
                 first ? ",\n  \"sweep\": [" : ",", r.workers, r.depth, r.gather_max_blocks, r.seconds,
                 static_cast<double>(r.batches) / r.seconds, r.core_seconds,
                 chosen != nullptr && chosen->workers == r.workers && chosen->depth == r.depth &&
                     chosen->gather_max_blocks == r.gather_max_blocks
                   ? "true"
                   : "false");
    first = false;
  }
  if (!first) { std::fprintf(out, "\n  ]"); }
}

/// Writes the transfer path's totals as the JSON member "transfer" (when it ran or was skipped).
inline void write_json_transfer(std::FILE* out, const transfer_result& t)
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
  std::fprintf(out, ", \"codec\": \"%s\", \"encoded_bytes\": %.0f", t.codec.c_str(), t.encoded_bytes);
  if (!t.note.empty()) { std::fprintf(out, ", \"note\": \"%s\"", json_escape(t.note).c_str()); }
  std::fprintf(out, "}");
}

/// The overlap figures of one host-resident path of one variant against the all-in-GPU epoch of
/// the same variant: overlap = (sum - epoch) / (sum - max), 1 when the epoch is the larger of
/// GPU work and link floor, 0 when it is their sum.
struct overlap_row {
  std::string variant;
  std::string path;
  double epoch{0};
  double gpu{0};    // all-in-gpu epoch of the same variant
  double floor{0};  // link bytes / link peak
  double sum() const { return gpu + floor; }
  double max() const { return std::max(gpu, floor); }
  double overlap() const { return sum() > max() ? (sum() - epoch) / (sum() - max()) : 0; }
};

/// The overlap rows of the sweep's results (host-resident paths with an all-in-gpu epoch of the
/// same variant).
inline std::vector<overlap_row> overlap_rows(const report_context& ctx, const std::vector<path_result>& results)
{
  std::vector<overlap_row> rows;
  for (auto const& r : results) {
    if (!r.ran || r.variant.empty() || r.base_name == "all-in-gpu" || r.link_bytes == 0) { continue; }
    for (auto const& g : results) {
      if (g.ran && g.variant == r.variant && g.base_name == "all-in-gpu") {
        rows.push_back(overlap_row{r.variant, r.base_name, r.seconds, g.seconds,
                                   static_cast<double>(r.link_bytes) / ctx.link_peak});
      }
    }
  }
  return rows;
}

/// The sweep's table: one line per variant and host-resident path, then the best variant of each.
inline void print_overlap_table(const report_context& ctx, const std::vector<path_result>& results)
{
  auto const rows = overlap_rows(ctx, results);
  std::printf("\noverlap sweep: epoch against all-in-gpu (same variant) and the link floor (link bytes / %.1f GB/s);\n"
              "overlap = (sum - epoch) / (sum - max): 1 = the larger of the two, 0 = their sum\n",
              ctx.link_peak / 1e9);
  std::printf("%-12s %-20s %9s %9s %9s %9s %9s %8s\n", "variant", "path", "epoch s", "gpu s", "floor s", "sum s",
              "max s", "overlap");
  for (auto const& o : rows) {
    std::printf("%-12s %-20s %9.3f %9.3f %9.3f %9.3f %9.3f %8.2f\n", o.variant.c_str(), o.path.c_str(), o.epoch,
                o.gpu, o.floor, o.sum(), o.max(), o.overlap());
  }
  std::vector<std::string> paths;
  for (auto const& o : rows) {
    if (std::find(paths.begin(), paths.end(), o.path) == paths.end()) { paths.push_back(o.path); }
  }
  for (auto const& p : paths) {
    overlap_row const* best = nullptr;
    for (auto const& o : rows) {
      if (o.path == p && (best == nullptr || o.epoch < best->epoch)) { best = &o; }
    }
    std::printf("fastest %-20s %-12s %.3f s (overlap %.2f)\n", p.c_str(), best->variant.c_str(), best->epoch,
                best->overlap());
  }
}

/// Writes the overlap rows as the JSON member "overlap" (none without a sweep).
inline void write_json_overlap(std::FILE* out, const report_context& ctx, const std::vector<path_result>& results)
{
  bool first = true;
  for (auto const& o : overlap_rows(ctx, results)) {
    std::fprintf(out,
                 "%s\n    {\"variant\": \"%s\", \"path\": \"%s\", \"epoch_seconds\": %.6f, \"all_in_gpu_seconds\": "
                 "%.6f, \"link_floor_seconds\": %.6f, \"sum_seconds\": %.6f, \"max_seconds\": %.6f, \"overlap\": %.4f}",
                 first ? ",\n  \"overlap\": [" : ",", o.variant.c_str(), o.path.c_str(), o.epoch, o.gpu, o.floor,
                 o.sum(), o.max(), o.overlap());
    first = false;
  }
  if (!first) { std::fprintf(out, "\n  ]"); }
}

/// Writes the results as JSON; false (after a message) when the file cannot be written.
inline bool write_json(const std::string& file, const demo_args& a, const report_context& ctx,
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
               "  \"gather_max_blocks\": %d,\n  \"sampling_max_blocks\": %d,\n  \"link_peak_gbps\": %.3f,\n  \"codec\": \"%s\",\n"
               "  \"codec_note\": \"--codec applies to gnndirect, cached, graph-hbm, cached-graph-hbm and transfer; "
               "cpu-centric and all-in-gpu are fp32 baselines\",\n  \"paths\": [",
               json_escape(ctx.device).c_str(), ctx.placement.c_str(), a.preset_name.c_str(), a.scale,
               static_cast<long long>(ctx.nodes), static_cast<long long>(ctx.edges),
               static_cast<long long>(ctx.dim), static_cast<long long>(ctx.train),
               ctx.index_type.c_str(), static_cast<long long>(a.batch_size), fanouts.c_str(),
               static_cast<unsigned long long>(a.seed), a.workers, a.depth, a.gather_max_blocks, a.sampling_max_blocks, ctx.link_peak / 1e9,
               a.codec.c_str());
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
      std::string each;  // every epoch; epoch_seconds is their median
      for (double e : r.epoch_seconds) { each += (each.empty() ? "" : ", ") + std::to_string(e); }
      std::fprintf(out, ", \"epoch_seconds_each\": [%s]", each.c_str());
      if (r.sweep_entry) {
        std::fprintf(out, ", \"workers\": %d, \"depth\": %d, \"gather_max_blocks\": %d", r.workers, r.depth,
                     r.gather_max_blocks);
      }
      if (!r.variant.empty()) {
        std::fprintf(out,
                     ", \"variant\": \"%s\", \"path\": \"%s\", \"workers\": %d, \"depth\": %d, \"gather_max_blocks\": %d, "
                     "\"sampling_max_blocks\": %d, \"gather_priority\": %d, \"gather_order\": \"%s\"",
                     r.variant.c_str(), r.base_name.c_str(), r.workers, r.depth, r.gather_max_blocks, r.sampling_max_blocks,
                     r.gather_priority, r.gather_order.c_str());
      }
      if (r.checked) {  // pipeline paths: the codec of the rows read, their bytes, the host check
        std::fprintf(out, ", \"codec\": \"%s\", \"encoded_bytes\": %llu, \"verified\": %s", r.codec.c_str(),
                     static_cast<unsigned long long>(r.encoded_bytes), r.verified ? "true" : "false");
      }
      if (r.link_bytes > 0) {
        double const floor_s = static_cast<double>(r.link_bytes) / ctx.link_peak;
        std::fprintf(out, ", \"link_bytes\": %llu, \"link_feature_bytes\": %llu, \"link_floor_seconds\": %.6f, "
                     "\"epoch_over_link_floor\": %.3f",
                     static_cast<unsigned long long>(r.link_bytes), static_cast<unsigned long long>(r.link_feature_bytes),
                     floor_s, r.seconds / floor_s);
      }
    }
    if (!r.note.empty()) { std::fprintf(out, ", \"note\": \"%s\"", json_escape(r.note).c_str()); }
    std::fprintf(out, "}");
  }
  std::fprintf(out, "\n  ]");
  write_json_sweep(out, results, find_path(results, "gnndirect"));
  write_json_overlap(out, ctx, results);
  write_json_transfer(out, transfer);
  std::fprintf(out, "\n}\n");
  if (std::fclose(out) != 0) {
    std::fprintf(stderr, "demo: writing %s failed: %s\n", file.c_str(), std::strerror(errno));
    return false;
  }
  std::printf("results written to %s\n", file.c_str());
  return true;
}


}  // namespace gnndirect_demo
