// Codec table example: fp32 features stored in host memory as 8-bit codes (int8_affine: one
// scale and offset per row), a quarter of the bytes crossing the host link per row, decoded to
// fp32 inside the gather. Shows the memory a codec saves, the error its encoder measured, and that
// the GPU's decode equals the host decode of the same codes bit for bit. The codec is a type:
// swap int8_affine for fp16, bf16, fp8_e4m3 or int4_affine (device/codecs.hpp).
//
//   ./codec_table [rows] [cols] [batch]
#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/device/codecs.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/encoded_table.hpp>
#include <gnndirect/owners/placement.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

using codec = gnndirect::codecs::int8_affine;

int main(int argc, char** argv)
{
  std::int64_t const rows = argc > 1 ? std::atoll(argv[1]) : 200000;
  std::int64_t const cols = argc > 2 ? std::atoll(argv[2]) : 100;
  std::int64_t const batch = argc > 3 ? std::atoll(argv[3]) : 50000;
  if (rows < 1 || cols < 1 || batch < 1) {
    std::fprintf(stderr, "codec_table: rows, cols and batch must be >= 1\n");
    return 2;
  }
  if (gnndirect::device_count() == 0) {
    std::fprintf(stderr, "codec_table: no CUDA device found; this example needs an NVIDIA GPU.\n");
    return 1;
  }
  try {
    // 1. fp32 features, each column with its own scale (as real embeddings have).
    std::mt19937_64 rng(42);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> features(static_cast<std::size_t>(rows * cols));
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t c = 0; c < cols; ++c) { features[r * cols + c] = normal(rng) * static_cast<float>(1 + c % 5); }
    }

    // 2. Encode once on all host cores, into host memory placed for this GPU. Every code row
    //    is padded to a stride the gather loads in whole 16-byte vectors.
    auto const where = gnndirect::choose_host_placement().kind;
    gnndirect::encoded_table<codec> const table(features.data(), rows, cols, where);
    double const fp32_mb = static_cast<double>(features.size() * sizeof(float)) * 1e-6;
    double worst = 0;
    for (auto const& e : table.errors()) { worst = std::max(worst, e.relative); }
    std::printf("codec_table: %lld x %lld fp32 features (%.1f MB) as int8 codes in %s: %.1f MB of codes "
                "(%lld bytes a row, fp32: %lld) + %.1f MB of row metadata in HBM; worst column error %.3g "
                "of its largest value\n",
                static_cast<long long>(rows), static_cast<long long>(cols), fp32_mb, gnndirect::to_string(where).data(),
                static_cast<double>(table.host_bytes()) * 1e-6, static_cast<long long>(table.stride_bytes()),
                static_cast<long long>(cols * 4), static_cast<double>(table.device_bytes()) * 1e-6, worst);

    // 3. A decoding gather: codes of the indexed rows cross the link, fp32 rows land in HBM.
    std::vector<std::int64_t> indices(static_cast<std::size_t>(batch));
    for (auto& i : indices) { i = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(rows)); }
    gnndirect::buffer<std::int64_t> d_indices(indices.size(), gnndirect::memory_kind::device);
    GNNDIRECT_CUDA_TRY(cudaMemcpy(d_indices.data(), indices.data(), d_indices.bytes(), cudaMemcpyHostToDevice));
    gnndirect::buffer<float> out(static_cast<std::size_t>(batch * cols), gnndirect::memory_kind::device);
    gnndirect::table_view<float> const dst(out.data(), batch, cols, cols, gnndirect::memory_kind::device);
    gnndirect::gather(cudaStreamLegacy, table.view(), d_indices.data(), batch, dst);  // synchronous form

    // 4. The GPU's decode equals the host's decode of the same codes; the input is within the
    //    codec's error of both.
    std::vector<float> got(out.size()), want(static_cast<std::size_t>(cols));
    GNNDIRECT_CUDA_TRY(cudaMemcpy(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
    std::int64_t mismatches = 0;
    double max_error = 0;
    for (std::int64_t i = 0; i < batch; ++i) {
      std::int64_t const r = indices[static_cast<std::size_t>(i)];
      table.host_decode(r, want.data());
      mismatches += std::memcmp(got.data() + i * cols, want.data(), static_cast<std::size_t>(cols) * sizeof(float)) != 0;
      for (std::int64_t c = 0; c < cols; ++c) {
        max_error = std::max(max_error, std::fabs(double(got[i * cols + c]) - double(features[r * cols + c])));
      }
    }
    std::printf("codec_table: %lld rows gathered and decoded: %s; largest |decoded - input| %.4f\n",
                static_cast<long long>(batch), mismatches == 0 ? "equal to the host decode" : "MISMATCH", max_error);
    return mismatches == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "codec_table: %s\n", e.what());
    return 1;
  }
}
