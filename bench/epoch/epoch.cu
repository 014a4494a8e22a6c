// The end-to-end benchmark behind scripts/demo (the README's main job): one training epoch's data
// loading for a GNN on a large graph, several ways side by side on one GPU (examples/demo.cu is
// the short read of the same story):
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
// epochs (start_unix_s, end_unix_s), so that an external power log (scripts/gpu paper) can be
// averaged per path.
// Two extras, off by default:
//   --workers/--depth/--gather-blocks lists  sweep the pipeline's worker count, depth and the
//                            feature gathers' block cap on the same data; the best combination
//                            is reported as "gnndirect" and used by the others;
//   path transfer            the feature transfer alone, per batch of an epoch: gnndirect's gather
//                            from the host-resident table against the CPU-centric staged gather of
//                            the same rows (the comparison of PyTorch-Direct, Min et al. 2021).
//
//   epoch [--preset small|products|reddit|twitter|papers100m] [--scale X] [--batch-size N]
//        [--fanouts 15,10,5] [--epochs N] [--max-batches N] [--paths gnndirect,cpu,gpu,transfer]
//        [--workers 1,2,4] [--depth 2,3,4,6] [--gather-blocks 32,128] [--feature-dim D] [--train-nodes N] [--seed S]
//        [--codec fp32|fp16|bf16|int8|fp8|int4] [--json FILE]
// --codec: the pipeline paths on host-resident features (gnndirect, cached, graph-hbm,
// cached-graph-hbm) and the transfer path read a copy of the features encoded once with that row
// codec, decoded to fp32 inside the gather; cpu and gpu stay fp32 (the baselines).
#include <gnndirect/core/device.hpp>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/owners/placement.hpp>

#include "options.hpp"
#include "progress.hpp"
#include "measure.hpp"
#include "dataset.cuh"
#include "paths.cuh"
#include "report.hpp"

namespace gnndirect_demo {

// ---------------------------------------------------------------------------------------------

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
  std::vector<std::string> paths = a.paths;
  if (a.sweeps()) {  // the sweep picks the combination the other pipeline paths then use
    std::stable_partition(paths.begin(), paths.end(), [](const std::string& p) { return p == "gnndirect"; });
  }
  for (auto const& path : paths) {
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

/// run() with the --codec the command line names. The pipeline is instantiated for fp32 and the
/// codecs named in pipeline_codecs (options.hpp), each costing compile time; the other codecs
/// reach the transfer path only and the pipeline paths gather fp32 (said in the output).
template <class Index>
int run_codec(const demo_args& a, const report_context& ctx, gnndirect::placement_decision where)
{
  namespace codecs = gnndirect::codecs;
  if (a.codec == "int8") { return run<codecs::int8_affine, Index>(a, ctx, where); }
  if (a.codec == "int4") { return run<codecs::int4_affine, Index>(a, ctx, where); }
  if (a.codec != "fp32" && needs_encoded_features(a)) {
    std::printf("codec %s: applies to the transfer path only; the pipeline paths gather fp32 (instantiated "
                "for the codecs %s)\n\n", a.codec.c_str(), pipeline_codecs);
  }
  return run<void, Index>(a, ctx, where);
}

}  // namespace gnndirect_demo

int main(int argc, char** argv)
{
  using namespace gnndirect_demo;
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
      return run_codec<std::int32_t>(a, ctx, where);
    }
    return run_codec<std::int64_t>(a, ctx, where);
  } catch (const gnndirect::error& e) {
    std::fprintf(stderr, "demo: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "demo: %s\n", e.what());
    return 1;
  }
}
