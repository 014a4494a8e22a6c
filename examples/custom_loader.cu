// A framework's own fused loader kernel built from gnndirect's public device primitives: each
// warp samples one hop of one seed (sample_neighbors_tile with a sampler type) and copies the
// sampled neighbours' feature rows out of host memory (copy_row), both over one cooperative-groups tile,
// with no bulk call and no intermediate buffer. The result is checked against the host reference.
//
//   ./custom_loader [nodes] [seeds]
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/device/copy_row.cuh>
#include <gnndirect/device/sample_neighbors_tile.cuh>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/placement.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/reference/sample_reference.hpp>

#include <cooperative_groups.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace cg = cooperative_groups;
using csr_t = gnndirect::csr_view<std::int64_t, std::int64_t>;

constexpr int fanout = 10;
constexpr int cols = 64;  // 256-byte fp32 rows: 16-byte vectors, one row per 16-lane pass

// One warp per seed: sample into shared memory, then copy the rows; missing rows are zero.
__global__ void sample_and_gather(csr_t csr, gnndirect::table_view<const float> features,
                                  const std::int64_t* seeds, std::int64_t num_seeds,
                                  gnndirect::uniform_sampler sampler, float* out, std::int64_t* counts)
{
  __shared__ std::int64_t scratch[8][fanout];  // the sampler's per-warp scratch (8 warps/block)
  __shared__ std::int64_t picked[8][fanout];
  auto const warp = cg::tiled_partition<32>(cg::this_thread_block());  // samples and copies
  int const w = static_cast<int>(threadIdx.x / 32);
  std::int64_t const i = blockIdx.x * std::int64_t{8} + w;
  if (i >= num_seeds) { return; }
  std::int64_t const n = gnndirect::sample_neighbors_tile(warp, csr, seeds[i], fanout, 0, sampler,
                                                          scratch[w], picked[w], nullptr);
  warp.sync();  // picked[] was written by other lanes
  for (int j = 0; j < fanout; ++j) {
    float* const row = out + (i * fanout + j) * cols;
    if (j < n) {
      const float* const src = features.row(picked[w][j]);
      gnndirect::copy_row<16>(warp, src, row, cols * sizeof(float), src);
    } else {
      gnndirect::copy_row<16>(warp, nullptr, row, cols * sizeof(float), nullptr);  // zero-fill
    }
  }
  if (warp.thread_rank() == 0) { counts[i] = n; }
}

int main(int argc, char** argv)
{
  std::int64_t const nodes = argc > 1 ? std::atoll(argv[1]) : 200000;
  std::int64_t const num_seeds = argc > 2 ? std::atoll(argv[2]) : 4096;
  if (nodes < 1 || num_seeds < 1) {
    std::fprintf(stderr, "custom_loader: nodes and seeds must be >= 1\n");
    return 2;
  }
  if (gnndirect::device_count() == 0) {
    std::fprintf(stderr, "custom_loader: no CUDA device found; this example needs an NVIDIA GPU.\n");
    return 1;
  }
  try {
    std::mt19937_64 rng(42);
    std::vector<std::int64_t> indptr{0}, indices, seeds(static_cast<std::size_t>(num_seeds));
    for (std::int64_t v = 0; v < nodes; ++v) {
      auto const degree = static_cast<std::int64_t>(rng() % 40);
      for (std::int64_t e = 0; e < degree; ++e) { indices.push_back(static_cast<std::int64_t>(rng() % nodes)); }
      indptr.push_back(static_cast<std::int64_t>(indices.size()));
    }
    for (auto& s : seeds) { s = static_cast<std::int64_t>(rng() % nodes); }
    std::vector<float> host_features(static_cast<std::size_t>(nodes * cols));
    for (auto& x : host_features) { x = static_cast<float>(rng() % 100000) * 1e-3f; }

    // Graph and features stay in host memory, placed where the GPU reads them fastest.
    auto const where = gnndirect::choose_host_placement().kind;
    auto const features = gnndirect::table<float>::adopt_by_copy(host_features.data(), nodes, cols, where);
    auto const to_host_memory = [&](const std::vector<std::int64_t>& v) {
      gnndirect::buffer<std::int64_t> b(v.size(), where);
      std::memcpy(b.host_data(), v.data(), v.size() * sizeof(std::int64_t));
      return b;
    };
    auto const d_indptr = to_host_memory(indptr), d_indices = to_host_memory(indices),
               d_seeds = to_host_memory(seeds);
    csr_t csr;
    csr.indptr = d_indptr.data();
    csr.indices = d_indices.data();
    csr.num_nodes = nodes;
    csr.num_edges = static_cast<std::int64_t>(indices.size());
    gnndirect::buffer<float> out(static_cast<std::size_t>(num_seeds * fanout * cols), gnndirect::memory_kind::device);
    gnndirect::buffer<std::int64_t> counts(static_cast<std::size_t>(num_seeds), gnndirect::memory_kind::device);
    gnndirect::uniform_sampler const sampler{7};
    sample_and_gather<<<static_cast<unsigned>((num_seeds + 7) / 8), 256>>>(
      csr, features.view(), d_seeds.data(), num_seeds, sampler, out.data(), counts.data());
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
    GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());

    // Check: the host reference's sample, rows copied on the CPU.
    std::vector<float> got(out.size());
    std::vector<std::int64_t> got_counts(counts.size());
    GNNDIRECT_CUDA_TRY(cudaMemcpy(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
    GNNDIRECT_CUDA_TRY(cudaMemcpy(got_counts.data(), counts.data(), counts.bytes(), cudaMemcpyDeviceToHost));
    csr_t host_csr = csr;
    host_csr.indptr = indptr.data();
    host_csr.indices = indices.data();
    auto const expected = gnndirect::host::sample_neighbors_reference(host_csr, seeds.data(), num_seeds, fanout, 0, sampler);
    std::int64_t mismatches = 0;
    for (std::int64_t i = 0; i < num_seeds; ++i) {
      auto const begin = expected.offsets[static_cast<std::size_t>(i)];
      std::int64_t const n = expected.offsets[static_cast<std::size_t>(i) + 1] - begin;
      mismatches += got_counts[static_cast<std::size_t>(i)] != n;
      for (std::int64_t j = 0; j < fanout; ++j) {
        const float* const row = got.data() + (i * fanout + j) * cols;
        std::vector<float> want(cols, 0.0f);
        if (j < n) {
          auto const id = expected.neighbors[static_cast<std::size_t>(begin + j)];
          std::memcpy(want.data(), host_features.data() + id * cols, cols * sizeof(float));
        }
        mismatches += std::memcmp(row, want.data(), cols * sizeof(float)) != 0;
      }
    }
    std::printf("custom_loader: %lld seeds x %d neighbours x %d features (%s): %s (%lld mismatches)\n",
                static_cast<long long>(num_seeds), fanout, cols, gnndirect::to_string(where).data(),
                mismatches == 0 ? "equal to the host reference" : "MISMATCH", static_cast<long long>(mismatches));
    return mismatches == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "custom_loader: %s\n", e.what());
    return 1;
  }
}
