#pragma once
// The epoch benchmark's body: run<Codec, Index>() generates the data set and runs every path of
// --paths on it. Each codec's instances are compiled in their own translation unit (run_<codec>.cu,
// both index types), so the six pipelines build in parallel; epoch.cu only dispatches.
#include <gnndirect/core/device.hpp>
#include <gnndirect/device/codecs.hpp>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/owners/cuda_handles.hpp>
#include <gnndirect/owners/placement.hpp>

#include "dataset.cuh"
#include "overlap.cuh"
#include "paths.cuh"
#include "report.hpp"

#include <cstdint>

namespace gnndirect_demo {

/// True when --paths names a path that reads the encoded features (see codec_applies_to).
inline bool needs_encoded_features(const demo_args& a)
{
  return a.codec != "fp32" &&
         std::any_of(a.paths.begin(), a.paths.end(),
                     [](const std::string& p) { return codec_applies_to(p) && p != "transfer"; });
}

/// Runs the paths; the pipeline paths on host-resident features read them encoded with Codec
/// (void: fp32).
template <class Codec, class Index>
int run(demo_args a, report_context ctx, gnndirect::placement_decision where)
{
  auto const stream = gnndirect::make_non_blocking_stream();
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

  // The features the codec paths read: the fp32 table, or a copy encoded once (same placement).
  feature_reference ref = fp32_reference(d);
  feature_rows_t<Index, Codec> features{};
  std::unique_ptr<gnndirect::encoded_table<stored_codec_t<Codec>>> encoded;
  if constexpr (std::is_void_v<Codec>) {
    features = d.features.view();
  } else {
    if (needs_encoded_features(a)) {
      encoded = encode_features<Codec>(a, d);
      features = encoded->view();
      ref = encoded_reference(a.codec, *encoded);
      std::printf("codec %s: %.2f GB of encoded rows (%lld B a row, fp32 %lld B) in %s, %.2f GB of per-row "
                  "metadata in device memory; cpu-centric and all-in-gpu stay fp32 (the baselines)\n\n",
                  a.codec.c_str(), static_cast<double>(encoded->rows() * encoded->stride_bytes()) / 1e9,
                  static_cast<long long>(encoded->stride_bytes()),
                  static_cast<long long>(d.features.view().row_bytes()),
                  gnndirect::to_string(encoded->kind()).data(),
                  static_cast<double>(encoded->device_bytes()) / 1e9);
    }
  }
  std::vector<path_result> results;
  transfer_result transfer;
  if (!a.overlap_variants.empty()) {
    run_overlap_sweep<Codec>(a, d, features, ref, gnndirect::is_host_resident(where.kind), stream.get(), results);
    print_table(ctx, results);
    print_overlap_table(ctx, results);
    if (!a.json.empty() && !write_json(a.json, a, ctx, results, transfer)) { return 1; }
    return 0;
  }
  std::vector<std::string> paths = a.paths;
  if (a.sweeps()) {  // the sweep picks the combination the other pipeline paths then use
    std::stable_partition(paths.begin(), paths.end(), [](const std::string& p) { return p == "gnndirect"; });
  }
  std::string const timeline = a.timeline;
  for (auto const& path : paths) {
    a.timeline = timeline_file(timeline, path);  // --timeline FILE: FILE-<path>.json
    if (path == "gnndirect" && a.sweeps()) {
      run_gnndirect_sweep<Codec>(a, d, features, ref, gnndirect::is_host_resident(where.kind), results);
    } else if (path == "gnndirect") {
      results.push_back(run_pipeline_path<Codec>("gnndirect", a, d, d.graph.view(), features, ref,
                                                 gnndirect::is_host_resident(where.kind)));
    } else if (path == "transfer" && !gnndirect::is_host_resident(where.kind)) {
      transfer.note = "skipped: the device cannot map host memory, so the data is not host-resident";
      std::printf("%-12s %s\n", "transfer", transfer.note.c_str());
      continue;
    } else if (path == "transfer") {
      if constexpr (std::is_void_v<Codec>) {
        transfer = run_transfer_path(a, d);  // a codec without a pipeline of its own, or none
      } else {
        transfer = run_transfer_path_with<Codec>(a, d, encoded.get());
      }
      print_transfer(transfer);
      continue;
    } else if (path == "cached") {
      results.push_back(run_pipeline_path<Codec>("cached", a, d, d.graph.view(), features, ref,
                                                 gnndirect::is_host_resident(where.kind), feature_cache_bytes(a, d)));
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
      results.push_back(run_graph_hbm_path<Codec>(a, d, features, ref, stream.get()));
    } else if (path == "cached-graph-hbm" && !gnndirect::is_host_resident(where.kind)) {
      results.push_back(skipped_path("cached+graph-in-hbm", "skipped: the device cannot map host memory, "
                                                            "so the features are not host-resident"));
    } else if (path == "cached-graph-hbm") {
      results.push_back(run_graph_hbm_path<Codec>(a, d, features, ref, stream.get(), feature_cache_bytes(a, d)));
    }
    print_result_line(results.back(), nullptr);
  }
  print_table(ctx, results);
  if (transfer.ran) { print_transfer(transfer); }
  if (!a.json.empty() && !write_json(a.json, a, ctx, results, transfer)) { return 1; }
  return 0;
}

/// Explicit instantiations live in run_<codec>.cu; every other translation unit only links them.
#define GNNDIRECT_DEMO_RUN_INSTANCES(EXTERN, CODEC)                                                     \
  EXTERN template int run<CODEC, std::int32_t>(demo_args, report_context, gnndirect::placement_decision); \
  EXTERN template int run<CODEC, std::int64_t>(demo_args, report_context, gnndirect::placement_decision)

GNNDIRECT_DEMO_RUN_INSTANCES(extern, void);
GNNDIRECT_DEMO_RUN_INSTANCES(extern, gnndirect::codecs::fp16);
GNNDIRECT_DEMO_RUN_INSTANCES(extern, gnndirect::codecs::bf16);
GNNDIRECT_DEMO_RUN_INSTANCES(extern, gnndirect::codecs::int8_affine);
GNNDIRECT_DEMO_RUN_INSTANCES(extern, gnndirect::codecs::fp8_e4m3);
GNNDIRECT_DEMO_RUN_INSTANCES(extern, gnndirect::codecs::int4_affine);

}  // namespace gnndirect_demo
