// GPU tests of the row codecs: decoding gathers (plain, tiered, a user codec) compared bit for
// bit with the host decode of the same encoded bytes, encode->decode error within each codec's
// bound, for every codec x destination type x placement, 0/1/odd row counts, 100/128/602 columns,
// outputs poisoned and guarded; bad encoder input.
#include <doctest/doctest.h>

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/cache/tiered_table.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/device/codecs.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/encoded_table.hpp>
#include <gnndirect/owners/table.hpp>

#include "support/random.hpp"
#include "support/transfer.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using gnndirect::encoded_table;
using gnndirect::memory_kind;
using gnndirect::table_view;
namespace codecs = gnndirect::codecs;

namespace {

constexpr unsigned char poison = 0xCD;
constexpr std::int64_t guard_rows = 3;
constexpr memory_kind all_kinds[] = {memory_kind::device, memory_kind::pinned, memory_kind::registered,
                                     memory_kind::managed_host};

/// Feature-like input: heavy-tailed columns (a normal over the root of a uniform) with column
/// scales spread over e^-3..e^3; row 5 all equal (the affine codecs' scale-0 case); row 6 fp32
/// subnormals of both signs (issue #42: the scale must not flush, and the GPU's decode must keep
/// them as the host's does).
std::vector<float> features(std::mt19937_64& rng, std::int64_t rows, std::int64_t cols)
{
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> uniform(0.05f, 1.0f);
  std::uniform_real_distribution<float> log_scale(-3.0f, 3.0f);
  std::vector<float> scale(static_cast<std::size_t>(cols));
  for (auto& s : scale) { s = std::exp(log_scale(rng)); }
  std::vector<float> x(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      if (r == 6) {
        std::uint32_t const bits = static_cast<std::uint32_t>(1 + rng() % 0x7fffffu) | (rng() % 2 ? 0x80000000u : 0u);
        std::memcpy(&x[r * cols + c], &bits, 4);
        continue;
      }
      x[r * cols + c] = r == 5 ? 3.25f : scale[c] * normal(rng) / std::sqrt(uniform(rng));
    }
  }
  return x;
}

/// The largest encode->decode error the codec may make on value `v` of a row with minimum `lo`,
/// maximum `hi` and largest magnitude `amax` (codecs.hpp's bounds, with slack for float rounding).
template <class Codec>
double error_bound(double v, double lo, double hi, double amax)
{
  double const slack = 1e-6 * amax + 1e-30;
  if constexpr (std::is_same_v<Codec, codecs::fp32>) { return 0.0; }
  if constexpr (std::is_same_v<Codec, codecs::fp16>) { return std::fabs(v) * std::ldexp(1.0, -11) + std::ldexp(1.0, -25); }
  if constexpr (std::is_same_v<Codec, codecs::bf16>) { return std::fabs(v) * std::ldexp(1.0, -8) + 1e-38; }
  if constexpr (std::is_same_v<Codec, codecs::int8_affine>) { return (hi - lo) / 510.0 * 1.001 + slack; }
  if constexpr (std::is_same_v<Codec, codecs::int4_affine>) { return (hi - lo) / 30.0 * 1.001 + slack; }
  if constexpr (std::is_same_v<Codec, codecs::fp8_e4m3>) { return std::fabs(v) / 16.0 * 1.001 + 1e-5 * amax; }
  return 0.0;
}

/// Device output of count + guard rows, poisoned.
template <class D>
struct poisoned {
  gnndirect::buffer<D> storage;
  std::int64_t count, cols;
  poisoned(std::int64_t count_, std::int64_t cols_)
    : storage(static_cast<std::size_t>((count_ + guard_rows) * cols_), memory_kind::device), count(count_), cols(cols_)
  {
    gnndirect::test::fill_bytes(storage.data(), poison, storage.bytes());
  }
  table_view<D> view() const { return {storage.data(), count, cols, cols, memory_kind::device}; }
  std::vector<unsigned char> read() const
  {
    std::vector<unsigned char> out(storage.bytes());
    GNNDIRECT_CUDA_TRY(cudaMemcpy(out.data(), storage.data(), out.size(), cudaMemcpyDeviceToHost));
    return out;
  }
};

/// Checks `got` (count rows then poisoned guard rows) against the host decode of `ref`'s rows.
template <class Codec, class D>
void expect_decoded(const std::vector<unsigned char>& got, const encoded_table<Codec>& ref,
                    const std::vector<std::int64_t>& indices, std::int64_t cols)
{
  std::vector<D> expected(static_cast<std::size_t>(cols));
  std::size_t const row_bytes = static_cast<std::size_t>(cols) * sizeof(D);
  for (std::size_t i = 0; i < indices.size(); ++i) {
    ref.host_decode(indices[i], expected.data());
    if (std::memcmp(got.data() + i * row_bytes, expected.data(), row_bytes) != 0) {
      CAPTURE(i);
      CAPTURE(indices[i]);
      FAIL("decoded row differs from the host decode of the same encoded bytes");
    }
  }
  for (std::size_t b = indices.size() * row_bytes; b < got.size(); ++b) {
    if (got[b] != poison) { FAIL("write past the output's end at byte " << b); }
  }
}

/// Every placement, row count and destination of one codec at one width.
template <class Codec, class D>
void check_codec(std::mt19937_64& rng, std::int64_t cols)
{
  std::int64_t const rows = 1000;
  std::vector<float> const x = features(rng, rows, cols);
  encoded_table<Codec> const ref(x.data(), rows, cols, memory_kind::pinned);
  CHECK(ref.stride_bytes() % 64 == 0);
  CHECK((ref.stride_bytes() == 64 || ref.stride_bytes() % 128 == 0));
  // encode -> decode error within the codec's bound, and the report equals what we measure.
  std::vector<float> decoded(static_cast<std::size_t>(cols));
  std::vector<double> column_max(static_cast<std::size_t>(cols), 0.0);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * cols;
    auto const [lo, hi] = std::minmax_element(row, row + cols);
    double amax = 0;
    for (std::int64_t c = 0; c < cols; ++c) { amax = std::max(amax, std::fabs(double(row[c]))); }
    ref.host_decode(r, decoded.data());
    for (std::int64_t c = 0; c < cols; ++c) {
      double const e = std::fabs(double(decoded[c]) - row[c]);
      column_max[c] = std::max(column_max[c], e);
      if (e > error_bound<Codec>(row[c], *lo, *hi, amax)) {
        CAPTURE(r);
        CAPTURE(c);
        CAPTURE(row[c]);
        CAPTURE(decoded[c]);
        FAIL("encode -> decode error beyond the codec's bound");
      }
    }
    if (r == 5 && !std::is_same_v<Codec, codecs::fp8_e4m3>) {
      for (std::int64_t c = 0; c < cols; ++c) { REQUIRE(decoded[c] == 3.25f); }  // scale 0 decodes exactly
    }
  }
  for (std::int64_t c = 0; c < cols; ++c) { CHECK(ref.errors()[c].max_abs == doctest::Approx(column_max[c])); }

  for (memory_kind kind : all_kinds) {
    encoded_table<Codec> const table(x.data(), rows, cols, kind);
    std::string const placement(gnndirect::to_string(kind));
    CAPTURE(placement);
    for (std::int64_t count : {std::int64_t{0}, std::int64_t{1}, std::int64_t{777}}) {
      CAPTURE(count);
      std::vector<std::int64_t> const indices = gnndirect::test::random_indices<std::int64_t>(rng, count, rows);
      auto const d_indices = gnndirect::test::to_buffer(indices);
      poisoned<D> out(count, cols);
      gnndirect::gather(cudaStreamLegacy, table.view(), d_indices.data(), count, out.view());
      expect_decoded<Codec, D>(out.read(), ref, indices, cols);
    }
  }
}

template <class Codec>
void check_codec_all_destinations(std::mt19937_64& rng)
{
  for (std::int64_t cols : {100, 128, 602}) {
    CAPTURE(cols);
    check_codec<Codec, float>(rng, cols);
    check_codec<Codec, __half>(rng, cols);
    check_codec<Codec, __nv_bfloat16>(rng, cols);
  }
}

}  // namespace

TEST_CASE_TEMPLATE("codecs: decoding gather equals the host decode, every codec x destination x placement", Codec,
                   codecs::fp32, codecs::fp16, codecs::bf16, codecs::int8_affine, codecs::fp8_e4m3,
                   codecs::int4_affine)
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  check_codec_all_destinations<Codec>(rng);
}

TEST_CASE("codecs: encoded_view_of converts plain tables (fp32 -> fp16/bf16, fp16 -> fp32)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (std::int64_t cols : {100, 602}) {
    std::int64_t const rows = 300;
    std::vector<float> const x = features(rng, rows, cols);
    auto const host = gnndirect::test::to_buffer(x, memory_kind::pinned);
    table_view<const float> const plain(host.data(), rows, cols, cols, memory_kind::pinned);
    std::vector<std::int64_t> const indices = gnndirect::test::random_indices<std::int64_t>(rng, 333, rows);
    auto const d_indices = gnndirect::test::to_buffer(indices);
    poisoned<__half> half_out(333, cols);
    gnndirect::gather(cudaStreamLegacy, gnndirect::encoded_view_of<codecs::fp32>(plain), d_indices.data(), 333,
                      half_out.view());
    auto const got = half_out.read();
    for (std::size_t i = 0; i < indices.size(); ++i) {
      for (std::int64_t c = 0; c < cols; ++c) {
        std::uint16_t bits;
        std::memcpy(&bits, got.data() + (i * cols + c) * 2, 2);
        REQUIRE(bits == gnndirect::numeric::float_to_half(x[indices[i] * cols + c]));
      }
    }
    // fp16 table -> fp32 rows: exact.
    std::vector<__half> halves(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) { halves[i] = gnndirect::numeric::from_float<__half>(x[i]); }
    auto const host_half = gnndirect::test::to_buffer(halves, memory_kind::managed_host);
    table_view<const __half> const half_table(host_half.data(), rows, cols, cols, memory_kind::managed_host);
    poisoned<float> float_out(333, cols);
    gnndirect::gather(cudaStreamLegacy, gnndirect::encoded_view_of<codecs::fp16>(half_table), d_indices.data(), 333,
                      float_out.view());
    auto const floats = float_out.read();
    for (std::size_t i = 0; i < indices.size(); ++i) {
      for (std::int64_t c = 0; c < cols; ++c) {
        float v;
        std::memcpy(&v, floats.data() + (i * cols + c) * 4, 4);
        REQUIRE(v == gnndirect::numeric::to_float(halves[indices[i] * cols + c]));
      }
    }
  }
}

/// Issue #42 item 2: gathers `cols` of `stride` columns of element type S (the last ones, so the
/// slice's last row ends where the table ends) through encoded_view_of<Codec> into D rows, from
/// memory registered in place whose next page is unmapped: a load past the slice's last byte
/// faults (before: load_bytes() rounded the payload up to 16 bytes, cudaErrorIllegalAddress at the
/// last row). Compared with the host conversion of the same elements, guard rows poisoned.
template <class Codec, class S, class D>
void check_slice_ending_at_unmapped_page(std::mt19937_64& rng, std::int64_t cols, std::int64_t stride)
{
  CAPTURE(cols);
  CAPTURE(stride);
  CAPTURE(sizeof(S));
  CAPTURE(sizeof(D));
  auto const page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::int64_t const rows = 1000;
  std::size_t const table_bytes = static_cast<std::size_t>(rows * stride) * sizeof(S);
  std::size_t const pages = (table_bytes + page - 1) / page;
  void* const mapping = mmap(nullptr, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mapping != MAP_FAILED);
  REQUIRE(munmap(static_cast<char*>(mapping) + pages * page, page) == 0);  // nothing after the end
  auto* const table_start = reinterpret_cast<S*>(static_cast<char*>(mapping) + pages * page - table_bytes);
  std::normal_distribution<float> normal(0.0f, 4.0f);
  for (std::int64_t i = 0; i < rows * stride; ++i) { table_start[i] = gnndirect::numeric::from_float<S>(normal(rng)); }
  const S* const slice = table_start + (stride - cols);  // columns stride - cols .. stride - 1
  std::vector<std::int64_t> indices = gnndirect::test::random_indices<std::int64_t>(rng, 257, rows);
  indices[0] = rows - 1;  // the row whose loads used to run past the end
  indices.back() = rows - 1;
  auto const d_indices = gnndirect::test::to_buffer(indices);
  auto const count = static_cast<std::int64_t>(indices.size());
  poisoned<D> out(count, cols);
  {
    auto const t = gnndirect::table<S>::adopt_by_registration(const_cast<S*>(slice), rows, cols, stride);
    auto const view = gnndirect::encoded_view_of<Codec>(table_view<const S>(t.view()));
    CHECK(view.load_bytes() == view.payload_bytes());  // a slice cannot vouch for its padding
    gnndirect::gather(cudaStreamLegacy, view, d_indices.data(), count, out.view());
  }
  CHECK(cudaGetLastError() == cudaSuccess);
  auto const got = out.read();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    for (std::int64_t c = 0; c < cols; ++c) {
      D const expected = gnndirect::numeric::from_float<D>(
        gnndirect::numeric::to_float(slice[static_cast<std::size_t>(indices[i] * stride + c)]));
      wrong += std::memcmp(got.data() + (i * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)) * sizeof(D),
                           &expected, sizeof(D)) != 0;
    }
  }
  CHECK(wrong == 0);
  for (std::size_t b = indices.size() * static_cast<std::size_t>(cols) * sizeof(D); b < got.size(); ++b) {
    if (got[b] != poison) { FAIL("write past the output's end at byte " << b); }
  }
  REQUIRE(munmap(mapping, pages * page) == 0);
}

TEST_CASE("codecs: decoding gathers from registered column slices never read past the slice")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  // The issue's three slices: fp16 50 of 64 columns, fp32 3 of 4, bf16 7 of 8; each decoded to
  // float and to its own type (a byte copy), fp32 also to fp16.
  check_slice_ending_at_unmapped_page<codecs::fp16, __half, float>(rng, 50, 64);
  check_slice_ending_at_unmapped_page<codecs::fp16, __half, __half>(rng, 50, 64);
  check_slice_ending_at_unmapped_page<codecs::fp32, float, __half>(rng, 3, 4);
  check_slice_ending_at_unmapped_page<codecs::fp32, float, float>(rng, 3, 4);
  check_slice_ending_at_unmapped_page<codecs::bf16, __nv_bfloat16, float>(rng, 7, 8);
  check_slice_ending_at_unmapped_page<codecs::bf16, __nv_bfloat16, __nv_bfloat16>(rng, 7, 8);
  // Wider rows: 600 of 602 fp32 columns (a 16-byte multiple) and 601 of 602.
  check_slice_ending_at_unmapped_page<codecs::fp32, float, __half>(rng, 600, 602);
  check_slice_ending_at_unmapped_page<codecs::fp16, __half, float>(rng, 601, 602);
}

TEST_CASE("codecs: an encoded table's view loads whole 16-byte vectors of its padding")
{
  // The common path keeps its 16-byte loads: the owner says every row owns its stride.
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<float> const x = features(rng, 10, 100);
  encoded_table<codecs::int8_affine> const t(x.data(), 10, 100, memory_kind::pinned);
  CHECK(t.view().readable_bytes == t.stride_bytes());
  CHECK(t.view().load_bytes() == 112);
}

TEST_CASE("codecs: tiered gather of encoded rows (int8, 4-bit) equals the host decode")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::int64_t const rows = 2000;
  for (std::int64_t cols : {100, 602}) {
    std::vector<float> const x = features(rng, rows, cols);
    encoded_table<codecs::int8_affine> const table(x.data(), rows, cols, memory_kind::managed_host);
    std::int64_t const fp32_rows = 300;
    gnndirect::tiered_table<std::uint8_t> tier(table.bytes_view(), fp32_rows * cols * sizeof(float));
    // The same budget holds ~4x the rows of an fp32 tier (100 int8 -> 128 B, 602 -> 640 B).
    CHECK(tier.capacity() >= fp32_rows * 3);
    std::vector<std::int64_t> hot = gnndirect::test::random_indices<std::int64_t>(rng, tier.capacity(), rows);
    auto const d_hot = gnndirect::test::to_buffer(hot);
    tier.rebuild(cudaStreamLegacy, d_hot.data(), tier.capacity());
    for (std::int64_t count : {std::int64_t{0}, std::int64_t{1}, std::int64_t{4097}}) {
      std::vector<std::int64_t> const indices = gnndirect::test::random_indices<std::int64_t>(rng, count, rows);
      auto const d_indices = gnndirect::test::to_buffer(indices);
      poisoned<float> out(count, cols);
      gnndirect::gather(cudaStreamLegacy, table.view(), tier.view(), d_indices.data(), count, out.view());
      expect_decoded<codecs::int8_affine, float>(out.read(), table, indices, cols);
      poisoned<__nv_bfloat16> out16(count, cols);
      gnndirect::gather(cudaStreamLegacy, table.view(), tier.view(), d_indices.data(), count, out16.view());
      expect_decoded<codecs::int8_affine, __nv_bfloat16>(out16.read(), table, indices, cols);
    }
  }
}

namespace {

/// A user codec: each 8-bit code names a 2-value sub-row of a 256-entry codebook in constant
/// memory (product quantisation), no per-row metadata.
__constant__ float device_book[512];
float host_book[512];

struct codebook_codec {
  using meta_type = gnndirect::no_row_meta;
  static constexpr int code_bits = 8;
  static constexpr int values_per_code = 2;
  template <class D>
  static constexpr bool decodes_to = std::is_same_v<D, float>;

  template <class D>
  __host__ __device__ void decode(std::uint32_t code, const meta_type&, std::int64_t, D* out) const
  {
#if defined(__CUDA_ARCH__)
    out[0] = device_book[2 * code];
    out[1] = device_book[2 * code + 1];
#else
    out[0] = host_book[2 * code];
    out[1] = host_book[2 * code + 1];
#endif
  }
};
static_assert(gnndirect::is_row_codec_v<codebook_codec>);

}  // namespace

TEST_CASE("codecs: a user codec (codebook in constant memory) through the decoding gather")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  for (float& v : host_book) { v = normal(rng); }
  GNNDIRECT_CUDA_TRY(cudaMemcpyToSymbol(device_book, host_book, sizeof host_book));
  for (std::int64_t cols : {100, 128, 602, 7}) {
    CAPTURE(cols);
    std::int64_t const rows = 500;
    std::int64_t const codes = (cols + 1) / 2;
    std::int64_t const stride = gnndirect::encoded_row_stride(codes);
    std::vector<std::uint8_t> bytes = gnndirect::test::random_bytes(rng, static_cast<std::size_t>(rows * stride));
    for (memory_kind kind : {memory_kind::device, memory_kind::pinned}) {
      auto const stored = gnndirect::test::to_buffer(bytes, kind);
      gnndirect::encoded_view<codebook_codec> const view{stored.data(), rows, cols, stride, kind, nullptr, {}, stride};
      std::vector<std::int64_t> const indices = gnndirect::test::random_indices<std::int64_t>(rng, 301, rows);
      auto const d_indices = gnndirect::test::to_buffer(indices);
      poisoned<float> out(301, cols);
      gnndirect::gather(cudaStreamLegacy, view, d_indices.data(), 301, out.view());
      auto const got = out.read();
      std::vector<float> expected(static_cast<std::size_t>(cols));
      for (std::size_t i = 0; i < indices.size(); ++i) {
        gnndirect::host_decode_row<float>(codebook_codec{}, bytes.data() + indices[i] * stride,
                                          gnndirect::no_row_meta{}, cols, expected.data());
        REQUIRE(std::memcmp(got.data() + i * cols * 4, expected.data(), cols * 4) == 0);
      }
      for (std::size_t b = indices.size() * cols * 4; b < got.size(); ++b) { REQUIRE(got[b] == poison); }
    }
  }
}

TEST_CASE("codecs: bad encoder input gets a clear error; empty tables; bad indices")
{
  std::vector<float> x(20 * 9, 1.5f);
  x[3 * 9 + 7] = std::nanf("");
  try {
    encoded_table<codecs::int8_affine> const t(x.data(), 20, 9, memory_kind::pinned);
    FAIL("NaN accepted");
  } catch (const gnndirect::invalid_argument& e) {
    CHECK(std::string(e.what()).find("row 3 column 7") != std::string::npos);
  }
  x[3 * 9 + 7] = INFINITY;
  CHECK_THROWS_AS(encoded_table<codecs::fp8_e4m3>(x.data(), 20, 9, memory_kind::device), gnndirect::invalid_argument);
  x[3 * 9 + 7] = 70000.0f;  // beyond fp16
  try {
    encoded_table<codecs::fp16> const t(x.data(), 20, 9, memory_kind::pinned);
    FAIL("fp16 overflow accepted");
  } catch (const gnndirect::invalid_argument& e) {
    CHECK(std::string(e.what()).find("row 3 column 7") != std::string::npos);
  }
  encoded_table<codecs::bf16> const fine(x.data(), 20, 9, memory_kind::pinned);  // bf16 holds it
  CHECK(fine.errors()[7].relative < 1.0 / 128);

  encoded_table<codecs::int4_affine> const empty(x.data(), 0, 9, memory_kind::managed_host);
  CHECK(empty.rows() == 0);
  poisoned<float> out(0, 9);
  gnndirect::gather(cudaStreamLegacy, empty.view(), static_cast<const std::int64_t*>(nullptr), 0, out.view());

  // All-zero rows with fp8 (scale 0) decode to zeros.
  std::vector<float> zeros(4 * 33, 0.0f);
  encoded_table<codecs::fp8_e4m3> const z(zeros.data(), 4, 33, memory_kind::pinned);
  std::vector<float> row(33, 1.0f);
  z.host_decode(2, row.data());
  for (float v : row) { CHECK(v == 0.0f); }

  // A bad index: index_out_of_range, the row zero-filled, nothing else written.
  encoded_table<codecs::int8_affine> const t(zeros.data(), 4, 33, memory_kind::pinned);
  std::vector<std::int64_t> const indices{0, 4, 1};
  auto const d_indices = gnndirect::test::to_buffer(indices);
  poisoned<float> bad(3, 33);
  CHECK_THROWS_AS(gnndirect::gather(cudaStreamLegacy, t.view(), d_indices.data(), 3, bad.view()),
                  gnndirect::index_out_of_range);
  auto const got = bad.read();
  for (std::size_t b = 3 * 33 * 4; b < got.size(); ++b) { REQUIRE(got[b] == poison); }
}

TEST_CASE("codecs: gather_async with int32 indices and a device-side count decodes only the first *count rows")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::int64_t const rows = 4000, cols = 128, bound = 5000, live = 3001;
  std::vector<float> const x = features(rng, rows, cols);
  encoded_table<codecs::fp8_e4m3> const table(x.data(), rows, cols, memory_kind::managed_host);
  std::vector<std::int32_t> indices = gnndirect::test::random_indices<std::int32_t>(rng, bound, rows);
  auto const d_indices = gnndirect::test::to_buffer(indices);
  auto const d_count = gnndirect::test::to_buffer(std::vector<std::int64_t>{live});
  gnndirect::gather_policy const policy{};
  gnndirect::buffer<std::byte> ws(
    gnndirect::gather_workspace_bytes<std::int32_t>(bound, rows, table.kind(), static_cast<std::size_t>(table.view().load_bytes()), policy),
    memory_kind::device);
  poisoned<__half> out(bound, cols);
  gnndirect::gather_async(cudaStreamLegacy, table.view(), d_indices.data(), bound, out.view(), {ws.data(), ws.bytes()},
                          policy, d_count.data());
  gnndirect::gather_check(cudaStreamLegacy, {ws.data(), ws.bytes()}, rows);
  auto const got = out.read();
  std::vector<__half> expected(static_cast<std::size_t>(cols));
  std::size_t const row_bytes = cols * sizeof(__half);
  for (std::int64_t i = 0; i < live; ++i) {
    table.host_decode(indices[static_cast<std::size_t>(i)], expected.data());
    REQUIRE(std::memcmp(got.data() + i * row_bytes, expected.data(), row_bytes) == 0);
  }
  for (std::size_t b = static_cast<std::size_t>(live) * row_bytes; b < got.size(); ++b) { REQUIRE(got[b] == poison); }
}

TEST_CASE("codecs: encoding fp16 or bf16 input equals encoding the same values as fp32")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::int64_t const rows = 257, cols = 100;
  std::vector<float> const x = features(rng, rows, cols);
  std::vector<__half> halves(x.size());
  std::vector<__nv_bfloat16> bf(x.size());
  std::vector<float> from_half(x.size()), from_bf(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    halves[i] = gnndirect::numeric::from_float<__half>(x[i]);
    bf[i] = gnndirect::numeric::from_float<__nv_bfloat16>(x[i]);
    from_half[i] = gnndirect::numeric::to_float(halves[i]);
    from_bf[i] = gnndirect::numeric::to_float(bf[i]);
  }
  encoded_table<codecs::int8_affine> const a(halves.data(), rows, cols, memory_kind::pinned);
  encoded_table<codecs::int8_affine> const b(from_half.data(), rows, cols, memory_kind::pinned);
  encoded_table<codecs::int4_affine> const c(bf.data(), rows, cols, memory_kind::registered);
  encoded_table<codecs::int4_affine> const d(from_bf.data(), rows, cols, memory_kind::registered);
  std::vector<float> ra(cols), rb(cols), rc(cols), rd(cols);
  for (std::int64_t r = 0; r < rows; ++r) {
    a.host_decode(r, ra.data());
    b.host_decode(r, rb.data());
    c.host_decode(r, rc.data());
    d.host_decode(r, rd.data());
    REQUIRE(std::memcmp(ra.data(), rb.data(), cols * 4) == 0);
    REQUIRE(std::memcmp(rc.data(), rd.data(), cols * 4) == 0);
  }
}

#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/pipeline/minibatch_pipeline.cuh>

#include <numeric>

TEST_CASE("codecs: the minibatch pipeline gathers int8 features (with and without an encoded tier)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  auto const host_graph = gnndirect::host::generate_csr<std::int64_t, std::int32_t>(
    gnndirect::preset_options(gnndirect::graph_preset::small, 0.05, seed));
  auto const graph = gnndirect::csr_graph<std::int64_t, std::int32_t>::adopt(
    host_graph.view(), gnndirect::csr_placement::all(memory_kind::device));
  std::int64_t const n = host_graph.num_nodes, dim = 100;
  std::vector<float> const x = features(rng, n, dim);
  encoded_table<codecs::int8_affine> const table(x.data(), n, dim, memory_kind::managed_host);
  gnndirect::buffer<std::int64_t> labels(static_cast<std::size_t>(n), memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemset(labels.data(), 0, labels.bytes()));
  std::vector<std::int32_t> ids(static_cast<std::size_t>(std::min<std::int64_t>(n, 2000)));
  std::iota(ids.begin(), ids.end(), 0);
  for (std::size_t cache_bytes : {std::size_t{0}, static_cast<std::size_t>(n / 4) * dim * sizeof(float)}) {
    CAPTURE(cache_bytes);
    gnndirect::pipeline_options options;
    options.fanouts = {10, 5};
    options.batch_size = 256;
    options.seed = seed;
    options.cache_bytes = cache_bytes;
    gnndirect::minibatch_pipeline<std::int64_t, std::int32_t, float, std::int64_t, gnndirect::uniform_sampler,
                                  codecs::int8_affine>
      pipeline(graph.view(), table.view(), labels.data(), ids, options);
    if (cache_bytes > 0) { CHECK(pipeline.feature_cache()->capacity() >= n / 4 * 3); }  // 4x the rows of fp32
    pipeline.start_epoch(0);
    std::vector<float> expected(static_cast<std::size_t>(dim));
    int batches = 0;
    while (auto* batch = pipeline.next(cudaStreamLegacy)) {
      auto const& inputs = batch->blocks.input_nodes();
      std::vector<std::int32_t> const nodes = gnndirect::test::to_host(inputs.data(), inputs.count);
      std::vector<float> const got = gnndirect::test::to_host(batch->features.data, inputs.count * dim);
      REQUIRE(batch->num_input_nodes == inputs.count);
      for (std::int64_t i = 0; i < inputs.count; ++i) {
        table.host_decode(nodes[static_cast<std::size_t>(i)], expected.data());
        REQUIRE(std::memcmp(got.data() + i * dim, expected.data(), dim * sizeof(float)) == 0);
      }
      pipeline.release(batch, cudaStreamLegacy);
      ++batches;
    }
    CHECK(batches == (static_cast<int>(ids.size()) + 255) / 256);
  }
}
