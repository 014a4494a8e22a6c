#pragma once
// The epoch benchmark (bench/epoch/epoch.cu), --overlap-sweep: the pipeline paths once per
// overlap variant on the same data, and how much of the GPU work and the link floor each overlaps.
//
// Issue #44: a host-resident epoch measured as the all-in-GPU epoch *plus* its link floor (bytes
// that must cross the link / the link peak), where overlapped preparation would take the larger
// of the two. Each variant changes one knob against `base` (the command line as given), so the
// table shows which remedy moves the epoch from the sum towards the maximum:
//   base        the command line as given
//   prio        gathers on a stream of the greatest priority (pipeline_options::gather_priority 1)
//   sprio       sampling on that stream instead, the gathers below it (gather_priority -1)
//   noprio      every stage on the slot's own stream (gather_priority 0)
//   gb32        feature gathers capped at 32 blocks (the library selector's budget from host memory)
//   gbfull      feature gathers on a full grid (SMs x 8 blocks of 256 threads)
//   sbsms       sampling kernels capped at one block per SM, leaving SMs for other batches' gathers
//   prio+sbsms  both
//   unsorted    no locality sort before the feature gathers (one launch instead of iota + sort + gather)
//   more        twice the workers and twice the batches in flight
//   w1          one worker (a control: no two batches' GPU work at once)
//   calib       no explicit gather cap; the pipeline calibrates cap and rows in flight on the features
//   depth+1     at least workers + 1 batches in flight, so that a worker whose batch is ready need not
//               wait for the batches before it to be consumed (the timeline's head-of-line gaps)
#include <gnndirect/core/device.hpp>

#include "paths.cuh"
#include "report.hpp"

#include <optional>

namespace gnndirect_demo {

/// The pipeline paths of --paths (gnndirect, cached, graph-hbm, cached-graph-hbm, gpu), each once
/// per --overlap-sweep variant on the same data, after a short untimed warm-up; the device copies
/// a path needs are made once for all its variants. Paths that are no pipeline (cpu, transfer)
/// are left out with a line saying so. With --timeline, the gnndirect path of every variant (of
/// --timeline-variants, when given) writes its timeline (FILE-gnndirect-<variant>.json).
/// @tparam Codec void (fp32 features) or the row codec of `features` (see run_pipeline_path)
template <class Codec, class Index>
void run_overlap_sweep(const demo_args& a, const dataset<Index>& d, feature_rows_t<Index, Codec> features,
                       const feature_reference& ref, bool host_resident, cudaStream_t stream,
                       std::vector<path_result>& results)
{
  int const sms = gnndirect::device_attribute(cudaDevAttrMultiProcessorCount, gnndirect::require_device());
  {
    demo_args warm = a;
    warm.epochs = 1;
    warm.timeline.clear();
    warm.max_batches = std::min<std::int64_t>(batches_per_epoch(a, static_cast<std::int64_t>(d.training_ids.size())), 32);
    (void)run_pipeline_path<Codec>("warm-up", warm, d, d.graph.view(), features, ref, false);
  }
  for (auto const& path : a.paths) {
    std::string base;
    std::optional<std::string> why;
    gnndirect::buffer<Index> indices;
    gnndirect::buffer<float> all_features;
    bool const cached = path == "cached" || path == "cached-graph-hbm";
    std::size_t const cache_bytes = cached ? feature_cache_bytes(a, d) : 0;
    if (path == "gnndirect" || path == "cached") {
      base = path;
    } else if (path == "graph-hbm" || path == "cached-graph-hbm") {
      base = cached ? "cached+graph-in-hbm" : "graph-in-hbm";
      if (!host_resident) {
        why = "skipped: the device cannot map host memory, so the features are not host-resident";
      } else {
        why = does_not_fit(d.graph.indices().bytes() + cache_bytes, "the neighbour lists");
      }
      if (!why) { indices = device_copy(d.graph.indices().data(), d.graph.indices().size(), stream); }
    } else if (path == "gpu") {
      base = "all-in-gpu";
      why = does_not_fit(d.graph.indices().bytes() + d.features.bytes(), "graph + features");
      if (!why) {
        elapsed_ticker const ticker("copying graph and features into GPU memory");
        indices = device_copy(d.graph.indices().data(), d.graph.indices().size(), stream);
        all_features = device_copy(d.features.view().data,
                                   static_cast<std::size_t>(d.features.rows() * d.features.cols()), stream);
      }
    } else {
      std::printf("%-12s left out of the overlap sweep (not a pipeline path)\n", path.c_str());
      continue;
    }
    for (auto const& variant : a.overlap_variants) {
      std::string const name = base + " [" + variant + "]";
      demo_args va = with_overlap_variant(a, variant, sms);
      bool const recorded = base == "gnndirect" &&
                            (a.timeline_variants.empty() || std::find(a.timeline_variants.begin(), a.timeline_variants.end(),
                                                                      variant) != a.timeline_variants.end());
      va.timeline = recorded ? timeline_file(a.timeline, base, variant) : std::string{};
      path_result r{name};
      if (why) {
        r = skipped_path(name, *why);
      } else if (base == "all-in-gpu") {
        gnndirect::table_view<const float> const table(all_features.data(), d.features.rows(), d.features.cols(),
                                                       d.features.cols(), memory_kind::device);
        r = run_pipeline_path<void>(name, va, d, graph_with_device_indices(d, indices.data()), table,
                                    fp32_reference(d), false);
      } else if (base == "gnndirect" || base == "cached") {
        r = run_pipeline_path<Codec>(name, va, d, d.graph.view(), features, ref, host_resident, cache_bytes);
      } else {
        r = run_pipeline_path<Codec>(name, va, d, graph_with_device_indices(d, indices.data()), features, ref, false,
                                     cache_bytes);
      }
      r.variant = variant;
      r.base_name = base;
      print_result_line(r, nullptr, 32);
      results.push_back(std::move(r));
    }
  }
}

}  // namespace gnndirect_demo
