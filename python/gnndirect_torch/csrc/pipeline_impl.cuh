#pragma once
/// @file pipeline_impl.cuh
/// @brief The typed pipeline behind pipeline_base (included by pipeline_cuda_i{32,64}_f{2,4}.cu
/// for plain features and pipeline_cuda_i{32,64}_codecs.cu for encoded ones).

#include "batch_hand_off.hpp"
#include "codec.hpp"
#include "common.hpp"
#include "pipeline.hpp"
#include "torch_resource.cuh"

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/pipeline/minibatch_pipeline.cuh>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <type_traits>
#include <vector>

namespace gnndirect_torch {
namespace detail {

/// The loader's sampler: uniform, with or without replacement as Python asked at run time. The
/// binding is a run-time boundary; rather than instantiating the whole pipeline once per sampler
/// type, this one sampler type forwards each node to the library sampler the flag names (the
/// branch is uniform across the tile). Reseeded per batch by the pipeline through with_seed.
struct uniform_choice_sampler {
  static constexpr bool needs_weights = false;
  std::uint64_t seed{0};  ///< Philox key
  bool replace{false};    ///< with replacement

  uniform_choice_sampler with_seed(std::uint64_t new_seed) const noexcept { return {new_seed, replace}; }
  GNNDIRECT_HOST_DEVICE std::size_t scratch_bytes(int fanout, int tile_size) const noexcept
  {
    return replace ? gnndirect::uniform_with_replacement_sampler{seed}.scratch_bytes(fanout, tile_size)
                   : gnndirect::uniform_sampler{seed}.scratch_bytes(fanout, tile_size);
  }
  template <class Tile, class Offset, class Index>
  __device__ std::int64_t sample(const Tile& tile, const gnndirect::csr_view<Offset, Index>& csr,
                                 const gnndirect::node_edges<Offset>& edges, int fanout, int layer,
                                 void* scratch, const gnndirect::sampled_output<Offset, Index>& out) const
  {
    if (replace) {
      return gnndirect::uniform_with_replacement_sampler{seed}.sample(tile, csr, edges, fanout, layer, scratch, out);
    }
    return gnndirect::uniform_sampler{seed}.sample(tile, csr, edges, fanout, layer, scratch, out);
  }
};

/// The pipeline over one instantiation. Codec void: `features` holds the values (moved as
/// Feature-sized bytes). Codec a row codec: `features` holds its codes, `encoded` the metadata and
/// decoded width, and the pipeline decodes into Feature (float) rows inside its feature gather.
template <class Index, class Feature, class Codec = void>
class typed_pipeline final : public pipeline_base {
  static_assert(std::is_void_v<Codec> || std::is_same_v<Feature, float>,
                "the binding decodes encoded tables to float32 only (see make_encoded_pipeline_for)");

 public:
  using pipeline_type =
    gnndirect::minibatch_pipeline<std::int64_t, Index, Feature, std::int64_t, uniform_choice_sampler, Codec>;

  typed_pipeline(const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& features,
                 const at::Tensor& labels, const at::Tensor& train_ids, const pipeline_config& config,
                 const encoded_features* encoded)
    : indptr_(indptr), indices_(indices), features_(features), labels_(labels),
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
    auto const table = feature_rows(features, feat, encoded);
    at::Tensor const ids = train_ids.contiguous();
    std::vector<Index> training(data_as<const Index>(ids), data_as<const Index>(ids) + ids.numel());
    gnndirect::pipeline_options options;
    options.fanouts.assign(config.fanouts.begin(), config.fanouts.end());
    options.batch_size = config.batch_size;
    options.drop_last = config.drop_last;
    options.seed = static_cast<std::uint64_t>(config.seed);
    uniform_choice_sampler const sampler{0, config.replace};
    double const mean = csr.num_nodes > 0 ? static_cast<double>(csr.num_edges) / csr.num_nodes : 0.0;
    int widest = 0;
    for (int f : options.fanouts) { widest = std::max(widest, f); }
    options.sampling.tile_size =
      gnndirect::select_sampling_policy(widest, mean).tile_size;
    // Sampled neighbours are valid ids of a validated graph: the seed checks of layers > 0 only
    // guard against corrupt graphs; keep them on (they cost one flag read per layer).
    // The training loop holds the batch it trains on (its slot comes back when its tensors die),
    // so by default one slot more than the library's default keeps as many batches ahead.
    options.workers = config.workers > 0 ? config.workers : gnndirect::pipeline_options{}.workers;
    // ... and two more than the workers, so that all of them prepare while one batch is held.
    options.depth = config.depth > 0 ? config.depth
                                     : std::max(gnndirect::pipeline_options{}.depth + 1, options.workers + 2);
    options.sampling.max_blocks = config.sampling_max_blocks;  // both validated by the library (>= 0)
    options.gather.max_blocks = config.gather_max_blocks;
    options.reserve_bytes = static_cast<std::size_t>(config.reserve_bytes);
    options.cache_bytes = static_cast<std::size_t>(config.cache_bytes);
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
    return hand_off_->detach_oldest(all);
  }

  std::int64_t held_batches() const override { return hand_off_->held(); }

  void start_epoch(std::int64_t epoch) override
  {
    c10::cuda::CUDAGuard const guard(device_);
    // The library treats batches still held as released: detach them first (normally done
    // already, with the GIL, by the binding; this covers direct calls).
    hand_off_->detach_oldest(true);
    pipeline()->start_epoch(epoch);
  }

  std::optional<batch_tensors> next() override
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

  pipeline_counters counters() const override
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

  std::int64_t cached_rows() const override
  {
    auto* cache = pipeline()->feature_cache();
    return cache == nullptr ? 0 : cache->cached_rows();
  }

  std::vector<at::Tensor> cache_tensors() override
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

 private:
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
  std::optional<at::Tensor> meta_;  // an encoded table's per-row metadata
  at::Device device_;
  at::ScalarType feature_dtype_;
  at::ScalarType index_dtype_;
  using hand_off_type = batch_hand_off<pipeline_type>;
  using lease_type = typename hand_off_type::lease;

  pipeline_type* pipeline() const noexcept { return hand_off_->pipeline(); }

  // Owns the pipeline; shared with the leases of the batches Python holds.
  std::shared_ptr<hand_off_type> hand_off_;
};

/// Builds the typed pipeline (errors translated to c10 errors); `encoded` with a Codec only.
template <class Index, class Feature, class Codec = void>
std::unique_ptr<pipeline_base> make_typed(const at::Tensor& indptr, const at::Tensor& indices,
                                          const at::Tensor& features, const at::Tensor& labels,
                                          const at::Tensor& train_ids, const pipeline_config& config,
                                          const encoded_features* encoded = nullptr)
{
  return translate_errors([&]() -> std::unique_ptr<pipeline_base> {
    return std::make_unique<typed_pipeline<Index, Feature, Codec>>(indptr, indices, features, labels,
                                                                   train_ids, config, encoded);
  });
}

/// Wraps every call of a pipeline in error translation.
class translating_pipeline final : public pipeline_base {
 public:
  explicit translating_pipeline(std::unique_ptr<pipeline_base> inner) : inner_(std::move(inner)) {}
  void start_epoch(std::int64_t epoch) override { translate_errors([&] { inner_->start_epoch(epoch); }); }
  std::optional<batch_tensors> next() override { return translate_errors([&] { return inner_->next(); }); }
  std::int64_t detach_held(bool all) override { return translate_errors([&] { return inner_->detach_held(all); }); }
  std::int64_t held_batches() const override { return inner_->held_batches(); }
  pipeline_counters counters() const override { return translate_errors([&] { return inner_->counters(); }); }
  std::int64_t cached_rows() const override { return inner_->cached_rows(); }
  std::vector<at::Tensor> cache_tensors() override
  {
    return translate_errors([&] { return inner_->cache_tensors(); });
  }

 private:
  std::unique_ptr<pipeline_base> inner_;
};

/// make_encoded_pipeline_for's body: the typed pipeline of the codec `encoded` names, decoding to
/// float32; the identity codec's codes are float32 values in padded rows, which the plain 4-byte
/// pipeline reads as they are (no decode to instantiate). @throws c10 errors.
template <class Index>
std::unique_ptr<pipeline_base> make_encoded(const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& codes,
                                            const at::Tensor& labels, const at::Tensor& train_ids,
                                            const pipeline_config& config, const encoded_features& encoded)
{
  return dispatch_codec(encoded.codec, [&](auto codec) -> std::unique_ptr<pipeline_base> {
    using C = decltype(codec);
    if constexpr (std::is_same_v<C, gnndirect::codecs::fp32>) {
      at::Tensor const values = codes.view(at::kFloat).narrow(1, 0, encoded.cols);
      return make_pipeline_for<Index, 4>(indptr, indices, values, labels, train_ids, config);
    } else {
      return std::make_unique<translating_pipeline>(
        make_typed<Index, float, C>(indptr, indices, codes, labels, train_ids, config, &encoded));
    }
  });
}

}  // namespace detail
}  // namespace gnndirect_torch
