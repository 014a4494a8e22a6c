// The story of one epoch: a GNN's mini-batches prepared on the GPU straight from host memory.
//   1. a graph shaped like ogbn-products is generated; its neighbour lists and a feature table
//      are placed in host memory (the GPU reads them over the link, nothing is copied up front);
//   2. a minibatch_pipeline prepares the batches: seeds -> sampled blocks -> feature rows;
//   3. the first batch is checked on the host: every sampled edge is an edge of the graph, every
//      feature row is the row of the node it belongs to, every label the label of its seed;
//   4. the epoch's time is set against the link floor: the feature bytes it gathered over the
//      host link's peak rate (a lower bound on any loader that moves them).
// The full benchmark (every data path, sweeps, JSON) is bench/epoch, which scripts/demo runs.
//
//   ./demo [scale]      (products-shaped graph times scale, default 0.1)
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/graph/generate.cuh>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/placement.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/pipeline/minibatch_pipeline.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using Offset = std::int64_t;
using Index = std::int32_t;
using Label = std::int32_t;
constexpr std::int64_t dim = 100;  // fp32 features per node, as ogbn-products

// The value of feature `c` of node `v`: computed again by the check, which so reads nothing the
// pipeline wrote to know what a row should hold.
float feature_value(std::int64_t v, std::int64_t c) { return static_cast<float>((v * 131 + c) % 1000) * 1e-3f; }
Label label_of(std::int64_t v) { return static_cast<Label>(v % 47); }

// The host link's peak: a pinned 256 MiB host-to-device copy, best of 5.
double link_peak_bytes_per_s()
{
  std::size_t const bytes = std::size_t{256} << 20;
  gnndirect::buffer<char> host(bytes, gnndirect::memory_kind::pinned);
  gnndirect::buffer<char> device(bytes, gnndirect::memory_kind::device);
  double best = 0;
  for (int i = 0; i < 5; ++i) {
    auto const t0 = std::chrono::steady_clock::now();
    GNNDIRECT_CUDA_TRY(cudaMemcpy(device.data(), host.host_data(), bytes, cudaMemcpyHostToDevice));
    std::chrono::duration<double> const s = std::chrono::steady_clock::now() - t0;
    best = std::max(best, static_cast<double>(bytes) / s.count());
  }
  return best;
}

// Copies `n` elements of device-visible memory to a host vector.
template <class T>
std::vector<T> to_host(const T* p, std::int64_t n)
{
  std::vector<T> out(static_cast<std::size_t>(n));
  GNNDIRECT_CUDA_TRY(cudaMemcpy(out.data(), p, out.size() * sizeof(T), cudaMemcpyDefault));
  return out;
}

// Step 3: checks one batch against the graph and the feature formula; returns the problems found.
template <class Batch>
int check_batch(const Batch& batch, const std::vector<Offset>& indptr, const Index* neighbours)
{
  int problems = 0;
  for (auto const& layer : batch.blocks.layers) {  // each sampled edge (dst <- src) is in the graph
    auto const dst = to_host(layer.dst_nodes.data(), layer.num_dst());
    auto const src = to_host(layer.src_nodes.data(), layer.num_src());
    auto const offsets = to_host(layer.offsets.data(), layer.num_dst() + 1);
    auto const local = to_host(layer.indices.data(), layer.num_edges());
    for (std::int64_t d = 0; d < layer.num_dst(); ++d) {
      auto const v = static_cast<std::size_t>(dst[static_cast<std::size_t>(d)]);
      const Index* const first = neighbours + indptr[v];
      const Index* const last = neighbours + indptr[v + 1];
      for (std::int64_t e = offsets[d]; e < offsets[d + 1]; ++e) {
        problems += std::find(first, last, src[local[e]]) == last;
      }
    }
  }
  auto const seeds = to_host(batch.seeds, batch.num_seeds);  // each seed's label came along
  auto const labels = to_host(batch.labels, batch.num_seeds);
  for (std::size_t i = 0; i < seeds.size(); ++i) { problems += labels[i] != label_of(seeds[i]); }
  auto const& inputs = batch.blocks.input_nodes();  // row r of the features is node inputs[r]
  auto const nodes = to_host(inputs.data(), inputs.count);
  std::vector<float> rows(nodes.size() * dim);
  GNNDIRECT_CUDA_TRY(cudaMemcpy2D(rows.data(), dim * sizeof(float), batch.features.data,
                                  batch.features.row_bytes(), dim * sizeof(float), nodes.size(),
                                  cudaMemcpyDeviceToHost));
  for (std::size_t r = 0; r < nodes.size(); ++r) {
    for (std::int64_t c = 0; c < dim; ++c) { problems += rows[r * dim + c] != feature_value(nodes[r], c); }
  }
  return problems;
}

int main(int argc, char** argv)
{
  double const scale = argc > 1 ? std::atof(argv[1]) : 0.1;
  if (!(scale > 0 && scale <= 1)) {
    std::fprintf(stderr, "usage: demo [scale]   (scale in (0, 1], got '%s')\n", argv[1]);
    return 2;
  }
  if (gnndirect::device_count() == 0) {
    std::fprintf(stderr, "demo: no CUDA device found; this example needs an NVIDIA GPU.\n");
    return 1;
  }
  try {
    // 1. The graph and the features, in the host memory `auto` placement picks for this GPU.
    auto const where = gnndirect::choose_host_placement();
    std::printf("host-resident data in %s (%s)\n", gnndirect::to_string(where.kind).data(), where.reason);
    if (!gnndirect::is_host_resident(where.kind)) { return 1; }  // this GPU cannot read host memory
    cudaStream_t stream = nullptr;  // where the pipeline hands batches over (training would run here)
    GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    auto const graph = gnndirect::generate_csr<Offset, Index>(
      stream, gnndirect::preset_options(gnndirect::graph_preset::products, scale),
      gnndirect::csr_placement{gnndirect::memory_kind::device, where.kind});  // small indptr in HBM
    std::int64_t const n = graph.num_nodes();
    gnndirect::table<float> features(n, dim, where.kind);
    auto const host_rows = features.host_view();  // filled by the CPU, where the table lives
    for (std::int64_t v = 0; v < n; ++v) {
      for (std::int64_t c = 0; c < dim; ++c) { host_rows.row(v)[c] = feature_value(v, c); }
    }
    std::vector<Label> host_labels(static_cast<std::size_t>(n));
    for (std::size_t v = 0; v < host_labels.size(); ++v) { host_labels[v] = label_of(static_cast<std::int64_t>(v)); }
    gnndirect::buffer<Label> labels(host_labels.size(), gnndirect::memory_kind::device);
    GNNDIRECT_CUDA_TRY(cudaMemcpy(labels.data(), host_labels.data(), labels.bytes(), cudaMemcpyHostToDevice));
    std::vector<Index> training_ids;  // every 10th node trains
    for (std::int64_t v = 0; v < n; v += 10) { training_ids.push_back(static_cast<Index>(v)); }
    std::printf("graph: %lld nodes, %lld edges; features %.2f GB; %zu training nodes\n",
                static_cast<long long>(n), static_cast<long long>(graph.num_edges()),
                static_cast<double>(features.bytes()) / 1e9, training_ids.size());

    // 2. The pipeline: workers sample each batch's blocks and gather its rows on the GPU.
    gnndirect::pipeline_options options;
    options.fanouts = {15, 10, 5};
    options.batch_size = 1024;
    gnndirect::minibatch_pipeline<Offset, Index, float, Label> pipeline(graph.view(), features.view(),
                                                                        labels.data(), training_ids, options);
    double const peak = link_peak_bytes_per_s();
    std::vector<Offset> const indptr = to_host(graph.indptr().data(), n + 1);
    std::size_t feature_bytes = 0;
    int problems = 0;
    std::chrono::duration<double> checking{0};  // the check's time, left out of the epoch's
    auto const t0 = std::chrono::steady_clock::now();
    pipeline.start_epoch(0);
    while (auto* batch = pipeline.next(stream)) {
      feature_bytes += batch->feature_bytes;
      if (batch->index == 0) {  // 3. one batch checked against the host
        auto const c0 = std::chrono::steady_clock::now();
        GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
        problems = check_batch(*batch, indptr, graph.indices().host_data());
        checking = std::chrono::steady_clock::now() - c0;
        std::printf("batch 0: %lld seeds, %lld sampled edges, %lld feature rows: %s\n",
                    static_cast<long long>(batch->num_seeds), static_cast<long long>(batch->num_sampled_edges),
                    static_cast<long long>(batch->num_input_nodes), problems == 0 ? "match the host" : "MISMATCH");
      }
      pipeline.release(batch, stream);
    }
    GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
    std::chrono::duration<double> const epoch = std::chrono::steady_clock::now() - t0 - checking;

    // 4. The epoch against the link floor (features only: the sampler's neighbour reads add more).
    double const floor_s = static_cast<double>(feature_bytes) / peak;
    std::printf("epoch: %lld batches in %.3f s; %.2f GB of feature rows; link peak %.1f GB/s -> floor "
                "%.3f s (%.0f%% of the epoch)\n",
                static_cast<long long>(pipeline.num_batches()), epoch.count(),
                static_cast<double>(feature_bytes) / 1e9, peak / 1e9, floor_s, 100.0 * floor_s / epoch.count());
    GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));  // (an exception above leaves it to the process exit)
    return problems == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "demo: %s\n", e.what());
    return 1;
  }
}
