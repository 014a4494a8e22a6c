#pragma once
/// @file minibatch_pipeline.cuh
/// @brief Mini-batch pipeline: shuffled seeds -> sampled blocks -> gathered features and labels,
/// prepared on side streams by worker threads while the consumer trains on earlier batches.
///
/// The convenience type: batch_scheduler (pipeline/scheduler.cuh: workers, slots, streams, batch
/// order, event-ordered hand-off) running the GNN recipe gnn_preparer (pipeline/gnn_preparer.cuh:
/// sample_blocks_async, feature and label gathers, optional cache tier), with its memory from a
/// caller's resource or from the pipeline's own pool. Up to `depth` batches exist at once (in
/// preparation, ready, or held by the consumer); each slot's arrays are allocated once and reused.
///
/// Consumer protocol (one consumer thread):
/// @code
///   pipeline.start_epoch(epoch);
///   while (auto* batch = pipeline.next(train_stream)) {  // train_stream waits for the batch
///     train_step(train_stream, batch->blocks, batch->features, batch->labels);
///     pipeline.release(batch, train_stream);            // reused once train_stream is past here
///   }
/// @endcode
/// Synchronisation and graph capture: see scheduler.cuh (next() and release() never wait for the
/// GPU beyond the batch being ready, and must not be called while `consumer` is being captured).

#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/cuda_handles.hpp>
#include <gnndirect/pipeline/epoch_order.hpp>
#include <gnndirect/pipeline/gnn_preparer.cuh>
#include <gnndirect/pipeline/scheduler.cuh>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Counters of a pipeline (a snapshot).
struct pipeline_stats {
  std::int64_t batches_prepared{0};   ///< since construction, all epochs
  std::uint64_t feature_bytes{0};     ///< feature bytes gathered since construction
  std::int64_t epoch{-1};             ///< the current epoch (-1 before the first start_epoch)
  std::vector<batch_timing> batches;  ///< current epoch, in batch order
};

/// Prepares shuffled mini-batches (blocks, features, labels) ahead of a training loop.
///
/// @tparam Offset, Index the graph's offset and node id types (int32_t or int64_t)
/// @tparam Feature feature element type  @tparam Label label type (trivially copyable)
/// @tparam Sampler what every batch draws: any model of the sampler concept
/// (device/samplers.hpp); with a with_seed member each batch gets its own random stream
/// (pipeline_options::seed); a temporal_sampler needs one query time per training id
/// (the constructor with training_times)
/// @tparam Codec void (features: table_view<const Feature>) or a row codec producing Feature
/// (features: encoded_view<Codec>, decoded inside the feature gather; see gnn_preparer)
/// @tparam GatherSelector the gather selector (core/gather_tuning.hpp) that fills the feature
/// gathers' automatic knobs (feature_gather_policy())
///
/// The graph, features and labels are borrowed (views): they must outlive the pipeline. Not
/// copyable or movable (worker threads refer to it). next() and release() are for one consumer
/// thread; stats() may be called from any thread.
template <class Offset, class Index, class Feature, class Label, class Sampler = uniform_sampler,
          class Codec = void, class GatherSelector = default_gather_selector>
class minibatch_pipeline {
 public:
  /// The preparer (the GNN recipe) the scheduler runs.
  using preparer_type = gnn_preparer<Offset, Index, Feature, Label, Sampler, Codec, GatherSelector>;
  /// The batch type next() hands out.
  using batch_type = typename preparer_type::batch_type;

  /// Sets up the memory (the caller's resource, or the pipeline's own retaining pool), reserves
  /// options.reserve_bytes, builds the feature cache and `depth` slots (a non-blocking stream,
  /// pinned seed staging, bound-sized block arrays, events) on the current device; starts no
  /// batch (call start_epoch). Synchronous.
  /// @param graph device-visible CSR graph in any placement
  /// @param features device-visible table with a row per node (rows >= graph.num_nodes)
  /// @param labels device-visible array of graph.num_nodes labels
  /// @param training_ids the training node ids (host); ids out of range make next() throw
  /// @param options see pipeline_options
  /// @param sampler what every batch draws (default: a value-initialised Sampler, e.g. a
  /// uniform_sampler; reseeded per batch when it has with_seed)
  /// @param mr memory resource for every device array (default: a retaining pool owned by the
  /// pipeline, see memory_pool()); it must outlive the pipeline
  /// @throws invalid_argument (options, shapes, sampling policy, weights missing for a sampler
  /// with needs_weights, pageable labels), cuda_error, allocation_error, no_device_error.
  minibatch_pipeline(const csr_view<Offset, Index>& graph, typename preparer_type::feature_rows_type features,
                     const Label* labels, std::vector<Index> training_ids, pipeline_options options,
                     const Sampler& sampler = Sampler{}, resource_ref mr = {})
    : minibatch_pipeline(graph, features, labels, std::move(training_ids), {}, std::move(options), sampler, mr)
  {
  }

  /// As above, with one query time per training id for a temporal_sampler
  /// (device/temporal_samplers.hpp): each batch's seeds are sampled with their times, shuffled
  /// with the ids (a temporal node-classification epoch; batch->seed_times holds them on the
  /// device). See gnn_preparer's constructor of the same form.
  /// @param graph, features, labels, training_ids as above
  /// @param training_times one query time per training id (empty for a non-temporal sampler)
  /// @param options, sampler, mr as above
  /// @throws as above; invalid_argument for seeds without times, times given to a non-temporal
  /// sampler, or the temporal sampler's times of the wrong length.
  minibatch_pipeline(const csr_view<Offset, Index>& graph, typename preparer_type::feature_rows_type features,
                     const Label* labels, std::vector<Index> training_ids, std::vector<std::int64_t> training_times,
                     pipeline_options options, const Sampler& sampler = Sampler{}, resource_ref mr = {})
    : pool_(make_retaining_pool(require_device())),
      own_resource_(pool_.get()),
      stream_(make_non_blocking_stream()),
      preparer_(graph, features, labels, std::move(training_ids), std::move(training_times), std::move(options), sampler,
                mr.is_default() ? resource_ref(own_resource_) : mr, stream_.get()),
      scheduler_(preparer_, scheduler_options{preparer_.options().depth, preparer_.options().workers,
                                              preparer_.options().worker_wait, preparer_.options().timeline})
  {
  }

  minibatch_pipeline(const minibatch_pipeline&) = delete;
  minibatch_pipeline& operator=(const minibatch_pipeline&) = delete;

  /// Stops the workers (after the batches they are preparing, if any), treats batches still held
  /// as released on the stream they were handed to (that stream must still exist), frees every
  /// slot on its stream after the consumers and synchronises. Never throws.
  ~minibatch_pipeline() { GNNDIRECT_CUDA_TRY_NOTHROW(cudaStreamSynchronize(stream_.get())); }

  /// The hot-row tier of the features, or null when options.cache_bytes is 0. Rebuild it only
  /// between epochs (no batch in preparation or held).  @return the tier, or null
  typename preparer_type::feature_cache_type* feature_cache() noexcept { return preparer_.feature_cache(); }

  /// Starts epoch `epoch`: stops the previous epoch's workers (batches still held are treated as
  /// released on the stream they were handed to), shuffles the training ids with
  /// shuffle_epoch(ids, options.seed, epoch) and starts the workers.
  /// @param epoch the epoch
  /// @throws std::system_error when a thread cannot be started (the ones started keep working).
  void start_epoch(std::int64_t epoch) { scheduler_.start_epoch(epoch); }

  /// Waits (host) until the next batch of the epoch is prepared, makes `consumer` wait for it on
  /// the GPU and returns it; nullptr once the epoch's batches have all been handed out.
  /// @throws what preparing the batch threw (e.g. index_out_of_range naming "training_ids"),
  /// again on every call until the next start_epoch; invalid_argument before start_epoch, or
  /// when all `depth` batches are held; cuda_error.
  /// @param consumer the stream that will use the batch
  /// @return the batch, or nullptr at the epoch's end
  batch_type* next(cudaStream_t consumer) { return scheduler_.next(consumer); }

  /// Gives a batch back (see batch_scheduler::release); never waits for the GPU.
  /// @param batch what next() handed out  @param consumer the stream that used it
  /// @throws invalid_argument for a pointer next() did not hand out (or released twice);
  /// cuda_error.
  void release(const batch_type* batch, cudaStream_t consumer) { scheduler_.release(batch, consumer); }

  /// @return batches per epoch: ceil(training ids / batch_size), or floor with drop_last
  std::int64_t num_batches() const noexcept { return preparer_.num_batches(); }

  /// The current epoch's shuffled training ids (batch b holds positions [b * batch_size, ...)).
  /// Stable until the next start_epoch.  @return the ids
  const std::vector<Index>& epoch_order() const noexcept { return preparer_.epoch_order(); }

  /// A snapshot of the counters and of the current epoch's per-batch timestamps. Thread-safe.
  /// @return the snapshot
  pipeline_stats stats() const
  {
    scheduler_stats s = scheduler_.stats();
    return pipeline_stats{s.batches_prepared, s.payload_bytes, s.epoch, std::move(s.batches)};
  }

  /// The feature gathers' policy, every knob explicit (gnn_preparer::feature_gather_policy).
  /// @return the policy
  gather_policy feature_gather_policy() const { return preparer_.feature_gather_policy(); }

  /// The pipeline's own memory pool (used when no resource was given; e.g. to read
  /// cudaMemPoolAttrReservedMemCurrent).  @return the pool
  cudaMemPool_t memory_pool() const noexcept { return pool_.get(); }
  /// The stream of the pipeline's own set-up work (pool reserve, cache fill). Batches are
  /// prepared on the streams of their slots.  @return the stream
  cudaStream_t side_stream() const noexcept { return stream_.get(); }
  /// @return the options in effect
  const pipeline_options& options() const noexcept { return preparer_.options(); }

 private:
  // Declaration order is destruction order reversed: the scheduler (slots, workers) goes first,
  // then the preparer (cache), and the pool last, after everything was freed into it.
  pool_handle pool_;
  device_pool_resource own_resource_;
  stream_handle stream_;  // set-up work
  preparer_type preparer_;
  batch_scheduler<preparer_type> scheduler_;
};

GNNDIRECT_NAMESPACE_END
