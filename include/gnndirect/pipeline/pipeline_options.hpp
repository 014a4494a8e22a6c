#pragma once
/// @file pipeline_options.hpp
/// @brief What a minibatch_pipeline (pipeline/minibatch_pipeline.cuh) or a gnn_preparer
/// (pipeline/gnn_preparer.cuh) prepares and how: pipeline_options and its defaults.

#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/wait_mode.hpp>
#include <gnndirect/pipeline/timeline.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Default of pipeline_options::gather_priority (one line to change once measured: scripts/gpu
/// overlap compares -1, 0 and 1 on the same data).
inline constexpr int default_gather_priority = 0;
/// Default of pipeline_options::calibrate_gather (likewise one line, set from scripts/gpu overlap
/// and bench_gather's gather_link rows on each lent machine).
inline constexpr bool default_calibrate_gather = false;

/// What a minibatch_pipeline (or a gnn_preparer) prepares and how.
struct pipeline_options {
  std::vector<int> fanouts{15, 10, 5};  ///< one fanout per layer, seeds side first (at least one)
  std::int64_t batch_size{1024};        ///< seeds per batch (> 0)
  bool drop_last{false};                ///< drop the last batch when it is smaller than batch_size
  /// Sampling tile, block cap (sampling.max_blocks, 0: none; the one cap of sampling) and checks
  /// (what is drawn is the pipeline's Sampler type).
  sampling_policy sampling{};
  /// The key of every random choice of the pipeline: epoch e's shuffle is shuffle_epoch(ids,
  /// seed, e), and its batch b samples with sampler.with_seed(batch_sampling_seed(seed, e, b))
  /// when the sampler has with_seed (device/samplers.hpp), so each batch draws fresh neighbours;
  /// the two are independent streams of the one key (pipeline/epoch_order.hpp). The sampler's own
  /// seed is then not used (it keys the one-shot sampling calls).
  std::uint64_t seed{0};
  /// How feature and label rows are gathered (gather.max_blocks: the one cap of the gathers).
  /// Automatic fields are filled by the pipeline's GatherSelector (core/gather_tuning.hpp): for
  /// host memory 32 blocks, which leave SMs to training kernels, or with calibrate_gather what
  /// the machine's link needs; with a cache tier (cache_bytes) its gathers get the same 32, not
  /// the tier's standalone full grid. A pipeline whose GPU does nothing else gains from more:
  /// H200, papers100M demo, preparation alone: 2.47 s per epoch with 32, 2.21 s with 256 (the
  /// other workers' sampling holds the SMs a 32-block gather waits for). Beside GraphSAGE
  /// training, 256 slowed the products epoch from 1.12 to 1.69 s.
  gather_policy gather{};
  /// Batches in flight (in preparation, ready or held). 2 is double buffering; with `workers`
  /// > 1, depth >= workers + 1 lets the workers overlap while the consumer holds a batch.
  int depth{3};
  /// Host threads preparing batches concurrently (>= 1), each on its own stream: 2 overlaps one
  /// batch's sampling with the previous batch's gathers.
  int workers{2};
  /// How the workers wait for the GPU (sleep: no CPU time while waiting; spin: lowest latency).
  wait_mode worker_wait{wait_mode::sleep};
  /// Bytes to allocate from the memory resource once at construction and free again, so that a
  /// retaining pool (the pipeline's own, by default) is grown to the working set up front.
  std::size_t reserve_bytes{0};
  /// When > 0, device bytes for a tier of hot feature rows (cache/tiered_table.cuh), filled at
  /// construction with the highest-degree nodes; features of cached nodes are then gathered from
  /// HBM, the others from the host table, in one launch. Rebuild it between epochs through
  /// feature_cache() (e.g. with hot_rows_by_count from pre-sampling). Ignored for
  /// device-resident features (features.kind device): every row is in HBM already.
  std::size_t cache_bytes{0};
  /// Where each slot's pinned staging (the seeds' path to the device, the counts read back)
  /// comes from: mapped page-locked memory (see core/host_resource.hpp); default
  /// pinned_host_resource (cudaHostAlloc). The resource must outlive the pipeline.
  host_resource_ref host_memory{};
  /// Which of a batch's stages the GPU's block scheduler favours, through a second stream per
  /// slot of the device's greatest priority, forked from the slot's stream and joined back with
  /// events. 1: the feature and label gathers run there, so their blocks are dispatched before
  /// those of other batches' sampling kernels already queued (a link-bound gather starts as soon
  /// as its batch is sampled; the MLPerf GNN recipe's high-priority feature stream). -1: the
  /// seeds' copy, sampling and the counts run there instead, so that sampling is not queued
  /// behind the link-bound gathers of other batches holding the SMs. 0: every stage on the
  /// slot's stream (no priorities).
  int gather_priority{default_gather_priority};
  /// Measure this machine's host-link ceilings at construction (measured_machine_ceilings,
  /// algorithms/machine_ceilings.cuh: a few hundred milliseconds, once per process and device)
  /// and give them to the GatherSelector, which then sizes the feature gathers' block cap to the
  /// loads in flight the link needs (the selector's fixed defaults were measured on an H200,
  /// whose link needs 8x fewer than the H100 machine's). Only for host-resident features without
  /// a cache tier and with gather.max_blocks 0: an explicit cap always wins. Off: the selector
  /// is told the device (compute capability, SMs) but no ceilings. See feature_gather_policy().
  bool calibrate_gather{default_calibrate_gather};
  /// When not null, every batch records its stages into this timeline (borrowed; it must outlive
  /// the pipeline): "seeds" (the seeds' copy), "sample" (every layer's sampling and relabelling),
  /// "counts" (the sizes' copy back), "features", "labels", on lanes "slot S" (and "slot S
  /// priority", the second stream of gather_priority), plus the scheduler's spans
  /// (scheduler_options::timeline).
  /// Null (the default): nothing is recorded.
  pipeline_timeline* timeline{nullptr};
};

GNNDIRECT_NAMESPACE_END
