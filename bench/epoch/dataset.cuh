#pragma once
// The epoch benchmark (bench/epoch/epoch.cu), the data set: graph, features and labels generated on the GPU.
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/graph/generate.cuh>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/table.hpp>

#include "common.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace gnndirect_demo {

// ---------------------------------------------------------------------------------------------
// Data set: graph, features and labels generated on the GPU

__host__ __device__ inline std::uint64_t mix64(std::uint64_t x)
{
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// data[i] = a deterministic pseudo-random value in [-1, 1) of element first + i.
static __global__ void fill_features_kernel(float* data, std::int64_t first, std::int64_t count, std::uint64_t seed)
{
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t const bits = mix64(seed ^ static_cast<std::uint64_t>(first + i)) >> 40;
    data[i] = static_cast<float>(bits) * (2.0f / 16777216.0f) - 1.0f;
  }
}

/// labels[v] = a deterministic class in [0, classes).
static __global__ void fill_labels_kernel(label_type* labels, std::int64_t n, std::uint64_t seed, int classes)
{
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < n;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    labels[v] = static_cast<label_type>(mix64(seed ^ ~static_cast<std::uint64_t>(v)) % static_cast<std::uint64_t>(classes));
  }
}

/// Neighbour-list bytes sampling must read over the link for these dst nodes, when the indices
/// are host-resident: per node min(lines of its list, draws) 128-byte lines (a draw reads one
/// line; a short list is read whole). A lower bound: lists that straddle a line read one more.
template <class Offset, class Index>
__global__ void neighbour_bytes_kernel(const Offset* indptr, const Index* dst, std::int64_t n, int fanout,
                                       unsigned long long* total)
{
  unsigned long long local = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    auto const v = static_cast<std::int64_t>(dst[i]);
    auto const degree = static_cast<std::int64_t>(indptr[v + 1] - indptr[v]);
    std::int64_t const lines = (degree * static_cast<std::int64_t>(sizeof(Index)) + 127) / 128;
    local += static_cast<unsigned long long>(std::min<std::int64_t>(lines, fanout)) * 128ull;
  }
  if (local != 0) { atomicAdd(total, local); }
}

/// Adds `row_bytes` for each of the n nodes whose feature row the device tier does not hold
/// (slot_of[v] < 0): the feature bytes a cached path's gather reads over the host link.
template <class Index>
__global__ void uncached_bytes_kernel(const std::int32_t* slot_of, const Index* nodes, std::int64_t n,
                                      unsigned long long row_bytes, unsigned long long* total)
{
  unsigned long long local = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    if (slot_of[static_cast<std::int64_t>(nodes[i])] < 0) { local += row_bytes; }
  }
  if (local != 0) { atomicAdd(total, local); }
}

inline unsigned grid_for(std::int64_t n)
{
  return static_cast<unsigned>(std::clamp<std::int64_t>((n + 255) / 256, 1, 4096));
}

template <class Index>
struct dataset {
  using graph_type = gnndirect::csr_graph<std::int64_t, Index>;
  graph_type graph;                     // indptr device, indices host-resident
  gnndirect::table<float> features;     // host-resident
  gnndirect::buffer<label_type> labels;  // device
  std::vector<std::int64_t> host_indptr;  // for the CPU-centric path
  std::vector<label_type> host_labels;
  std::vector<Index> training_ids;
  memory_kind host_kind{memory_kind::managed_host};

  /// A csr_view with host addresses for the CPU-centric sampler (indices are CPU-readable).
  gnndirect::csr_view<std::int64_t, Index> host_view() const
  {
    auto view = graph.view();
    view.indptr = host_indptr.data();
    view.indices = graph.indices().host_data();
    return view;
  }
};

int const num_classes = 172;

template <class Index>
dataset<Index> make_dataset(const demo_args& a, cudaStream_t stream, memory_kind host_kind)
{
  dataset<Index> d;
  d.host_kind = host_kind;
  auto const options = gnndirect::preset_options(a.preset, a.scale, a.seed);
  {
    elapsed_ticker const ticker("generating R-MAT graph on the GPU");
    // indptr in HBM: it is small (8 B per node) and read once per sampled node, and the sampling
    // probe (docs/design.md §3) ran with it there; the edge arrays live in host memory.
    d.graph = gnndirect::generate_csr<std::int64_t, Index>(
      stream, options, gnndirect::csr_placement{memory_kind::device, host_kind});
  }
  std::int64_t const n = d.graph.num_nodes();
  std::int64_t const dim = a.feature_dim;
  d.features = gnndirect::table<float>(n, dim, host_kind);
  {
    std::int64_t const total = n * dim;
    std::int64_t const chunk = std::int64_t{1} << 28;  // 1 GiB of fp32 per launch
    progress_bar bar("filling features on the GPU", (total + chunk - 1) / chunk);
    for (std::int64_t first = 0, step = 0; first < total; first += chunk, ++step) {
      std::int64_t const count = std::min(chunk, total - first);
      fill_features_kernel<<<grid_for(count), 256, 0, stream>>>(d.features.view().data + first, first,
                                                                count, a.seed);
      GNNDIRECT_CUDA_TRY(cudaGetLastError());
      GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
      bar.update(step + 1);
    }
    bar.finish();
  }
  d.labels = gnndirect::buffer<label_type>(static_cast<std::size_t>(n), memory_kind::device);
  fill_labels_kernel<<<grid_for(n), 256, 0, stream>>>(d.labels.data(), n, a.seed, num_classes);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  d.host_labels.resize(static_cast<std::size_t>(n));
  d.host_indptr.resize(static_cast<std::size_t>(n) + 1);
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(d.host_labels.data(), d.labels.data(), d.labels.bytes(),
                                     cudaMemcpyDeviceToHost, stream));
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(d.host_indptr.data(), d.graph.indptr().data(),
                                     d.graph.indptr().bytes(), cudaMemcpyDeviceToHost, stream));
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
  // Training nodes spread evenly over the id range; R-MAT ids are scrambled, so this is a random
  // sample with respect to degree.
  std::int64_t const train = a.train_nodes > 0 ? std::min(a.train_nodes, n)
                                               : default_train_nodes(a.preset, a.scale, n);
  d.training_ids.resize(static_cast<std::size_t>(train));
  for (std::int64_t i = 0; i < train; ++i) {
    d.training_ids[static_cast<std::size_t>(i)] = static_cast<Index>(i * n / train);
  }
  return d;
}


}  // namespace gnndirect_demo
