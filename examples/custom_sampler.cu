// A framework's own sampler through gnndirect's multi-layer sampling: a temporal sampler (each
// node keeps its `fanout` most recent edges before its query time) written only against the
// sampler concept (device/samplers.hpp), driven by sample_blocks_async for three layers
// (relabelled message-flow blocks, no host round trip), checked against plain host code.
//   ./custom_sampler [nodes] [seeds]
#include <gnndirect/algorithms/sample_blocks.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <unordered_map>
#include <vector>

using csr_t = gnndirect::csr_view<std::int64_t, std::int32_t>;

// The framework's sampler: trivially copyable, carries its own data, works on any tile.
struct recent_before {
  static constexpr bool needs_weights = false;
  const std::int64_t* edge_time;   // per edge (CSR position)
  const std::int64_t* query_time;  // per node

  __host__ __device__ std::size_t scratch_bytes(int, int) const { return 0; }

  template <class Tile, class Offset, class Index>
  __device__ std::int64_t sample(const Tile& tile, const gnndirect::csr_view<Offset, Index>&,
                                 const gnndirect::node_edges<Offset>& edges, int fanout, int, void*,
                                 const gnndirect::sampled_output<Offset, Index>& out) const
  {
    const std::int64_t* const t = edge_time + edges.first;
    std::int64_t const limit = query_time[edges.node];
    std::int64_t kept = 0;  // every lane counts all eligible edges (no collective needed)
    for (std::int64_t p = 0; p < edges.degree; ++p) { kept += t[p] < limit; }
    for (std::int64_t p = tile.thread_rank(); p < edges.degree; p += tile.num_threads()) {
      if (t[p] >= limit) { continue; }
      std::int64_t rank = 0;  // slot = rank by (time, position), most recent first
      for (std::int64_t q = 0; q < edges.degree; ++q) {
        rank += t[q] < limit && (t[q] > t[p] || (t[q] == t[p] && q > p));
      }
      if (rank < fanout) { out.emit(p, rank); }
    }
    return kept < fanout ? kept : fanout;
  }
};

// The same sampling and relabelling in plain host code: one layer's src nodes, offsets, indices.
struct host_layer {
  std::vector<std::int32_t> src;
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int32_t> indices;
};
host_layer host_sample(const std::vector<std::int64_t>& indptr, const std::vector<std::int32_t>& indices,
                       const std::vector<std::int64_t>& et, const std::vector<std::int64_t>& qt,
                       const std::vector<std::int32_t>& dst, int fanout)
{
  host_layer l;
  l.src = dst;
  std::unordered_map<std::int32_t, std::int32_t> local;
  for (std::size_t d = 0; d < dst.size(); ++d) { local.emplace(dst[d], static_cast<std::int32_t>(d)); }
  for (std::int32_t v : dst) {
    std::vector<std::int64_t> e;
    for (std::int64_t p = indptr[v]; p < indptr[v + 1]; ++p) { if (et[p] < qt[v]) { e.push_back(p); } }
    std::sort(e.begin(), e.end(), [&](std::int64_t a, std::int64_t b) { return et[a] != et[b] ? et[a] > et[b] : a > b; });
    e.resize(std::min<std::size_t>(e.size(), static_cast<std::size_t>(fanout)));
    for (std::int64_t p : e) {
      auto const it = local.emplace(indices[p], static_cast<std::int32_t>(l.src.size())).first;
      if (it->second == static_cast<std::int32_t>(l.src.size())) { l.src.push_back(indices[p]); }
      l.indices.push_back(it->second);
    }
    l.offsets.push_back(static_cast<std::int64_t>(l.indices.size()));
  }
  return l;
}

template <class T>
std::vector<T> to_host(const T* p, std::int64_t n)
{
  std::vector<T> v(static_cast<std::size_t>(n));
  if (n > 0) { GNNDIRECT_CUDA_TRY(cudaMemcpy(v.data(), p, v.size() * sizeof(T), cudaMemcpyDefault)); }
  return v;
}
template <class T>
gnndirect::buffer<T> to_device(const std::vector<T>& v)
{
  gnndirect::buffer<T> b(v.size(), gnndirect::memory_kind::device);
  if (!v.empty()) { GNNDIRECT_CUDA_TRY(cudaMemcpy(b.data(), v.data(), b.bytes(), cudaMemcpyHostToDevice)); }
  return b;
}

int main(int argc, char** argv)
{
  std::int64_t const nodes = argc > 1 ? std::atoll(argv[1]) : 100000;
  std::int64_t const num_seeds = argc > 2 ? std::atoll(argv[2]) : 1024;
  if (gnndirect::device_count() == 0) {
    std::fprintf(stderr, "custom_sampler: no CUDA device found; this example needs an NVIDIA GPU.\n");
    return 1;
  }
  try {
    std::mt19937_64 rng(2024);
    std::vector<std::int64_t> indptr{0}, et, qt;
    std::vector<std::int32_t> indices, seeds;
    for (std::int64_t v = 0; v < nodes; ++v) {
      for (std::uint64_t e = 0, d = rng() % 40; e < d; ++e) {
        indices.push_back(static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(nodes)));
        et.push_back(static_cast<std::int64_t>(rng() % 10000));
      }
      indptr.push_back(static_cast<std::int64_t>(indices.size()));
      qt.push_back(static_cast<std::int64_t>(rng() % 10000));
    }
    for (std::int64_t i = 0; i < num_seeds; ++i) { seeds.push_back(static_cast<std::int32_t>(rng() % nodes)); }
    auto const d_indptr = to_device(indptr), d_et = to_device(et), d_qt = to_device(qt);
    auto const d_indices = to_device(indices), d_seeds = to_device(seeds);
    csr_t csr;
    csr.indptr = d_indptr.data();
    csr.indices = d_indices.data();
    csr.num_nodes = nodes;
    csr.num_edges = static_cast<std::int64_t>(indices.size());

    // Bound-sized outputs and workspace, allocated once; the whole sample is one stream of work.
    std::vector<int> const fanouts{10, 5, 3};
    cudaStream_t const stream{};
    gnndirect::sample_blocks_buffers<std::int64_t, std::int32_t> const blocks(num_seeds, fanouts, nodes, stream);
    gnndirect::sample_blocks_async(stream, csr, d_seeds.data(), num_seeds, fanouts,
                                   recent_before{d_et.data(), d_qt.data()}, gnndirect::sampling_policy{},
                                   blocks.view(), blocks.workspace());
    gnndirect::sample_blocks_check(stream, blocks.workspace(), fanouts.size(), nodes);  // synchronises

    std::vector<std::int64_t> const counts = to_host(blocks.counts(), 2 * static_cast<std::int64_t>(fanouts.size()));
    std::vector<std::int32_t> dst = seeds;
    std::int64_t mismatches = 0;
    for (std::size_t l = 0; l < fanouts.size(); ++l) {
      host_layer const want = host_sample(indptr, indices, et, qt, dst, fanouts[l]);
      auto const out = blocks.view().layers[l];
      mismatches += to_host(out.src_nodes, counts[2 * l]) != want.src;
      mismatches += to_host(out.offsets, static_cast<std::int64_t>(want.offsets.size())) != want.offsets;
      mismatches += to_host(out.indices, counts[2 * l + 1]) != want.indices;
      std::printf("layer %zu: %zu dst, %lld src, %lld edges\n", l, dst.size(),
                  static_cast<long long>(counts[2 * l]), static_cast<long long>(counts[2 * l + 1]));
      dst = want.src;
    }
    std::printf("custom_sampler: %s\n", mismatches == 0 ? "equal to the host implementation" : "MISMATCH");
    return mismatches == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "custom_sampler: %s\n", e.what());
    return 1;
  }
}
