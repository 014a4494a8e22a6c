#pragma once
// The epoch benchmark (bench/epoch/epoch.cu), the paths: gnndirect's pipeline, CPU-centric, all-in-GPU, graph-in-HBM, feature transfer.
#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/device/codecs.hpp>
#include <gnndirect/host/cpu_gather.hpp>
#include <gnndirect/host/cpu_sampler.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/cuda_handles.hpp>
#include <gnndirect/owners/encoded_table.hpp>
#include <gnndirect/pipeline/epoch_order.hpp>
#include <gnndirect/pipeline/minibatch_pipeline.cuh>
#include <gnndirect/pipeline/timeline.hpp>
#include <gnndirect/util/parallel.hpp>
#include <gnndirect/util/worker_pool.hpp>

#include "common.hpp"
#include "dataset.cuh"
#include "options.hpp"
#include "progress.hpp"
#include "measure.hpp"

#include <functional>
#include <memory>
#include <sstream>
#include <type_traits>

namespace gnndirect_demo {

// ---------------------------------------------------------------------------------------------
// Paths

struct path_result {
  explicit path_result(std::string name_) : name(std::move(name_)) {}
  std::string name;
  double seconds{0};             // median epoch (over --epochs)
  double core_seconds{0};        // median of the epochs' CPU core-seconds
  std::vector<double> epoch_seconds;  // every epoch, in order
  std::int64_t batches{0};
  std::uint64_t feature_bytes{0};
  std::uint64_t link_bytes{0};  // paths on host-resident features: bytes that must cross the host link
  std::uint64_t link_feature_bytes{0};  // ... of which feature rows (encoded; a tier's hits excluded)
  double start_unix_s{0};       // wall-clock start of the first timed epoch
  double end_unix_s{0};         // wall-clock end of the last timed epoch
  int workers{0};               // pipeline paths: the worker count and depth they ran with
  int depth{0};
  int gather_max_blocks{0};         // pipeline paths: the feature gathers' block cap (0: selector's)
  bool sweep_entry{false};      // one combination of a --workers/--depth/--gather-max-blocks sweep
  std::string variant;          // an --overlap-sweep entry: its variant (empty: none)
  std::string base_name;        // ... and the path's own name (e.g. "graph-in-hbm")
  int sampling_max_blocks{0};         // pipeline paths: the sampling block cap, gathers' priority, order
  int gather_priority{0};
  std::string gather_order{"auto"};
  std::string codec{"fp32"};    // pipeline paths: the row codec of the feature rows read
  std::uint64_t encoded_bytes{0};  // pipeline paths: bytes of (encoded) feature rows read, stride included
  bool checked{false};          // pipeline paths: one batch's features compared with the host rows
  bool verified{false};         // ... and they were equal (with a codec: to the host decode)
  bool ran{false};
  std::string note;
};

/// One table row of `r` (defined with the report below); `width` of the name column.
inline void print_result_line(const path_result& r, const path_result* cpu, int width = 12);

inline gnndirect::pipeline_options pipeline_options_for(const demo_args& a)
{
  gnndirect::pipeline_options options;
  options.fanouts = a.fanouts;
  options.batch_size = a.batch_size;
  options.seed = a.seed;
  options.sampling.tile_size = 32;
  options.sampling.max_blocks = a.sampling_max_blocks;
  options.depth = a.depth;
  options.workers = a.workers;
  if (a.gather_priority) { options.gather_priority = *a.gather_priority; }
  if (a.calibrate_gather >= 0) { options.calibrate_gather = a.calibrate_gather == 1; }
  if (a.gather_order == "none") { options.gather.order = gnndirect::locality_order::none; }
  if (a.gather_order == "sorted") { options.gather.order = gnndirect::locality_order::sorted; }
  return options;
}

inline std::int64_t batches_per_epoch(const demo_args& a, std::int64_t train)
{
  std::int64_t const all = (train + a.batch_size - 1) / a.batch_size;
  return a.max_batches > 0 ? std::min(all, a.max_batches) : all;
}

/// How a pipeline path reads its features: the codec's name, the bytes a row costs (the encoded
/// stride, or the fp32 row) and the host reference of a row (the host decode, or the fp32 row).
struct feature_reference {
  std::string codec{"fp32"};
  std::uint64_t row_bytes{0};
  std::function<void(std::int64_t, float*)> host_row;  // writes row r's cols decoded values
};

/// The fp32 features as a pipeline path reads them (no codec): their host rows are the reference.
template <class Index>
feature_reference fp32_reference(const dataset<Index>& d)
{
  gnndirect::table_view<const float> const host = d.features.host_view();
  return {"fp32", static_cast<std::uint64_t>(host.row_bytes()), [host](std::int64_t r, float* out) {
            std::memcpy(out, host.data + r * host.row_stride, host.row_bytes());
          }};
}

/// The pipeline the paths run: fp32 rows (Codec void) or rows encoded with Codec, decoded to fp32
/// inside the feature gather.
template <class Index, class Codec>
using pipeline_type = gnndirect::minibatch_pipeline<std::int64_t, Index, float, label_type,
                                                    gnndirect::uniform_sampler, Codec>;
/// What such a pipeline reads: table_view<const float> or encoded_view<Codec>.
template <class Index, class Codec>
using feature_rows_t = typename pipeline_type<Index, Codec>::preparer_type::feature_rows_type;

/// True when the batch's features (the first 4096 rows) equal the host reference of its input
/// nodes' rows (a gather that moved the wrong bytes fast must not win the table). Synchronous.
template <class Batch>
bool batch_matches_host(const Batch& batch, const feature_reference& ref, cudaStream_t stream)
{
  auto const input = batch.blocks.input_nodes();
  std::int64_t const dim = batch.features.cols;
  auto const rows = std::min<std::int64_t>(batch.num_input_nodes, 4096);
  using index_type = std::remove_const_t<std::remove_pointer_t<decltype(input.data())>>;
  std::vector<index_type> ids(static_cast<std::size_t>(rows));
  std::vector<float> got(static_cast<std::size_t>(rows * dim));
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(ids.data(), input.data(), ids.size() * sizeof(index_type),
                                     cudaMemcpyDeviceToHost, stream));
  GNNDIRECT_CUDA_TRY(cudaMemcpy2DAsync(got.data(), static_cast<std::size_t>(dim) * sizeof(float),
                                       batch.features.data, batch.features.stride_bytes(),
                                       static_cast<std::size_t>(dim) * sizeof(float), static_cast<std::size_t>(rows),
                                       cudaMemcpyDeviceToHost, stream));
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
  std::vector<float> expected(static_cast<std::size_t>(dim));
  for (std::int64_t i = 0; i < rows; ++i) {
    ref.host_row(static_cast<std::int64_t>(ids[static_cast<std::size_t>(i)]), expected.data());
    if (std::memcmp(got.data() + i * dim, expected.data(), expected.size() * sizeof(float)) != 0) { return false; }
  }
  return true;
}

/// The file of the timeline of `path` (and `variant`, in an overlap sweep): FILE-<path>[-<variant>].json
/// for --timeline FILE (a trailing ".json" of FILE is moved to the end); empty without --timeline.
inline std::string timeline_file(const std::string& file, const std::string& path, const std::string& variant = {})
{
  if (file.empty()) { return {}; }
  std::string stem = file;
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0) { stem.resize(stem.size() - 5); }
  std::string name = path;
  if (!variant.empty()) { name += "-" + variant; }
  for (char& c : name) {
    if (c == ' ' || c == '+' || c == '/') { c = '_'; }
  }
  return stem + "-" + name + ".json";
}

/// One more epoch of `pipeline` after the timed ones, recorded into `timeline` (so that recording
/// never moves the reported median), then written to a.timeline with the path's figures. The
/// consumer only holds and releases each batch, as in the timed epochs.
template <class Pipeline>
void record_timeline_epoch(Pipeline& pipeline, gnndirect::pipeline_timeline& timeline, const demo_args& a,
                           const path_result& result, cudaStream_t consumer, std::int64_t batches)
{
  timeline.start(consumer);
  auto const t0 = clock_type::now();
  pipeline.start_epoch(a.epochs);
  for (std::int64_t b = 0; b < batches; ++b) {
    auto* batch = pipeline.next(consumer);
    if (batch == nullptr) { break; }
    pipeline.release(batch, consumer);
  }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer));
  double const recorded = seconds_since(t0);
  char extra[512];
  std::snprintf(extra, sizeof extra,
                "\"path\": \"%s\", \"codec\": \"%s\", \"workers\": %d, \"depth\": %d, \"gather_max_blocks\": %d, "
                "\"sampling_max_blocks\": %d, \"gather_priority\": %d, \"gather_order\": \"%s\", \"batches\": %lld, "
                "\"epoch_seconds\": %.6f, \"recorded_epoch_seconds\": %.6f",
                result.name.c_str(), result.codec.c_str(), a.workers, a.depth, a.gather_max_blocks, a.sampling_max_blocks,
                pipeline.options().gather_priority, a.gather_order.c_str(),
                static_cast<long long>(batches), result.seconds, recorded);
  if (timeline.write_json(a.timeline, extra)) {
    std::printf("%s: timeline of one more epoch (%.3f s recorded) written to %s\n", result.name.c_str(), recorded,
                a.timeline.c_str());
  } else {
    std::fprintf(stderr, "demo: cannot write the timeline %s: %s\n", a.timeline.c_str(), std::strerror(errno));
  }
}

/// Runs the pipeline on the given views for the configured epochs; the consumer only waits for
/// each batch (and, when counting, enqueues the link-byte model kernel) and releases it. The last
/// batch of the last epoch is held past the epoch's end and checked against `ref` (not timed).
/// @tparam Codec void: `features` is the fp32 table; else a row codec: its encoded copy, and the
/// cache tier (cache_bytes) holds encoded rows. With host-resident features the link bytes count
/// `ref.row_bytes` per row the tier (if any) does not hold, plus the neighbour lists' lines when
/// `count_neighbour_bytes` (lists in host memory).
template <class Codec, class Index>
path_result run_pipeline_path(const std::string& name, const demo_args& a, const dataset<Index>& d,
                              const gnndirect::csr_view<std::int64_t, Index>& graph,
                              feature_rows_t<Index, Codec> features, const feature_reference& ref,
                              bool count_neighbour_bytes, std::size_t cache_bytes = 0)
{
  path_result result{name};
  result.codec = ref.codec;
  auto const consumer = gnndirect::make_non_blocking_stream();
  gnndirect::buffer<unsigned long long> link_bytes(2, memory_kind::device);  // neighbour lists, missed rows
  GNNDIRECT_CUDA_TRY(cudaMemsetAsync(link_bytes.data(), 0, link_bytes.bytes(), consumer.get()));
  bool const features_remote = gnndirect::is_host_resident(features.kind);
  gnndirect::pipeline_options options = pipeline_options_for(a);
  options.cache_bytes = cache_bytes;
  // --gather-max-blocks tunes gathers from host memory; an HBM table keeps a full grid.
  if (gnndirect::is_host_resident(features.kind)) { options.gather.max_blocks = a.gather_max_blocks; }
  std::unique_ptr<gnndirect::pipeline_timeline> timeline;  // --timeline: an extra, untimed epoch recorded
  if (!a.timeline.empty()) {
    timeline = std::make_unique<gnndirect::pipeline_timeline>();
    timeline->name_stream(consumer.get(), "consumer");
    options.timeline = timeline.get();
  }
  pipeline_type<Index, Codec> pipeline(graph, features, d.labels.data(), d.training_ids, options);
  auto* const tier = pipeline.feature_cache();
  if (pipeline.options().calibrate_gather && features_remote) {
    std::ostringstream tuned;
    tuned << "calibrated feature gathers: " << pipeline.feature_gather_policy();
    result.note = tuned.str();
  }
  if (tier != nullptr) {
    result.note = "device tier: " + std::to_string(tier->capacity()) + " of " + std::to_string(features.rows) +
                  " rows (" + ref.codec + ")";
  }
  std::int64_t const batches = batches_per_epoch(a, static_cast<std::int64_t>(d.training_ids.size()));
  result.workers = a.workers;
  result.depth = a.depth;
  result.gather_max_blocks = a.gather_max_blocks;
  result.sampling_max_blocks = a.sampling_max_blocks;
  result.gather_priority = pipeline.options().gather_priority;
  result.gather_order = a.gather_order;
  epoch_log log;
  for (int epoch = 0; epoch < a.epochs; ++epoch) {
    progress_bar bar(name + " epoch " + std::to_string(epoch), batches);
    if (epoch == 0) { result.start_unix_s = unix_now(); }
    epoch_meter meter;
    pipeline.start_epoch(epoch);
    result.feature_bytes = 0;
    result.encoded_bytes = 0;
    typename pipeline_type<Index, Codec>::batch_type* held = nullptr;  // checked after the epoch
    for (std::int64_t b = 0; b < batches; ++b) {
      auto* batch = pipeline.next(consumer.get());
      if (batch == nullptr) { break; }
      result.feature_bytes += batch->feature_bytes;
      result.encoded_bytes += static_cast<std::uint64_t>(batch->num_input_nodes) * ref.row_bytes;
      for (std::size_t l = 0; count_neighbour_bytes && l < batch->blocks.layers.size(); ++l) {
        auto const& layer = batch->blocks.layers[l];
        neighbour_bytes_kernel<<<grid_for(layer.num_dst()), 256, 0, consumer.get()>>>(
          graph.indptr, layer.dst_nodes.data(), layer.num_dst(), a.fanouts[l], link_bytes.data());
        GNNDIRECT_CUDA_TRY(cudaGetLastError());
      }
      if (tier != nullptr && features_remote) {
        uncached_bytes_kernel<<<grid_for(batch->num_input_nodes), 256, 0, consumer.get()>>>(
          tier->view().slot_of, batch->blocks.input_nodes().data(), batch->num_input_nodes, ref.row_bytes,
          link_bytes.data() + 1);
        GNNDIRECT_CUDA_TRY(cudaGetLastError());
      }
      if (epoch + 1 == a.epochs && b + 1 == batches) {
        held = batch;  // the epoch's last batch: holding it delays no other
      } else {
        pipeline.release(batch, consumer.get());
      }
      bar.update(b + 1);
    }
    GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));
    meter.stop();
    result.end_unix_s = unix_now();
    bar.finish();
    if (held != nullptr) {
      result.checked = true;
      result.verified = batch_matches_host(*held, ref, consumer.get());
      pipeline.release(held, consumer.get());
    }
    log.add(meter);
    result.batches = batches;
    if (count_neighbour_bytes || features_remote) {
      unsigned long long counted[2] = {0, 0};  // neighbour-list bytes, bytes of rows the tier missed
      GNNDIRECT_CUDA_TRY(cudaMemcpy(counted, link_bytes.data(), sizeof(counted), cudaMemcpyDeviceToHost));
      GNNDIRECT_CUDA_TRY(cudaMemsetAsync(link_bytes.data(), 0, link_bytes.bytes(), consumer.get()));
      result.link_feature_bytes = !features_remote ? 0 : tier != nullptr ? counted[1] : result.encoded_bytes;
      result.link_bytes = counted[0] + result.link_feature_bytes;
    }
  }
  result.seconds = log.median_seconds();
  result.core_seconds = log.median_core_seconds();
  result.epoch_seconds = log.seconds;
  result.ran = true;
  if (timeline) { record_timeline_epoch(pipeline, *timeline, a, result, consumer.get(), batches); }
  return result;
}

/// Device copies of one batch prepared on the host (what a CPU-centric loader hands to training).
template <class Index>
struct uploaded_batch {
  std::vector<gnndirect::buffer<Index>> ids;
  std::vector<gnndirect::buffer<std::int64_t>> offsets;
  std::vector<gnndirect::buffer<std::int64_t>> edge_ids;
  gnndirect::buffer<float> features;
  gnndirect::buffer<label_type> labels;
};

template <class T, class Allocator>
gnndirect::buffer<T> upload(cudaStream_t stream, cudaMemPool_t pool, const std::vector<T, Allocator>& host)
{
  gnndirect::buffer<T> device(host.size(), stream, pool);
  if (!host.empty()) {
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(device.data(), host.data(), device.bytes(), cudaMemcpyHostToDevice, stream));
  }
  return device;
}

/// Samples batch `b` of an epoch's shuffled `order` on the CPU into `blocks`, with the seeds and
/// the per-batch key the pipeline uses; returns the batch's seed count.
template <class Index>
std::int64_t sample_host_batch(gnndirect::host::cpu_sampler& sampler, const demo_args& a,
                               const gnndirect::csr_view<std::int64_t, Index>& graph,
                               const std::vector<Index>& order, std::uint64_t base_seed,
                               int epoch, std::int64_t b, gnndirect::host::cpu_blocks<std::int64_t, Index>& blocks)
{
  std::int64_t const first = b * a.batch_size;
  std::int64_t const n = std::min(a.batch_size, static_cast<std::int64_t>(order.size()) - first);
  // The pipeline's sampler and per-batch stream (pipeline_options::seed).
  gnndirect::uniform_sampler const drawn{gnndirect::batch_sampling_seed(base_seed, epoch, b)};
  sampler.sample_blocks(graph, order.data() + first, n, a.fanouts, drawn, blocks);
  return n;
}

/// The CPU-centric loader: fast host sampling on all cores, then the feature gather double
/// buffered with its copies to the GPU, blocks and labels copied. Same seed nodes in the same
/// order as the pipeline; the stream is synchronised once per epoch, not per batch.
template <class Index>
path_result run_cpu_path(const demo_args& a, const dataset<Index>& d)
{
  path_result result{"cpu-centric"};
  auto const stream = gnndirect::make_non_blocking_stream();
  auto const pool = gnndirect::make_retaining_pool(gnndirect::require_device());
  auto const graph = d.host_view();
  gnndirect::table_view<const float> const host_features = d.features.host_view();
  std::int64_t const dim = host_features.cols;
  gnndirect::host::cpu_sampler sampler;                          // all cores, persistent threads
  gnndirect::host::staged_gather<float> staged(std::size_t{16} << 20);  // 2 x 16 MiB pinned
  gnndirect::host::cpu_blocks<std::int64_t, Index> blocks;       // reused: no per-batch allocation
  std::int64_t const epoch_batches = batches_per_epoch(a, static_cast<std::int64_t>(d.training_ids.size()));
  std::int64_t const batches = a.cpu_max_batches > 0 ? std::min(epoch_batches, a.cpu_max_batches) : epoch_batches;
  gnndirect::pipeline_options const options = pipeline_options_for(a);
  epoch_log log;
  for (int epoch = 0; epoch < a.epochs; ++epoch) {
    progress_bar bar("cpu-centric epoch " + std::to_string(epoch), batches);
    if (epoch == 0) { result.start_unix_s = unix_now(); }
    epoch_meter meter;
    std::vector<Index> order = d.training_ids;
    gnndirect::shuffle_epoch(order, options.seed, epoch);
    result.feature_bytes = 0;
    for (std::int64_t b = 0; b < batches; ++b) {
      std::int64_t const first = b * a.batch_size;
      std::int64_t const n = sample_host_batch(sampler, a, graph, order, options.seed, epoch, b, blocks);
      auto const& inputs = blocks.input_nodes();
      auto const n_in = static_cast<std::int64_t>(inputs.size());
      std::vector<label_type> labels(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        labels[static_cast<std::size_t>(i)] =
          d.host_labels[static_cast<std::size_t>(order[static_cast<std::size_t>(first + i)])];
      }
      uploaded_batch<Index> up;  // freed stream-ordered at the end of the iteration
      for (auto const& layer : blocks.layers) {
        // Pageable sources: cudaMemcpyAsync returns once the bytes are staged, so `blocks` may be
        // overwritten by the next batch.
        up.ids.push_back(upload(stream.get(), pool.get(), layer.src_nodes));
        up.ids.push_back(upload(stream.get(), pool.get(), layer.indices));
        up.offsets.push_back(upload(stream.get(), pool.get(), layer.offsets));
        up.edge_ids.push_back(upload(stream.get(), pool.get(), layer.edge_ids));
      }
      up.features = gnndirect::buffer<float>(static_cast<std::size_t>(n_in * dim), stream.get(), pool.get());
      // Pieces of 16 MiB alternate between the two pinned buffers: the gather of one overlaps
      // the copy of the other, and the last copy overlaps the next batch's sampling.
      staged.gather(sampler.pool(), host_features, inputs.data(), n_in, up.features.data(), stream.get());
      up.labels = upload(stream.get(), pool.get(), labels);
      result.feature_bytes += static_cast<std::uint64_t>(n_in) * host_features.row_bytes();
      bar.update(b + 1);
    }
    GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream.get()));  // the epoch ends when its data has landed
    meter.stop();
    result.end_unix_s = unix_now();
    bar.finish();
    // With --cpu-max-batches the epoch is extrapolated from the batches that ran (batches are
    // statistically alike: same size, same fanouts, shuffled seeds).
    double const scale = static_cast<double>(epoch_batches) / static_cast<double>(std::max<std::int64_t>(batches, 1));
    log.add(meter.seconds * scale, meter.core_seconds * scale);
    result.feature_bytes = static_cast<std::uint64_t>(static_cast<double>(result.feature_bytes) * scale);
    result.batches = epoch_batches;
    if (batches < epoch_batches) {
      result.note = "extrapolated from " + std::to_string(batches) + " of " + std::to_string(epoch_batches) + " batches";
    }
  }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream.get()));
  result.seconds = log.median_seconds();
  result.core_seconds = log.median_core_seconds();
  result.epoch_seconds = log.seconds;
  result.ran = true;
  return result;
}

/// Why a path that copies `needed` bytes into device memory cannot run: they do not fit in the
/// device's free memory with headroom for the pipeline's pool, CUB and the CUDA context. Empty
/// when they fit.
inline std::optional<std::string> does_not_fit(std::size_t needed, const char* what)
{
  std::size_t const headroom = std::size_t{8} << 30;
  std::size_t const free_bytes = gnndirect::device_memory().free_bytes;
  if (needed + headroom <= free_bytes) { return std::nullopt; }
  return std::string("skipped: ") + what + " (" + std::to_string(needed >> 20) + " MiB) do not fit in " +
         std::to_string(free_bytes >> 20) + " MiB free device memory with headroom";
}

/// A path that did not run, and why.
inline path_result skipped_path(const std::string& name, std::string why)
{
  path_result skipped{name};
  skipped.note = std::move(why);
  return skipped;
}

/// The dataset's graph with its neighbour lists at `device_indices` (a device copy).
template <class Index>
gnndirect::csr_view<std::int64_t, Index> graph_with_device_indices(const dataset<Index>& d,
                                                                  const Index* device_indices)
{
  auto graph = d.graph.view();
  graph.indices = device_indices;
  graph.indices_kind = memory_kind::device;
  return graph;
}

/// A device copy of `host`'s bytes (synchronous on `stream`).
template <class T>
gnndirect::buffer<T> device_copy(const T* host, std::size_t count, cudaStream_t stream)
{
  gnndirect::buffer<T> copy(count, memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(copy.data(), host, copy.bytes(), cudaMemcpyDefault, stream));
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
  return copy;
}

/// Copies graph and features into device memory (when they fit) and runs the same pipeline, with
/// fp32 features whatever --codec says: it is the baseline the codec paths are compared with.
template <class Index>
path_result run_gpu_path(const demo_args& a, const dataset<Index>& d, cudaStream_t stream)
{
  if (auto why = does_not_fit(d.graph.indices().bytes() + d.features.bytes(), "graph + features")) {
    return skipped_path("all-in-gpu", *why);
  }
  gnndirect::buffer<Index> indices;
  gnndirect::buffer<float> features;
  {
    elapsed_ticker const ticker("copying graph and features into GPU memory");
    indices = device_copy(d.graph.indices().data(), d.graph.indices().size(), stream);
    features = device_copy(d.features.view().data,
                           static_cast<std::size_t>(d.features.rows() * d.features.cols()), stream);
  }
  gnndirect::table_view<const float> const table(features.data(), d.features.rows(), d.features.cols(),
                                                 d.features.cols(), memory_kind::device);
  path_result result = run_pipeline_path<void>("all-in-gpu", a, d, graph_with_device_indices(d, indices.data()),
                                               table, fp32_reference(d), false);
  if (a.codec != "fp32") { result.note = "fp32 baseline (--codec applies to the host-resident pipeline paths)"; }
  return result;
}

/// Bytes of the device tier of path "cached": --cache-pct of the fp32 feature rows (with --codec
/// the tier holds encoded rows, so the same bytes hold more rows).
template <class Index>
std::size_t feature_cache_bytes(const demo_args& a, const dataset<Index>& d)
{
  auto const rows = static_cast<std::size_t>(static_cast<double>(d.features.rows()) * a.cache_pct / 100.0);
  return rows * d.features.view().row_bytes();
}

/// gnndirect with the neighbour lists copied into HBM and the features left in host memory.
/// Without a cache ("graph-in-hbm") only feature rows cross the link, so this epoch against its
/// own floor (feature bytes at the link peak) separates the feature gather's share of gnndirect's
/// gap from the sampling reads'. With the feature cache ("cached+graph-in-hbm"), both tiers: the
/// hottest nodes hold nearly all edges (bench/tier_model), so the whole neighbour-list array costs
/// about what a tier of the hot nodes' lists would, and only cold feature rows cross the link.
/// @tparam Codec void (fp32 features) or the row codec of `features` (see run_pipeline_path)
template <class Codec, class Index>
path_result run_graph_hbm_path(const demo_args& a, const dataset<Index>& d, feature_rows_t<Index, Codec> features,
                               const feature_reference& ref, cudaStream_t stream, std::size_t cache_bytes = 0)
{
  std::string const name = cache_bytes == 0 ? "graph-in-hbm" : "cached+graph-in-hbm";
  if (auto why = does_not_fit(d.graph.indices().bytes() + cache_bytes,
                              cache_bytes == 0 ? "the neighbour lists" : "the neighbour lists and feature cache")) {
    return skipped_path(name, *why);
  }
  gnndirect::buffer<Index> indices;
  {
    elapsed_ticker const ticker("copying the neighbour lists into GPU memory");
    indices = device_copy(d.graph.indices().data(), d.graph.indices().size(), stream);
  }
  // Its floor: the feature rows alone (those the tier misses, with one).
  return run_pipeline_path<Codec>(name, a, d, graph_with_device_indices(d, indices.data()), features, ref, false,
                                  cache_bytes);
}

/// The name of one sweep combination: "gnndirect w=W d=D", with " gb=G" when --gather-max-blocks
/// is swept too.
inline std::string sweep_entry_name(const demo_args& a, int workers, int depth, int gather_max_blocks)
{
  std::string name = "gnndirect w=" + std::to_string(workers) + " d=" + std::to_string(depth);
  if (a.gather_max_blocks_list.size() > 1) { name += " gb=" + std::to_string(gather_max_blocks); }
  return name;
}

/// The gnndirect path over every --workers x --depth x --gather-max-blocks combination (the caller
/// checked that there is more than one), on the same data: a short untimed warm-up first, so that
/// the first combination does not pay for first touches (pool growth, page mappings) alone.
/// Appends one result per combination and then the fastest one's copy named "gnndirect"; sets
/// a.workers, a.depth and a.gather_max_blocks to the fastest combination for the paths that follow.
/// @tparam Codec void (fp32 features) or the row codec of `features` (see run_pipeline_path)
template <class Codec, class Index>
void run_gnndirect_sweep(demo_args& a, const dataset<Index>& d, feature_rows_t<Index, Codec> features,
                         const feature_reference& ref, bool count_link_bytes, std::vector<path_result>& results)
{
  {
    demo_args warm = a;
    warm.epochs = 1;
    warm.timeline.clear();
    warm.max_batches = std::min<std::int64_t>(batches_per_epoch(a, static_cast<std::int64_t>(d.training_ids.size())), 32);
    (void)run_pipeline_path<Codec>("warm-up", warm, d, d.graph.view(), features, ref, false);
  }
  std::size_t best = results.size();
  for (int w : a.workers_list) {
    for (int depth : a.depth_list) {
      for (int gather_max_blocks : a.gather_max_blocks_list) {
        demo_args combo = a;
        combo.workers = w;
        combo.depth = depth;
        combo.gather_max_blocks = gather_max_blocks;
        combo.timeline.clear();  // one timeline per path: not one per combination
        path_result r = run_pipeline_path<Codec>(sweep_entry_name(a, w, depth, gather_max_blocks), combo, d,
                                                 d.graph.view(), features, ref, count_link_bytes);
        r.sweep_entry = true;
        print_result_line(r, nullptr, 24);
        if (best == results.size() || r.seconds < results[best].seconds) { best = results.size(); }
        results.push_back(std::move(r));
      }
    }
  }
  path_result chosen = results[best];
  chosen.name = "gnndirect";
  chosen.sweep_entry = false;
  chosen.note = "fastest of " + std::to_string(a.combinations()) + " combinations: --workers " +
                std::to_string(chosen.workers) + " --depth " + std::to_string(chosen.depth) +
                " --gather-max-blocks " + std::to_string(chosen.gather_max_blocks);
  a.workers = chosen.workers;
  a.depth = chosen.depth;
  a.gather_max_blocks = chosen.gather_max_blocks;
  results.push_back(std::move(chosen));
}

/// The codec type an encoded copy is stored with: Codec, or codecs::fp32 for none (Codec void,
/// which never builds one).
template <class Codec>
using stored_codec_t = std::conditional_t<std::is_void_v<Codec>, gnndirect::codecs::fp32, Codec>;

/// The features encoded with Codec on all host cores, into their own placement (not timed).
template <class Codec, class Index>
std::unique_ptr<gnndirect::encoded_table<Codec>> encode_features(const demo_args& a, const dataset<Index>& d)
{
  gnndirect::table_view<const float> const host = d.features.host_view();
  elapsed_ticker const ticker("encoding the features with codec " + a.codec);
  return std::make_unique<gnndirect::encoded_table<Codec>>(host.data, host.rows, host.cols, d.features.view().kind,
                                                           host.row_stride);
}

/// The encoded features as the pipeline paths read them: the host decode is the reference.
template <class Codec>
feature_reference encoded_reference(const std::string& codec, const gnndirect::encoded_table<Codec>& table)
{
  return {codec, static_cast<std::uint64_t>(table.stride_bytes()),
          [&table](std::int64_t r, float* out) { table.host_decode(r, out); }};
}

/// Per-epoch totals of the feature transfer alone (path "transfer").
struct transfer_result {
  bool ran{false};
  std::string note;
  std::int64_t batches{0};      // batches per epoch
  std::int64_t batches_run{0};  // batches measured (the totals are extrapolated from them)
  double rows{0};               // feature rows per epoch (both methods move the same rows)
  double bytes{0};              // feature bytes per epoch
  double gnndirect_seconds{0};  // sum of the per-batch gathers (CUDA events)
  double cpu_seconds{0};        // sum of the per-batch staged gathers (wall, to completion)
  double gnndirect_core_seconds{0};
  double cpu_core_seconds{0};
  double start_unix_s{0};
  double end_unix_s{0};
  bool verified{false};  // the first batch's rows were identical from both methods (with a codec:
                         // gnndirect's equal to the host decode of the same codes)
  std::string codec{"fp32"};  // --codec of gnndirect's gather
  double encoded_bytes{0};    // bytes of encoded rows (stride included) gnndirect's gather read
};

/// Device buffers of the transfer path, grown to the largest batch seen.
template <class Index>
struct transfer_buffers {
  std::int64_t capacity{0};  // rows
  gnndirect::buffer<Index> ids;
  gnndirect::buffer<float> direct;
  gnndirect::buffer<float> staged;
  gnndirect::buffer<unsigned char> workspace;

  void reserve(std::int64_t rows, std::int64_t dim, const gnndirect::table_view<const float>& table,
               const gnndirect::gather_policy& policy)
  {
    if (rows <= capacity) { return; }
    capacity = rows + rows / 4;
    auto const n = static_cast<std::size_t>(capacity);
    ids = gnndirect::buffer<Index>(n, memory_kind::device);
    direct = gnndirect::buffer<float>(n * static_cast<std::size_t>(dim), memory_kind::device);
    staged = gnndirect::buffer<float>(n * static_cast<std::size_t>(dim), memory_kind::device);
    workspace = gnndirect::buffer<unsigned char>(
      gnndirect::gather_workspace_bytes<Index>(capacity, table.rows, table.kind, table.row_bytes(), policy),
      memory_kind::device);
  }
};

/// Compares the first rows of both methods' outputs (a transfer that moved the wrong bytes fast
/// must not win the table).
template <class Index>
bool same_rows(const transfer_buffers<Index>& buf, std::int64_t rows, std::int64_t dim)
{
  auto const count = static_cast<std::size_t>(std::min<std::int64_t>(rows, 4096) * dim);
  std::vector<float> direct(count);
  std::vector<float> staged(count);
  GNNDIRECT_CUDA_TRY(cudaMemcpy(direct.data(), buf.direct.data(), count * sizeof(float), cudaMemcpyDeviceToHost));
  GNNDIRECT_CUDA_TRY(cudaMemcpy(staged.data(), buf.staged.data(), count * sizeof(float), cudaMemcpyDeviceToHost));
  return std::memcmp(direct.data(), staged.data(), count * sizeof(float)) == 0;
}

/// Times gnndirect's gather of `n` rows (ids already in device memory) from the host-resident
/// table into device memory with CUDA events, as the pipeline enqueues it (gather_async with the
/// pipeline's policy); the index check that follows is not timed. Adds to the result's totals.
/// `Rows` is the plain table (table_view<const float>) or an encoded copy (encoded_view<Codec>,
/// decoded to fp32 inside the gather).
template <class Index, class Rows>
void time_direct_gather(transfer_result& r, transfer_buffers<Index>& buf, const Rows& table, std::int64_t n,
                        const gnndirect::gather_policy& policy, cudaStream_t stream, cudaEvent_t start,
                        cudaEvent_t stop)
{
  gnndirect::table_view<float> const out(buf.direct.data(), n, table.cols, table.cols, memory_kind::device);
  gnndirect::workspace_view const ws{buf.workspace.data(), buf.workspace.bytes()};
  double const cpu0 = process_cpu_seconds();
  GNNDIRECT_CUDA_TRY(cudaEventRecord(start, stream));
  gnndirect::gather_async(stream, table, buf.ids.data(), n, out, ws, policy);
  GNNDIRECT_CUDA_TRY(cudaEventRecord(stop, stream));
  GNNDIRECT_CUDA_TRY(cudaEventSynchronize(stop));
  r.gnndirect_core_seconds += process_cpu_seconds() - cpu0;
  float ms = 0;
  GNNDIRECT_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
  r.gnndirect_seconds += 1e-3 * static_cast<double>(ms);
  gnndirect::gather_check(stream, ws, table.rows);
}

/// Times the CPU-centric staged gather of the same rows (all cores gather into two pinned
/// buffers, each copied while the other fills), wall time until the last copy has landed.
template <class Index>
void time_staged_gather(transfer_result& r, transfer_buffers<Index>& buf,
                        gnndirect::host::staged_gather<float>& staged, gnndirect::host::worker_pool& pool,
                        gnndirect::table_view<const float> host_table, const Index* ids, std::int64_t n,
                        cudaStream_t stream)
{
  double const cpu0 = process_cpu_seconds();
  auto const t0 = clock_type::now();
  staged.gather(pool, host_table, ids, n, buf.staged.data(), stream);
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
  r.cpu_seconds += seconds_since(t0);
  r.cpu_core_seconds += process_cpu_seconds() - cpu0;
}

/// True when the first rows gathered by gnndirect equal the host decode of the same codes.
template <class Index, class Codec>
bool decoded_rows_match(const transfer_buffers<Index>& buf, const gnndirect::encoded_table<Codec>& table,
                        const Index* ids, std::int64_t n)
{
  std::int64_t const dim = table.cols();
  auto const rows = std::min<std::int64_t>(n, 4096);
  std::vector<float> got(static_cast<std::size_t>(rows * dim));
  GNNDIRECT_CUDA_TRY(cudaMemcpy(got.data(), buf.direct.data(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<float> expected(static_cast<std::size_t>(dim));
  for (std::int64_t i = 0; i < rows; ++i) {
    table.host_decode(static_cast<std::int64_t>(ids[i]), expected.data());
    if (std::memcmp(got.data() + i * dim, expected.data(), expected.size() * sizeof(float)) != 0) { return false; }
  }
  return true;
}

/// The feature transfer alone, per batch of an epoch: the batch's input nodes come from the
/// CPU-centric sampler and are uploaded (neither timed); then gnndirect's gather and the staged
/// gather move the same rows, in alternating order from batch to batch (whichever runs second
/// finds some rows in the CPU caches). With --cpu-max-batches the totals are extrapolated like
/// the cpu path's. Totals are those of the last epoch.
/// @tparam Codec void: gnndirect gathers the fp32 table itself; else a row codec: it gathers from
/// an encoded copy of the features in the same placement (encoded on all cores first, not timed).
/// @param shared with a codec, the encoded copy the pipeline paths read (null: encoded here)
template <class Codec, class Index>
transfer_result run_transfer_path_with(const demo_args& a, const dataset<Index>& d,
                                       const gnndirect::encoded_table<stored_codec_t<Codec>>* shared = nullptr)
{
  transfer_result result;
  auto const stream = gnndirect::make_non_blocking_stream();
  auto const graph = d.host_view();
  gnndirect::table_view<const float> const table = d.features.view();
  gnndirect::table_view<const float> const host_table = d.features.host_view();
  std::int64_t const dim = table.cols;
  gnndirect::host::cpu_sampler sampler;
  gnndirect::host::staged_gather<float> staged(std::size_t{16} << 20);  // as the cpu path's
  gnndirect::host::cpu_blocks<std::int64_t, Index> blocks;
  transfer_buffers<Index> buf;
  gnndirect::pipeline_options const options = pipeline_options_for(a);
  gnndirect::gather_policy const policy = options.gather;
  std::int64_t const epoch_batches = batches_per_epoch(a, static_cast<std::int64_t>(d.training_ids.size()));
  std::int64_t const batches = a.cpu_max_batches > 0 ? std::min(epoch_batches, a.cpu_max_batches) : epoch_batches;
  cudaEvent_t start{};
  cudaEvent_t stop{};
  GNNDIRECT_CUDA_TRY(cudaEventCreate(&start));
  GNNDIRECT_CUDA_TRY(cudaEventCreate(&stop));
  result.start_unix_s = unix_now();
  epoch_log gnndirect_log;  // per epoch, both methods; medians reported, as for the other paths
  epoch_log cpu_log;
  // The encoded copy (Codec void: none).
  std::unique_ptr<gnndirect::encoded_table<stored_codec_t<Codec>>> owned;
  const gnndirect::encoded_table<stored_codec_t<Codec>>* encoded = shared;
  if constexpr (!std::is_void_v<Codec>) {
    if (encoded == nullptr) {
      owned = encode_features<Codec>(a, d);
      encoded = owned.get();
    }
    result.codec = a.codec;
  }
  for (int epoch = 0; epoch < a.epochs; ++epoch) {
    progress_bar bar("transfer epoch " + std::to_string(epoch), batches);
    std::vector<Index> order = d.training_ids;
    gnndirect::shuffle_epoch(order, options.seed, epoch);
    transfer_result totals;
    for (std::int64_t b = 0; b < batches; ++b) {
      sample_host_batch(sampler, a, graph, order, options.seed, epoch, b, blocks);
      auto const& inputs = blocks.input_nodes();
      auto const n_in = static_cast<std::int64_t>(inputs.size());
      buf.reserve(n_in, dim, table, policy);
      GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(buf.ids.data(), inputs.data(), static_cast<std::size_t>(n_in) * sizeof(Index),
                                         cudaMemcpyHostToDevice, stream.get()));
      GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream.get()));
      for (int k = 0; k < 2; ++k) {
        if ((k == 0) == (b % 2 == 0)) {
          if constexpr (std::is_void_v<Codec>) {
            time_direct_gather(totals, buf, table, n_in, policy, stream.get(), start, stop);
          } else {
            time_direct_gather(totals, buf, encoded->view(), n_in, policy, stream.get(), start, stop);
          }
        } else {
          time_staged_gather(totals, buf, staged, sampler.pool(), host_table, inputs.data(), n_in, stream.get());
        }
      }
      if (epoch == 0 && b == 0) {
        if constexpr (std::is_void_v<Codec>) {
          result.verified = same_rows(buf, n_in, dim);
        } else {
          // The staged gather wrote buf.staged; buf.direct holds the decoded rows of this batch.
          result.verified = decoded_rows_match(buf, *encoded, inputs.data(), n_in);
        }
      }
      totals.rows += static_cast<double>(n_in);
      bar.update(b + 1);
    }
    bar.finish();
    double const scale = static_cast<double>(epoch_batches) / static_cast<double>(std::max<std::int64_t>(batches, 1));
    result.rows = totals.rows * scale;  // the same rows every epoch (fixed shuffle and seeds)
    result.bytes = result.rows * static_cast<double>(table.row_bytes());
    if (encoded) { result.encoded_bytes = result.rows * static_cast<double>(encoded->stride_bytes()); }
    gnndirect_log.add(totals.gnndirect_seconds * scale, totals.gnndirect_core_seconds * scale);
    cpu_log.add(totals.cpu_seconds * scale, totals.cpu_core_seconds * scale);
  }
  result.gnndirect_seconds = gnndirect_log.median_seconds();
  result.gnndirect_core_seconds = gnndirect_log.median_core_seconds();
  result.cpu_seconds = cpu_log.median_seconds();
  result.cpu_core_seconds = cpu_log.median_core_seconds();
  result.end_unix_s = unix_now();
  GNNDIRECT_CUDA_TRY(cudaEventDestroy(start));
  GNNDIRECT_CUDA_TRY(cudaEventDestroy(stop));
  result.batches = epoch_batches;
  result.batches_run = batches;
  if (batches < epoch_batches) {
    result.note = "extrapolated from " + std::to_string(batches) + " of " + std::to_string(epoch_batches) + " batches";
  }
  result.ran = true;
  return result;
}


/// The transfer path with the --codec the command line names (with_codec_type: void for fp32).
template <class Index>
transfer_result run_transfer_path(const demo_args& a, const dataset<Index>& d)
{
  return with_codec_type(a.codec, [&](auto tag) { return run_transfer_path_with<typename decltype(tag)::type>(a, d); });
}

}  // namespace gnndirect_demo
