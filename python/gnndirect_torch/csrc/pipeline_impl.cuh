#pragma once
/// @file pipeline_impl.cuh
/// @brief The one C++ wrapper of gnndirect::minibatch_pipeline behind pipeline_base: the batch
/// hand-off to PyTorch (batch_hand_off) and the typed pipeline over tensors (typed_pipeline),
/// included by the generated units pipeline_cuda_i{32,64}_f{2,4}.cu (plain features) and
/// pipeline_cuda_i{32,64}_codecs.cu (encoded ones; see python/generated_units.py).
///
/// batch_hand_off: zero-copy hand-off of minibatch_pipeline batches to PyTorch: a batch's device
/// arrays become tensors that are views of the pipeline's own memory (no device-to-device copy),
/// and the batch's slot goes back to the pipeline only when the last of those tensors is gone.
///
/// Lifetime protocol. next() wraps each array of the batch in a tensor (at::from_blob) whose
/// deleter holds a shared `lease` on the batch; the lease's destructor (the last tensor's
/// storage died) releases the batch to the pipeline, ordered after the work enqueued so far on
/// the stream the batch was handed to and on the stream current in the releasing thread (both
/// recorded as events that a private release stream waits for; the pipeline's slot stream waits
/// for that stream before the slot is reused). So a slot is never rewritten while Python holds
/// any tensor of its batch or while GPU work enqueued before the last tensor died may read it.
///
/// Detaching. Three events need a held batch's slot back while Python may still hold tensors of
/// it: starting an epoch (the library treats held batches as released), destroying the pipeline
/// (loader.close()), and next() with every slot held. Then the batch is *detached*: each live
/// storage gets a fresh block of torch's caching allocator, its bytes are copied there on the
/// current stream (after the batch's consumer stream), the storage is re-pointed at the copy
/// (StorageImpl::set_data_ptr: every view follows), and the slot is released. Those copies are
/// counted by count_device_copy; a training loop that drops each batch before asking for the
/// one after next never detaches.
///
/// batch_hand_off is host code (ATen, c10 CUDA headers, CUDA runtime), templated on the pipeline type.

#include "codec.hpp"
#include "common.hpp"
#include "pipeline.hpp"
#include "sample_common.hpp"
#include "torch_resource.cuh"

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/pipeline/minibatch_pipeline.cuh>

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/core/StorageImpl.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <utility>
#include <type_traits>
#include <vector>

namespace gnndirect_torch {
namespace detail {

// -- batch_hand_off: the batches' zero-copy hand-off ------------------------------------------

/// Creates the hand-off's release stream (non-blocking) and its two events (no timing).
/// @throws gnndirect::cuda_error.
inline void make_hand_off_handles(cudaStream_t& stream, cudaEvent_t& first, cudaEvent_t& second)
{
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  GNNDIRECT_CUDA_TRY(cudaEventCreateWithFlags(&first, cudaEventDisableTiming));
  GNNDIRECT_CUDA_TRY(cudaEventCreateWithFlags(&second, cudaEventDisableTiming));
}

/// Makes `waiter` wait for the work enqueued on `stream` so far, through `event`.
inline void wait_for(cudaStream_t waiter, cudaStream_t stream, cudaEvent_t event)
{
  if (waiter == stream) { return; }
  GNNDIRECT_CUDA_TRY(cudaEventRecord(event, stream));
  GNNDIRECT_CUDA_TRY(cudaStreamWaitEvent(waiter, event, 0));
}

/// Owns a minibatch_pipeline (any type with batch_type, next(stream), release(batch, stream)
/// and options().depth) and hands its batches out as leases whose tensors view the batch's
/// memory (see the file comment). Shared: every lease keeps it alive. Thread-safe: leases may
/// die on any thread (the release takes the internal mutex); next() and the detach functions are
/// for the one consumer thread (the Python loader serialises them under its lock).
template <class Pipeline>
class batch_hand_off {
 public:
  using batch_type = typename Pipeline::batch_type;

  /// One handed-out batch. Its tensors' deleters share it; its destructor releases the batch.
  class lease {
   public:
    lease(std::shared_ptr<batch_hand_off> owner, const batch_type* batch, cudaStream_t consumer)
      : owner_(std::move(owner)), batch_(batch), consumer_(consumer)
    {
    }
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;
    /// Releases the batch (unless it was detached); never throws.
    ~lease() { owner_->on_lease_gone(*this); }

    /// The batch.
    const batch_type& batch() const noexcept { return *batch_; }

   private:
    friend class batch_hand_off;
    std::shared_ptr<batch_hand_off> owner_;
    const batch_type* batch_;
    cudaStream_t consumer_;
    std::mutex mutex_;  // guards storages_
    std::vector<c10::weak_intrusive_ptr<c10::StorageImpl>> storages_;
    bool released_{false};  // under the owner's mutex
  };

  /// Takes the pipeline; `device` is its CUDA device. @throws cuda_error.
  batch_hand_off(std::unique_ptr<Pipeline> pipeline, int device)
    : device_(device), pipeline_(std::move(pipeline))
  {
    make_hand_off_handles(release_stream_, consumer_done_, current_done_);
  }
  batch_hand_off(const batch_hand_off&) = delete;
  batch_hand_off& operator=(const batch_hand_off&) = delete;
  /// Destroys the pipeline if shutdown() did not, then the stream and events. Never throws.
  ~batch_hand_off()
  {
    pipeline_.reset();
    if (release_stream_ != nullptr) { (void)cudaStreamSynchronize(release_stream_); }
    (void)cudaEventDestroy(consumer_done_);
    (void)cudaEventDestroy(current_done_);
    (void)cudaStreamDestroy(release_stream_);
    (void)cudaGetLastError();
  }

  /// The pipeline (null after shutdown()).
  Pipeline* pipeline() const noexcept { return pipeline_.get(); }

  /// The next batch on `consumer` as a lease, or null at the end of the epoch; first detaches the
  /// oldest held batch when every slot is held (see the file comment). Blocks until the batch is
  /// prepared; `self` is this object's owner. @throws what the pipeline's next() throws.
  static std::shared_ptr<lease> next(const std::shared_ptr<batch_hand_off>& self, cudaStream_t consumer)
  {
    self->detach_oldest(false);
    const batch_type* batch = self->pipeline_->next(consumer);
    if (batch == nullptr) { return nullptr; }
    std::shared_ptr<lease> held;
    try {
      held = std::make_shared<lease>(self, batch, consumer);
    } catch (...) {
      self->pipeline_->release(batch, consumer);
      throw;
    }
    std::lock_guard<std::mutex> const lock(self->mutex_);
    self->held_.push_back(held.get());
    return held;
  }

  /// A tensor of `sizes` x `dtype` viewing `data` (device memory of `held`'s batch, contiguous),
  /// registered with the lease so that it can be detached; an ordinary empty tensor when it has
  /// no elements. @throws c10 errors.
  at::Tensor view(const std::shared_ptr<lease>& held, const void* data, at::IntArrayRef sizes,
                  at::ScalarType dtype) const
  {
    at::Device const device(at::kCUDA, static_cast<c10::DeviceIndex>(device_));
    auto const options = at::TensorOptions().dtype(dtype).device(device);
    std::int64_t numel = 1;
    for (std::int64_t s : sizes) { numel *= s; }
    if (numel == 0 || data == nullptr) { return at::empty(sizes, options); }
    // The deleter's copy of `held` is the tensor's share of the lease. The device is given, so
    // torch does not ask the driver where the pointer lives.
    at::Tensor t = at::from_blob(const_cast<void*>(data), sizes, [held](void*) {}, options, device);
    std::lock_guard<std::mutex> const lock(held->mutex_);
    held->storages_.push_back(t.storage().getWeakStorageImpl());
    return t;
  }

  /// Batches handed out whose tensors are still alive (and not detached).
  std::int64_t held() const
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    return static_cast<std::int64_t>(held_.size());
  }

  /// Detaches held batches: all of them with `all`, else the oldest ones until a slot is free
  /// for next(). Run it while no other thread uses those tensors (their storages are re-pointed).
  /// Returns the number detached. @throws c10/gnndirect errors (allocation, CUDA).
  std::int64_t detach_oldest(bool all)
  {
    std::vector<c10::intrusive_ptr<c10::StorageImpl>> kept;  // die after the lock: a lease may go
    std::vector<c10::DataPtr> old;                            // likewise (the deleters' shares)
    std::int64_t detached = 0;
    {
      std::lock_guard<std::mutex> const lock(mutex_);
      if (pipeline_ == nullptr) { return 0; }
      auto const depth = static_cast<std::size_t>(pipeline_->options().depth);
      c10::cuda::CUDAGuard const guard(static_cast<c10::DeviceIndex>(device_));
      while (!held_.empty() && (all || held_.size() >= depth)) {
        detach(*held_.front(), kept, old);  // on failure it stays held (and is detached later)
        held_.erase(held_.begin());
        ++detached;
      }
    }
    return detached;
  }

  /// Detaches every held batch and destroys the pipeline (its workers stop; its memory returns to
  /// torch's cache). Later lease deaths only unregister. @throws as detach_oldest (the pipeline is
  /// destroyed all the same).
  void shutdown()
  {
    struct destroy_last {
      batch_hand_off& self;
      ~destroy_last()
      {
        std::unique_ptr<Pipeline> gone;
        {
          std::lock_guard<std::mutex> const lock(self.mutex_);
          gone = std::move(self.pipeline_);
        }
      }
    } const finally{*this};
    detach_oldest(true);
  }

 private:
  /// Copies `l`'s live storages into torch's caching allocator on the current stream (after the
  /// consumer stream), re-points them, and releases the batch. Under mutex_.
  void detach(lease& l, std::vector<c10::intrusive_ptr<c10::StorageImpl>>& kept,
              std::vector<c10::DataPtr>& old)
  {
    if (l.released_) { return; }
    cudaStream_t const current = at::cuda::getCurrentCUDAStream(device_).stream();
    wait_for(current, l.consumer_, consumer_done_);
    {
      std::lock_guard<std::mutex> const lock(l.mutex_);
      // Room first: nothing that holds a share of a lease may be destroyed under mutex_ (the
      // last share's destructor takes it), so no push_back below may throw.
      kept.reserve(kept.size() + l.storages_.size());
      old.reserve(old.size() + l.storages_.size());
      for (auto& weak : l.storages_) {
        c10::intrusive_ptr<c10::StorageImpl> storage = weak.lock();
        if (!storage) { continue; }  // that tensor is gone already
        kept.push_back(storage);
        std::size_t const bytes = storage->nbytes();
        c10::DataPtr fresh = c10::cuda::CUDACachingAllocator::get()->allocate(bytes);
        GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(fresh.get(), storage->data(), bytes, cudaMemcpyDeviceToDevice, current));
        count_device_copy(bytes);
        old.push_back(storage->set_data_ptr(std::move(fresh)));
      }
      l.storages_.clear();
    }
    release(l);
  }

  /// Gives `l`'s batch back to the pipeline after the consumer stream and the current stream
  /// (through the release stream). Under mutex_. @throws gnndirect errors.
  void release(lease& l)
  {
    cudaStream_t const current = at::cuda::getCurrentCUDAStream(device_).stream();
    wait_for(release_stream_, l.consumer_, consumer_done_);
    wait_for(release_stream_, current, current_done_);
    pipeline_->release(l.batch_, release_stream_);
    l.released_ = true;
  }

  /// The last tensor of `l` is gone: unregister it and release its batch. Never throws (a
  /// failure is reported on stderr; the slot then stays held until the pipeline is destroyed).
  void on_lease_gone(lease& l) noexcept
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    auto const found = std::find(held_.begin(), held_.end(), &l);
    if (found != held_.end()) { held_.erase(found); }
    if (l.released_ || pipeline_ == nullptr) { return; }
    try {
      c10::cuda::CUDAGuard const guard(static_cast<c10::DeviceIndex>(device_));
      release(l);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gnndirect_torch: releasing a batch failed: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "gnndirect_torch: releasing a batch failed\n");
    }
  }

  int device_;
  cudaStream_t release_stream_{nullptr};  // the slots' streams wait for it (never the user's)
  cudaEvent_t consumer_done_{nullptr};    // reused under mutex_: a wait captures the record
  cudaEvent_t current_done_{nullptr};
  mutable std::mutex mutex_;              // guards held_, pipeline_ and the leases' released_
  std::vector<lease*> held_;              // live, not released, oldest first
  std::unique_ptr<Pipeline> pipeline_;
};


// -- typed_pipeline: the pipeline over tensors -------------------------------------------------

/// The loader's sampler: the library sampler that the ops' arguments name (make_request: uniform,
/// with replacement, or weighted), mapped onto its type in device code through the ops' own table
/// (visit_sampler_kind), so that every choice of the ops reaches the loader too. The binding is a
/// run-time boundary: rather than instantiating the whole pipeline once per sampler type, this one
/// sampler type forwards each node to the sampler its kind names (the branch is uniform across
/// the grid). needs_weights is false because the kind is a run-time value: the binding passes the
/// weights whenever the kind is weighted (make_request's weighted flag is "weights given").
/// Reseeded per batch by the pipeline through with_seed.
struct chosen_sampler {
  static constexpr bool needs_weights = false;
  gnndirect::sampling_kind kind{gnndirect::sampling_kind::uniform_without_replacement};  ///< which sampler
  std::uint64_t seed{0};  ///< Philox key

  /// The same sampler on another random stream.  @param new_seed the key  @return the sampler
  chosen_sampler with_seed(std::uint64_t new_seed) const noexcept { return {kind, new_seed}; }
  /// Scratch bytes of the chosen sampler.  @param fanout draws  @param tile_size tile threads
  /// @return the bytes
  GNNDIRECT_HOST_DEVICE std::size_t scratch_bytes(int fanout, int tile_size) const noexcept
  {
    return visit_sampler_kind(kind, seed, [&](const auto& sampler) { return sampler.scratch_bytes(fanout, tile_size); });
  }
  /// Samples with the chosen sampler (see the sampler concept, device/samplers.hpp).
  template <class Tile, class Offset, class Index>
  __device__ std::int64_t sample(const Tile& tile, const gnndirect::csr_view<Offset, Index>& csr,
                                 const gnndirect::node_edges<Offset>& edges, int fanout, int layer,
                                 void* scratch, const gnndirect::sampled_output<Offset, Index>& out) const
  {
    return visit_sampler_kind(kind, seed, [&](const auto& sampler) -> std::int64_t {
      return sampler.sample(tile, csr, edges, fanout, layer, scratch, out);
    });
  }
};

/// The pipeline over one instantiation: the one C++ wrapper of gnndirect::minibatch_pipeline
/// (the library's errors translated to c10 errors in every call). Codec void: `features` holds the values (moved as
/// Feature-sized bytes). Codec a row codec: `features` holds its codes, `encoded` the metadata and
/// decoded width, and the pipeline decodes into Feature (float) rows inside its feature gather.
template <class Index, class Feature, class Codec = void>
class typed_pipeline final : public pipeline_base {
  static_assert(std::is_void_v<Codec> || std::is_same_v<Feature, float>,
                "the binding decodes encoded tables to float32 only (see make_encoded_pipeline_for)");

 public:
  using pipeline_type =
    gnndirect::minibatch_pipeline<std::int64_t, Index, Feature, std::int64_t, chosen_sampler, Codec>;

  typed_pipeline(const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& features,
                 const at::Tensor& labels, const at::Tensor& train_ids, const gnndirect::pipeline_options& config,
                 const pipeline_sampling& sampling, const encoded_features* encoded)
    : indptr_(indptr), indices_(indices), features_(features), labels_(labels), weights_(sampling.weights),
      meta_(encoded != nullptr ? encoded->meta : std::nullopt),
      device_(labels.is_cuda() ? labels.device() : at::Device(at::kCUDA, current_device())),
      feature_dtype_(std::is_void_v<Codec> ? features.scalar_type() : at::kFloat),
      index_dtype_(indices.scalar_type())
  {
    c10::cuda::CUDAGuard const guard(device_);
    int const device = device_.index();
    if (meta_.has_value() && meta_->numel() > 0) {
      TORCH_CHECK_VALUE(meta_->device() == device_, "gnndirect: the encoded table's metadata must be on the "
                        "pipeline's device ", device_, ", got ", meta_->device());
    }
    placed_pointer const ptr = placement_of(indptr, "indptr", device);
    placed_pointer const idx = placement_of(indices, "indices", device);
    placed_pointer const feat = placement_of(features, "features", device);
    placed_pointer const lab = placement_of(labels, "labels", device);
    gnndirect::csr_view<std::int64_t, Index> csr;
    csr.indptr = static_cast<const std::int64_t*>(ptr.device);
    csr.indices = static_cast<const Index*>(idx.device);
    csr.num_nodes = indptr.size(0) - 1;
    csr.num_edges = indices.size(0);
    csr.indptr_kind = ptr.kind;
    csr.indices_kind = idx.kind;
    if (weights_.has_value()) {  // in indices' placement (csr_view::indices_kind covers them)
      csr.weights = static_cast<const float*>(placement_of(*weights_, "weights", device).device);
    }
    auto const table = feature_rows(features, feat, encoded);
    at::Tensor const ids = train_ids.contiguous();
    std::vector<Index> training(data_as<const Index>(ids), data_as<const Index>(ids) + ids.numel());
    // Python resolved the automatic values (depth, workers: gnndirect_torch.PipelineOptions);
    // the tile follows the widest fanout and the graph's mean degree, as in the sampling ops.
    gnndirect::pipeline_options options = config;
    sampling_request const request = make_request(0, sampling.replace, weights_.has_value(), true);
    chosen_sampler const sampler{request.kind, 0};
    double const mean = csr.num_nodes > 0 ? static_cast<double>(csr.num_edges) / csr.num_nodes : 0.0;
    int widest = 0;
    for (int f : options.fanouts) { widest = std::max(widest, f); }
    options.sampling.tile_size = gnndirect::select_sampling_policy(widest, mean).tile_size;
    // Sampled neighbours are valid ids of a validated graph: the seed checks of layers > 0 only
    // guard against corrupt graphs; keep them on (they cost one flag read per layer).
    // The pipeline's device arrays (seeds, blocks, features, labels, workspaces) come from
    // torch's caching allocator, so that batches can be handed out as views of them; so do the
    // cache tier and its hot-row selection.
    gnndirect::resource_ref const mr = torch_caching_resource::for_device(device);
    hand_off_ = std::make_shared<hand_off_type>(
      std::make_unique<pipeline_type>(csr, table, static_cast<const std::int64_t*>(lab.device),
                                      std::move(training), std::move(options), sampler, mr),
      device);
  }

  /// Detaches the batches Python still holds (they keep working, as copies) and destroys the
  /// pipeline before the tensors it reads are released.
  ~typed_pipeline() override
  {
    c10::cuda::CUDAGuard const guard(device_);
    try {
      hand_off_->shutdown();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gnndirect_torch: detaching held batches failed: %s\n", e.what());
    }
  }

  std::int64_t detach_held(bool all) override
  {
    c10::cuda::CUDAGuard const guard(device_);
    return translate_errors([&] { return hand_off_->detach_oldest(all); });
  }

  std::int64_t held_batches() const override { return hand_off_->held(); }

  void start_epoch(std::int64_t epoch) override
  {
    c10::cuda::CUDAGuard const guard(device_);
    // The library treats batches still held as released: detach them first (normally done
    // already, with the GIL, by the binding; this covers direct calls).
    translate_errors([&] {
      hand_off_->detach_oldest(true);
      pipeline()->start_epoch(epoch);
    });
  }

  std::optional<batch_tensors> next() override
  {
    return translate_errors([&] { return next_batch(); });
  }

  pipeline_counters counters() const override
  {
    return translate_errors([&] { return read_counters(); });
  }

  std::int64_t cached_rows() const override
  {
    auto* cache = pipeline()->feature_cache();
    return cache == nullptr ? 0 : cache->cached_rows();
  }

  std::vector<at::Tensor> cache_tensors() override
  {
    return translate_errors([&] { return tier_tensors(); });
  }

 private:
  /// next()'s body (the library's errors escape untranslated).
  std::optional<batch_tensors> next_batch()
  {
    c10::cuda::CUDAGuard const guard(device_);
    cudaStream_t const stream = at::cuda::getCurrentCUDAStream(device_.index()).stream();
    std::shared_ptr<lease_type> const held = hand_off_type::next(hand_off_, stream);
    if (held == nullptr) { return std::nullopt; }
    // Views of the batch's slot (no copy); each tensor shares `held`, and the slot goes back to
    // the pipeline when the last of them is gone (after the work enqueued on the stream).
    auto const& batch = held->batch();
    auto const view = [&](const void* data, std::vector<std::int64_t> sizes, at::ScalarType dtype) {
      return hand_off_->view(held, data, sizes, dtype);
    };
    batch_tensors out;
    out.epoch = batch.epoch;
    out.index = batch.index;
    out.num_seeds = batch.num_seeds;
    out.sampling_seed = static_cast<std::int64_t>(batch.sampling_seed);
    for (auto const& layer : batch.blocks.layers) {
      out.layers.push_back(view(layer.src_nodes.data(), {layer.num_src()}, index_dtype_));
      out.layers.push_back(view(layer.offsets.data(), {layer.num_dst() + 1}, at::kLong));
      out.layers.push_back(view(layer.indices.data(), {layer.num_edges()}, index_dtype_));
      out.layers.push_back(view(layer.edge_ids.data(), {layer.num_edges()}, at::kLong));
    }
    auto const& features = batch.features;
    out.x = view(features.data, {features.rows, features.cols}, feature_dtype_);
    out.y = view(batch.labels, {batch.num_seeds}, at::kLong);
    return out;
  }

  /// counters()'s body.
  pipeline_counters read_counters() const
  {
    gnndirect::pipeline_stats const stats = pipeline()->stats();
    pipeline_counters out;
    out.batches_prepared = stats.batches_prepared;
    out.feature_bytes = static_cast<std::int64_t>(stats.feature_bytes);
    for (auto const& timing : stats.batches) {
      if (!timing.is_ready) { continue; }
      out.prepare_seconds += std::chrono::duration<double>(timing.ready - timing.started).count();
      ++out.batches_ready;
    }
    return out;
  }

  /// cache_tensors()'s body.
  std::vector<at::Tensor> tier_tensors()
  {
    auto* cache = pipeline()->feature_cache();
    if (cache == nullptr) { return {}; }
    auto const view = cache->view();
    auto const options = at::TensorOptions().device(device_);
    // An encoded table's tier holds its codes: uint8 rows of the codes' stride (view.host.cols).
    at::ScalarType const cached_dtype = std::is_void_v<Codec> ? feature_dtype_ : at::kByte;
    // Non-owning views of the tier's device buffers (the tier owns them; the Python side uses
    // them only under the loader's lock, while the pipeline lives).
    at::Tensor rows = at::from_blob(const_cast<void*>(static_cast<const void*>(view.cache)),
                                    {view.cache_rows, view.host.cols}, options.dtype(cached_dtype));
    at::Tensor slots = at::from_blob(const_cast<std::int32_t*>(view.slot_of), {features_.size(0)},
                                     options.dtype(at::kInt));
    return {rows, slots};
  }

  static int current_device()
  {
    int device = 0;
    GNNDIRECT_CUDA_TRY(cudaGetDevice(&device));
    return device;
  }

  /// The rows the pipeline reads: a table_view of `features`, or the encoded_view of its codes.
  static typename pipeline_type::preparer_type::feature_rows_type
  feature_rows(const at::Tensor& features, const placed_pointer& feat, const encoded_features* encoded)
  {
    if constexpr (std::is_void_v<Codec>) {
      return gnndirect::table_view<const Feature>(static_cast<const Feature*>(feat.device), features.size(0),
                                                  features.size(1), features.stride(0), feat.kind);
    } else {
      return encoded_rows_view<Codec>(features, feat, encoded->meta, encoded->cols);
    }
  }

  // Declared first, destroyed last: the tensors the pipeline's views point into.
  at::Tensor indptr_, indices_, features_, labels_;
  std::optional<at::Tensor> weights_;  // edge weights of a weighted pipeline
  std::optional<at::Tensor> meta_;     // an encoded table's per-row metadata
  at::Device device_;
  at::ScalarType feature_dtype_;
  at::ScalarType index_dtype_;
  using hand_off_type = batch_hand_off<pipeline_type>;
  using lease_type = typename hand_off_type::lease;

  pipeline_type* pipeline() const noexcept { return hand_off_->pipeline(); }

  // Owns the pipeline; shared with the leases of the batches Python holds.
  std::shared_ptr<hand_off_type> hand_off_;
};

/// Builds the typed pipeline (errors translated to c10 errors, as in every call of it); `encoded`
/// with a Codec only.
template <class Index, class Feature, class Codec = void>
std::unique_ptr<pipeline_base> make_typed(const at::Tensor& indptr, const at::Tensor& indices,
                                          const at::Tensor& features, const at::Tensor& labels,
                                          const at::Tensor& train_ids, const gnndirect::pipeline_options& config,
                                          const pipeline_sampling& sampling,
                                          const encoded_features* encoded = nullptr)
{
  return translate_errors([&]() -> std::unique_ptr<pipeline_base> {
    return std::make_unique<typed_pipeline<Index, Feature, Codec>>(indptr, indices, features, labels,
                                                                   train_ids, config, sampling, encoded);
  });
}

/// make_encoded_pipeline_for's body: the typed pipeline of the codec `encoded` names, decoding to
/// float32; the identity codec's codes are float32 values in padded rows, which the plain 4-byte
/// pipeline reads as they are (no decode to instantiate). @throws c10 errors.
template <class Index>
std::unique_ptr<pipeline_base> make_encoded(const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& codes,
                                            const at::Tensor& labels, const at::Tensor& train_ids,
                                            const gnndirect::pipeline_options& config,
                                            const pipeline_sampling& sampling, const encoded_features& encoded)
{
  return dispatch_codec(encoded.codec, [&](auto codec) -> std::unique_ptr<pipeline_base> {
    using C = decltype(codec);
    if constexpr (std::is_same_v<C, gnndirect::codecs::fp32>) {
      at::Tensor const values = codes.view(at::kFloat).narrow(1, 0, encoded.cols);
      return make_pipeline_for<Index, 4>(indptr, indices, values, labels, train_ids, config, sampling);
    } else {
      return make_typed<Index, float, C>(indptr, indices, codes, labels, train_ids, config, sampling, &encoded);
    }
  });
}

}  // namespace detail
}  // namespace gnndirect_torch
