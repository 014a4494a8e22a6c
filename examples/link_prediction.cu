// Temporal link prediction with gnndirect's link_preparer (pipeline/link_preparer.cuh) on the
// batch scheduler, PyG LinkNeighborLoader's batches: the seed edges are the graph's latest edges
// (each with its time); every batch adds as many strict binary negatives, samples both
// endpoints' neighbourhoods at or before each seed edge's time with the seed edges themselves
// left out of message passing, gathers the input features and labels the edges (1, then 0).
// The "model" is a dot product of the endpoints' own features through edge_label_index; the
// program checks on the host that no sampled edge is later than its seed node's time and that
// no seed edge was sampled.
//   ./link_prediction [nodes]
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/cuda_handles.hpp>
#include <gnndirect/pipeline/link_preparer.cuh>
#include <gnndirect/pipeline/scheduler.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using gnndirect::memory_kind;

template <class T>
std::vector<T> to_host(const T* p, std::int64_t n)
{
  std::vector<T> v(static_cast<std::size_t>(n));
  if (n > 0) { GNNDIRECT_CUDA_TRY(cudaMemcpy(v.data(), p, v.size() * sizeof(T), cudaMemcpyDefault)); }
  return v;
}
template <class T>
gnndirect::buffer<T> to_memory(const std::vector<T>& v, memory_kind kind)
{
  gnndirect::buffer<T> b(v.size(), kind);
  if (!v.empty()) { GNNDIRECT_CUDA_TRY(cudaMemcpy(b.data(), v.data(), b.bytes(), cudaMemcpyDefault)); }
  return b;
}

int main(int argc, char** argv)
{
  std::int64_t const nodes = argc > 1 ? std::atoll(argv[1]) : 50000;
  if (gnndirect::device_count() == 0) {
    std::fprintf(stderr, "link_prediction: no CUDA device found; this example needs an NVIDIA GPU.\n");
    return 1;
  }
  try {
    // A graph with sorted neighbour lists (strict negatives search them) and a time per edge.
    std::mt19937_64 rng(41);
    std::vector<std::int64_t> indptr{0}, edge_time;
    std::vector<std::int32_t> indices;
    for (std::int64_t v = 0; v < nodes; ++v) {
      std::vector<std::int32_t> list;
      for (std::uint64_t e = 0, d = rng() % 30; e < d; ++e) {
        list.push_back(static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(nodes)));
      }
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
      for (std::int32_t u : list) {
        indices.push_back(u);
        edge_time.push_back(static_cast<std::int64_t>(rng() % 1000));
      }
      indptr.push_back(static_cast<std::int64_t>(indices.size()));
    }
    std::int64_t const dim = 16;
    std::vector<float> features(static_cast<std::size_t>(nodes * dim));
    for (auto& x : features) { x = static_cast<float>(rng() % 1000) / 1000.0f; }
    // Lists, times and features stay in host memory (pinned): the GPU reads them directly.
    auto const d_indptr = to_memory(indptr, memory_kind::device);
    auto const d_indices = to_memory(indices, memory_kind::pinned);
    auto const d_time = to_memory(edge_time, memory_kind::pinned);
    auto const d_features = to_memory(features, memory_kind::pinned);
    gnndirect::csr_view<std::int64_t, std::int32_t> csr;
    csr.indptr = d_indptr.data();
    csr.indices = d_indices.data();
    csr.num_nodes = nodes;
    csr.num_edges = static_cast<std::int64_t>(indices.size());
    csr.indices_kind = memory_kind::pinned;

    // Seed edges: the latest ones (time >= 900), with their times and edge ids (to exclude them).
    gnndirect::link_seeds<std::int32_t, float> seeds;
    for (std::int64_t v = 0; v < nodes; ++v) {
      for (std::int64_t e = indptr[v]; e < indptr[v + 1]; ++e) {
        if (edge_time[e] < 900) { continue; }
        seeds.src.push_back(static_cast<std::int32_t>(v));
        seeds.dst.push_back(indices[e]);
        seeds.times.push_back(edge_time[e]);
        seeds.edge_ids.push_back(e);
      }
    }
    gnndirect::link_options options;
    options.fanouts = {10, 5};
    options.batch_size = 1024;
    options.strict = true;
    using sampler_t = gnndirect::temporal_sampler<gnndirect::temporal_uniform, gnndirect::edge_time>;
    sampler_t const sampler{7, d_time.data(), csr.num_edges};
    gnndirect::device_pool_resource mr;
    gnndirect::link_preparer<std::int64_t, std::int32_t, float, float, sampler_t> preparer(
      csr, {d_features.data(), nodes, dim, dim, memory_kind::pinned}, seeds, gnndirect::binary_negatives{1.0},
      options, sampler, mr);
    // Three slots, two workers: batches are prepared while the consumer uses earlier ones.
    gnndirect::batch_scheduler<decltype(preparer)> scheduler(preparer, gnndirect::scheduler_options{3, 2});
    auto const consumer = gnndirect::make_non_blocking_stream();

    std::int64_t batches = 0, sampled = 0, late = 0, seed_edges_sampled = 0;
    double score[2] = {0, 0};
    std::int64_t scored[2] = {0, 0};
    scheduler.start_epoch(0);
    while (auto* batch = scheduler.next(consumer.get())) {
      GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));  // a real model would train here
      std::int64_t const e = batch->num_edges();
      auto const index = to_host(batch->edge_label_index, 2 * e);  // [2, E]: local src, local dst
      auto const label = to_host(batch->edge_label, e);
      // Input rows start with the seed nodes (block 0's dst nodes), so row index[i] is endpoint i's.
      auto const x = to_host(batch->features.data, batch->num_seed_nodes * dim);
      for (std::int64_t i = 0; i < e; ++i) {
        double dot = 0;
        for (std::int64_t c = 0; c < dim; ++c) { dot += x[index[i] * dim + c] * x[index[e + i] * dim + c]; }
        int const positive = label[i] > 0.5f ? 1 : 0;
        score[positive] += dot;
        ++scored[positive];
      }
      // Layer 0: every sampled edge at or before its seed node's time, no seed edge among them.
      auto const& block = batch->blocks.layers[0];
      auto const times = to_host(batch->seed_times, block.num_dst());
      auto const offsets = to_host(block.offsets.data(), block.num_dst() + 1);
      auto const ids = to_host(block.edge_ids.data(), block.num_edges());
      std::vector<std::int64_t> excluded;
      for (std::int64_t i = 0; i < batch->num_positive; ++i) { excluded.push_back(seeds.edge_ids[batch->host_positions[i]]); }
      std::sort(excluded.begin(), excluded.end());
      for (std::int64_t d = 0; d < block.num_dst(); ++d) {
        for (std::int64_t k = offsets[d]; k < offsets[d + 1]; ++k) {
          late += edge_time[ids[k]] > times[d];
          seed_edges_sampled += std::binary_search(excluded.begin(), excluded.end(), ids[k]);
        }
      }
      sampled += batch->num_sampled_edges;
      ++batches;
      scheduler.release(batch, consumer.get());
    }
    GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.get()));
    std::printf("%lld batches of %zu seed edges: %lld sampled edges; mean dot product %.3f (positives), "
                "%.3f (negatives)\n",
                static_cast<long long>(batches), seeds.src.size(), static_cast<long long>(sampled),
                score[1] / static_cast<double>(std::max<std::int64_t>(scored[1], 1)),
                score[0] / static_cast<double>(std::max<std::int64_t>(scored[0], 1)));
    bool const ok = late == 0 && seed_edges_sampled == 0 && batches == preparer.num_batches();
    std::printf("link_prediction: %s (%lld edges after their seed's time, %lld seed edges sampled)\n",
                ok ? "ok" : "FAILED", static_cast<long long>(late), static_cast<long long>(seed_edges_sampled));
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "link_prediction: %s\n", e.what());
    return 1;
  }
}
