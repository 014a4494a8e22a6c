#pragma once
/// @file pipeline.hpp
/// @brief Type-erased handle over gnndirect::minibatch_pipeline for the Python iterator
/// (host-compilable; the templates are instantiated in pipeline_cuda_i{32,64}_f{2,4}.cu for plain
/// features and pipeline_cuda_i{32,64}_codecs.cu for encoded ones).

#include <ATen/ATen.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gnndirect_torch {

/// Options of a pipeline as the Python layer passes them (see gnndirect::pipeline_options).
struct pipeline_config {
  std::vector<std::int64_t> fanouts{15, 10, 5};  ///< one fanout per layer, seeds side first
  std::int64_t batch_size{1024};                 ///< seeds per batch
  bool drop_last{false};                         ///< drop a last, smaller batch
  std::int64_t seed{0};                          ///< key of the shuffle and of every batch's samples
  bool replace{false};                           ///< sample with replacement
  int depth{0};                                  ///< batches in flight (0: see pipeline_impl.cuh)
  int workers{0};                                ///< host threads preparing (0: library default)
  int sampling_max_blocks{0};                    ///< sampling.max_blocks: cap on sampling's blocks (0: none)
  int gather_max_blocks{0};                      ///< gather.max_blocks: cap on each gather's blocks
                                                 ///< (0: the gather selector's)
  std::int64_t reserve_bytes{0};                 ///< pool bytes reserved up front
  std::int64_t cache_bytes{0};                   ///< device bytes for hot feature rows (0: none)
};

/// An encoded feature table as the pipeline reads it (gnndirect_torch.Table(..., codec=...)): the
/// codes are the pipeline's `features` tensor (uint8 [rows, stride], packed rows, any placement),
/// decoded to float32 inside the pipeline's feature gather (gnn_preparer's Codec).
struct encoded_features {
  std::string codec;               ///< the codec's name (codec_kind_of: "int8", "int4_affine", ...)
  std::optional<at::Tensor> meta;  ///< float32 [rows, meta floats] per-row metadata in device
                                   ///< memory (none for codecs without metadata)
  std::int64_t cols{0};            ///< decoded values per row
};

/// One batch as tensors that are views of the pipeline's memory (torch's caching allocator,
/// through the pipeline's memory resource): nothing is copied. The batch's slot goes back to the
/// pipeline when the last of these tensors (and of views made from them) is gone, ordered after
/// the work enqueued on the consumer stream and on the stream current where it died; a batch
/// still held when its slot is needed (new epoch, pipeline destroyed, every slot held) is first
/// detached into a copy (see batch_hand_off.hpp).
struct batch_tensors {
  std::int64_t epoch{0};          ///< epoch it belongs to
  std::int64_t index{0};          ///< position in the epoch
  std::int64_t num_seeds{0};      ///< seeds (first rows of x / n_id)
  std::int64_t sampling_seed{0};  ///< sampling seed used for its blocks (as int64 bits)
  std::vector<at::Tensor> layers; ///< 4 per layer: src_nodes, offsets, local indices, edge_ids
  at::Tensor x;                   ///< features of the input nodes (last layer's src_nodes);
                                  ///< float32 decoded rows for an encoded table
  at::Tensor y;                   ///< labels of the seeds
};

/// Counters of a pipeline.
struct pipeline_counters {
  std::int64_t batches_prepared{0};  ///< since construction
  std::int64_t feature_bytes{0};     ///< feature bytes written into batches since construction
                                     ///< (decoded bytes for an encoded table, not encoded ones)
  double prepare_seconds{0};         ///< current epoch: sum over batches of (ready - started)
  std::int64_t batches_ready{0};     ///< current epoch: batches whose preparation completed
};

/// A minibatch_pipeline of some instantiation.
class pipeline_base {
 public:
  virtual ~pipeline_base() = default;
  /// Starts (or restarts) epoch `epoch` (held batches are detached first). @throws c10 errors.
  virtual void start_epoch(std::int64_t epoch) = 0;
  /// The next batch on torch's current stream (which is made to wait for it), or nullopt at the
  /// end of the epoch; views of the pipeline's memory (see batch_tensors). When every slot is
  /// held, the oldest held batch is detached first. Blocks the calling thread until the batch is
  /// prepared; call without the GIL (after detach_held(false) with it). @throws c10 errors (the library's message: IndexError for bad training ids, ...).
  virtual std::optional<batch_tensors> next() = 0;
  /// Detaches batches Python still holds (copies them into torch's caching allocator on the
  /// current stream, re-points their tensors, gives their slots back): all of them with `all`,
  /// else the oldest until next() has a slot. Call with the GIL held and no other thread using
  /// those tensors. Returns how many were detached. @throws c10 errors.
  virtual std::int64_t detach_held(bool all) = 0;
  /// Batches handed out whose tensors are still alive (not detached). Thread-safe.
  virtual std::int64_t held_batches() const = 0;
  /// Counters snapshot (thread-safe).
  virtual pipeline_counters counters() const = 0;
  /// Rows held by the device cache tier (0 without one).
  virtual std::int64_t cached_rows() const = 0;
  /// The device cache tier as non-owning tensors {cached rows [cached_rows x cols], slot_of
  /// int32 [table rows], -1 = not cached}, or none without a tier. Valid while the pipeline
  /// lives and until the tier is rebuilt; for keeping cached copies coherent with writes into
  /// the table (Table.scatter). Writing rows while batches are prepared is a race on those rows
  /// only (a batch then sees either value). @throws c10 errors.
  virtual std::vector<at::Tensor> cache_tensors() = 0;
};

/// Builds a pipeline over tensors: indptr (int64) and indices (int32/int64) device-visible in any
/// placement, features a device-visible 2-D table with 2- or 4-byte elements, labels int64
/// device-visible, train_ids a CPU tensor with indices' dtype. The handle keeps every tensor
/// alive. Synchronous (pool reserve, cache fill). @throws c10 errors.
///
/// With `codec` (and `meta`, `cols`: see encoded_features) `features` holds encoded rows instead
/// and the batches' x is float32 decoded inside the pipeline's feature gather, on its side
/// streams; config.cache_bytes then sizes a tier of encoded rows. The identity codec "fp32"
/// reads its codes as the plain float32 table they are. @throws c10::ValueError / TypeError as
/// check_encoded_args, and for codes whose rows are not packed (stride(0) != size(1)).
std::unique_ptr<pipeline_base> make_pipeline(const at::Tensor& indptr, const at::Tensor& indices,
                                             const at::Tensor& features, const at::Tensor& labels,
                                             const at::Tensor& train_ids, const pipeline_config& config,
                                             const std::optional<std::string>& codec = std::nullopt,
                                             const std::optional<at::Tensor>& meta = std::nullopt,
                                             std::int64_t cols = 0);

/// Instantiation entry point for node ids of type Index and features of `feature_bytes`-byte
/// elements (one translation unit per pair, so that they compile in parallel).
template <class Index, int FeatureBytes>
std::unique_ptr<pipeline_base> make_pipeline_for(const at::Tensor& indptr, const at::Tensor& indices,
                                                 const at::Tensor& features, const at::Tensor& labels,
                                                 const at::Tensor& train_ids, const pipeline_config& config);

/// Instantiation entry point for node ids of type Index over an encoded table (arguments checked
/// by make_pipeline), dispatching on the codec: one translation unit per index type holds every
/// codec (pipeline_cuda_i{32,64}_codecs.cu). Batches hold float32 rows only: decoding to fp16 or
/// bf16 too would triple them (the Python loader decodes those after the batch).
/// @throws c10 errors.
template <class Index>
std::unique_ptr<pipeline_base> make_encoded_pipeline_for(const at::Tensor& indptr, const at::Tensor& indices,
                                                         const at::Tensor& codes, const at::Tensor& labels,
                                                         const at::Tensor& train_ids, const pipeline_config& config,
                                                         const encoded_features& encoded);

}  // namespace gnndirect_torch
