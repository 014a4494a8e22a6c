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
//   --workers/--depth/--gather-max-blocks lists  sweep the pipeline's worker count, depth and the
//                            feature gathers' block cap on the same data; the best combination
//                            is reported as "gnndirect" and used by the others;
//   path transfer            the feature transfer alone, per batch of an epoch: gnndirect's gather
//                            from the host-resident table against the CPU-centric staged gather of
//                            the same rows (the comparison of PyTorch-Direct, Min et al. 2021).
//
//   epoch [--preset small|products|reddit|twitter|papers100m] [--scale X] [--batch-size N]
//        [--fanouts 15,10,5] [--epochs N] [--max-batches N] [--paths gnndirect,cpu,gpu,transfer]
//        [--workers 1,2,4] [--depth 2,3,4,6] [--gather-max-blocks 32,128] [--feature-dim D] [--train-nodes N] [--seed S]
//        [--codec fp32|fp16|bf16|int8|fp8|int4] [--json FILE]
// --codec: the pipeline paths on host-resident features (gnndirect, cached, graph-hbm,
// cached-graph-hbm) and the transfer path read a copy of the features encoded once with that row
// codec, decoded to fp32 inside the gather; cpu and gpu stay fp32 (the baselines).

#include "options.hpp"
#include "progress.hpp"
#include "measure.hpp"
#include "run.cuh"

namespace gnndirect_demo {

/// run() with the --codec the command line names (with_codec_type: void for fp32).
template <class Index>
int run_codec(const demo_args& a, const report_context& ctx, gnndirect::placement_decision where)
{
  return with_codec_type(a.codec, [&](auto tag) { return run<typename decltype(tag)::type, Index>(a, ctx, where); });
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
