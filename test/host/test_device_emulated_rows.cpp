// Host tests that run the library's device row primitives (copy_rows / copy_row, decode_rows /
// decode_row) on an emulated tile (test/support/emulated_tile.hpp): copies against memcpy, decodes
// against host_decode_row bit for bit and against the encoder's error bound, every byte outside
// the destination rows untouched. No GPU needed; test_gpu_gather and test_gpu_codecs check the
// same code on the device.
#include <doctest/doctest.h>

#include <gnndirect/device/codecs.hpp>
#include <gnndirect/device/copy_row.cuh>
#include <gnndirect/device/decode_row.cuh>

#include "support/emulated_tile.hpp"
#include "support/random.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <type_traits>
#include <vector>

namespace {

using gnndirect::test::emulated_tile;
using gnndirect::test::run_tile;

/// A 128-byte aligned byte buffer filled with random bytes (the poison of destinations).
struct aligned_bytes {
  struct free_deleter {
    void operator()(void* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<std::byte, free_deleter> data;
  std::size_t size;

  aligned_bytes(std::mt19937_64& rng, std::size_t bytes)
    : data(static_cast<std::byte*>(std::aligned_alloc(128, (bytes + 127) / 128 * 128))), size(bytes)
  {
    REQUIRE(data != nullptr);
    auto const fill = gnndirect::test::random_bytes(rng, bytes);
    std::memcpy(data.get(), fill.data(), bytes);
  }
  std::byte* get() const noexcept { return data.get(); }
};

/// Where one row lies in a buffer: a random offset that is a multiple of `align` but, where the
/// alignment allows it, not of 128 (odd heads), after the previous row plus a gap of guard bytes.
std::size_t place_row(std::mt19937_64& rng, std::size_t& cursor, std::size_t row_bytes, std::size_t align)
{
  std::size_t at = (cursor + 16 + 127) / 128 * 128;              // a fresh line after >= 16 guard bytes
  at += (rng() % (128 / align)) * align;                          // then any aligned head within it
  cursor = at + row_bytes;
  return at;
}

enum class remote_side { source, destination, none };

/// Copies `rows` rows of `row_bytes` (V divides it) with copy_rows<V, Rows> (or copy_row when
/// `single`) on a tile of `lanes`: one inactive row (dst null), one zero-filled row (src null).
template <int V, int Rows, bool Align128>
void check_copy(std::mt19937_64& rng, std::size_t row_bytes, int lanes, remote_side remote, bool single)
{
  CAPTURE(V);
  CAPTURE(Rows);
  CAPTURE(Align128);
  CAPTURE(row_bytes);
  CAPTURE(lanes);
  CAPTURE(static_cast<int>(remote));
  CAPTURE(single);
  int const count = 11;
  std::vector<std::size_t> src_at(count);
  std::vector<std::size_t> dst_at(count);
  std::size_t src_end = 0;
  std::size_t dst_end = 0;
  for (int i = 0; i < count; ++i) {
    src_at[static_cast<std::size_t>(i)] = place_row(rng, src_end, row_bytes, V);
    dst_at[static_cast<std::size_t>(i)] = place_row(rng, dst_end, row_bytes, V);
  }
  aligned_bytes const src(rng, src_end + 64);
  aligned_bytes const dst(rng, dst_end + 64);
  std::vector<std::byte> expected(dst.get(), dst.get() + dst.size);
  int const inactive = static_cast<int>(rng() % count);
  int const zeroed = (inactive + 1 + static_cast<int>(rng() % (count - 1))) % count;
  std::vector<gnndirect::row_copy> rows(count);
  for (int i = 0; i < count; ++i) {
    auto const k = static_cast<std::size_t>(i);
    const std::byte* const from = i == zeroed ? nullptr : src.get() + src_at[k];
    std::byte* const to = i == inactive ? nullptr : dst.get() + dst_at[k];
    const void* const far = remote == remote_side::source ? static_cast<const void*>(src.get() + src_at[k])
                            : remote == remote_side::destination ? static_cast<const void*>(to)
                                                                 : nullptr;
    rows[k] = gnndirect::row_copy{from, to, gnndirect::line_head<Align128>(far, row_bytes)};
    if (to == nullptr) { continue; }
    if (from == nullptr) {
      std::memset(expected.data() + dst_at[k], 0, row_bytes);
    } else {
      std::memcpy(expected.data() + dst_at[k], from, row_bytes);
    }
  }
  run_tile(lanes, [&](const emulated_tile& tile) {
    if (single) {
      for (int i = 0; i < count; ++i) {
        auto const k = static_cast<std::size_t>(i);
        if (rows[k].dst == nullptr) { continue; }
        const void* const far = remote == remote_side::source ? static_cast<const void*>(src.get() + src_at[k])
                                : remote == remote_side::destination ? static_cast<const void*>(rows[k].dst)
                                                                     : nullptr;
        gnndirect::copy_row<V, Align128>(tile, rows[k].src, rows[k].dst, row_bytes, far);
      }
    } else {
      for (int first = 0; first < count; first += Rows) {
        gnndirect::row_copy group[Rows];
        for (int r = 0; r < Rows; ++r) {
          if (first + r < count) { group[r] = rows[static_cast<std::size_t>(first + r)]; }
        }
        gnndirect::copy_rows<V, Rows>(tile, group, row_bytes);
      }
    }
  });
  CHECK(std::memcmp(dst.get(), expected.data(), dst.size) == 0);
  if (std::memcmp(dst.get(), expected.data(), dst.size) != 0) {
    for (std::size_t b = 0; b < dst.size; ++b) {
      if (dst.get()[b] != expected[b]) {
        CAPTURE(b);
        FAIL_CHECK("first differing destination byte");
        break;
      }
    }
  }
}

template <int V>
void check_copies(std::mt19937_64& rng)
{
  std::vector<std::size_t> sizes = {static_cast<std::size_t>(V), 16, 120, 128, 136, 400, 2408};
  for (int k = 0; k < 3; ++k) { sizes.push_back((1 + rng() % (2408 / V)) * V); }
  for (std::size_t row_bytes : sizes) {
    if (row_bytes % V != 0) { continue; }
    for (int lanes : {1, 2, 8, 32}) {
      auto const remote = static_cast<remote_side>(rng() % 3);
      check_copy<V, 1, true>(rng, row_bytes, lanes, remote, false);
      check_copy<V, 2, true>(rng, row_bytes, lanes, remote, false);
      check_copy<V, 4, true>(rng, row_bytes, lanes, remote, false);
      check_copy<V, 4, false>(rng, row_bytes, lanes, remote, false);
      check_copy<V, 1, true>(rng, row_bytes, lanes, remote, true);
      check_copy<V, 1, false>(rng, row_bytes, lanes, remote, true);
    }
  }
}

TEST_CASE("copy_rows / copy_row on an emulated tile equal memcpy; bytes outside the rows untouched")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  check_copies<16>(rng);
  check_copies<8>(rng);
  check_copies<4>(rng);
}

// ---------------------------------------------------------------------------------------------
// Decoding copies.

namespace codecs = gnndirect::codecs;
namespace numeric = gnndirect::numeric;

template <class C>
inline constexpr bool is_identity_v = false;
template <class T>
inline constexpr bool is_identity_v<codecs::identity<T>> = true;

/// A random row of `cols` finite values for codec C: magnitudes spread over several decades, with
/// the odd constant row (affine codecs' scale 0) and zeros.
template <class C>
std::vector<float> random_row(std::mt19937_64& rng, std::int64_t cols, int kind)
{
  std::vector<float> x(static_cast<std::size_t>(cols));
  float const magnitude = std::ldexp(1.0f, static_cast<int>(rng() % 20) - 10);  // 2^-10 .. 2^9
  std::uniform_real_distribution<float> value(-magnitude, magnitude);
  for (auto& v : x) { v = value(rng); }
  if (kind == 1) { std::fill(x.begin(), x.end(), value(rng)); }  // constant row
  if (kind == 2 && cols > 2) { x[1] = 0.0f; }
  return x;
}

/// The encoder's documented error bound for value x of the row (codecs.hpp), plus float slack.
template <class C>
double error_bound(double x, double lo, double hi, double amax)
{
  double const slack = 1e-6 * std::max(std::fabs(lo), std::fabs(hi)) + 1e-30;
  if constexpr (std::is_same_v<C, codecs::fp16>) {
    return std::fabs(x) * std::ldexp(1.0, -11) + std::ldexp(1.0, -25) + slack;  // incl. subnormal step
  } else if constexpr (std::is_same_v<C, codecs::bf16>) {
    return std::fabs(x) * std::ldexp(1.0, -8) + slack;
  } else if constexpr (std::is_same_v<C, codecs::int8_affine>) {
    return (hi - lo) / 510 * 1.0001 + slack;
  } else if constexpr (std::is_same_v<C, codecs::int4_affine>) {
    return (hi - lo) / 30 * 1.0001 + slack;
  } else if constexpr (std::is_same_v<C, codecs::fp8_e4m3>) {
    return std::fabs(x) / 16 + amax * std::ldexp(1.0, -18) + slack;
  } else {
    return 0.0;  // fp32, identity: exact
  }
}

/// Decodes `count` random rows of `cols` values with decode_rows<V, W, Rows, D> (or decode_row
/// when `single`) on a tile of `lanes`, and compares every destination byte with host_decode_row
/// (zeros for the null-source row, untouched poison elsewhere: guards, the inactive row).
template <class C, class D, int V, int W, int Rows, bool Align128, class Stored>
void check_decode(std::mt19937_64& rng, std::int64_t cols, int lanes, bool single)
{
  CAPTURE(V);
  CAPTURE(W);
  CAPTURE(Rows);
  CAPTURE(Align128);
  CAPTURE(cols);
  CAPTURE(lanes);
  CAPTURE(single);
  using meta_type = typename C::meta_type;
  C const codec{};
  int const count = 9;
  auto const payload = static_cast<std::size_t>(gnndirect::encoded_payload_bytes<C>(cols));
  std::size_t const dst_bytes = static_cast<std::size_t>(cols) * sizeof(D);
  // Byte copies copy dst_bytes with V-byte vectors: V must divide it (the gather's rule).
  if (gnndirect::codec_copies_bytes_v<C, D> && dst_bytes % V != 0) { return; }
  std::size_t const src_bytes = (payload + V - 1) / V * V;  // loads whole vectors: padding codes
  std::vector<std::vector<float>> x(count);
  std::vector<std::size_t> src_at(count);
  std::vector<std::size_t> dst_at(count);
  std::size_t src_end = 0;
  std::size_t dst_end = 0;
  for (int i = 0; i < count; ++i) {
    src_at[static_cast<std::size_t>(i)] = place_row(rng, src_end, src_bytes, V);
    dst_at[static_cast<std::size_t>(i)] = place_row(rng, dst_end, dst_bytes, W);
  }
  aligned_bytes const src(rng, src_end + 64);  // random padding codes after each payload
  aligned_bytes const dst(rng, dst_end + 64);
  std::vector<std::byte> expected(dst.get(), dst.get() + dst.size);
  std::vector<meta_type> metas(count);
  int const inactive = static_cast<int>(rng() % count);
  int const zeroed = (inactive + 1 + static_cast<int>(rng() % (count - 1))) % count;
  for (int i = 0; i < count; ++i) {
    auto const k = static_cast<std::size_t>(i);
    x[k] = random_row<C>(rng, cols, static_cast<int>(rng() % 4));
    auto* const codes = reinterpret_cast<std::uint8_t*>(src.get() + src_at[k]);
    if constexpr (is_identity_v<C>) {
      for (std::int64_t c = 0; c < cols; ++c) {
        Stored const v = numeric::from_float<Stored>(x[k][static_cast<std::size_t>(c)]);
        std::memcpy(codes + c * static_cast<std::int64_t>(sizeof(Stored)), &v, sizeof(Stored));
      }
    } else {
      REQUIRE(C::encode_row(x[k].data(), cols, codes, metas[k]) == -1);
    }
    if (i == inactive) { continue; }
    std::vector<D> decoded(static_cast<std::size_t>(cols));
    if (i != zeroed) {
      gnndirect::host_decode_row<D>(codec, codes, metas[k], cols, decoded.data());
    } else {
      std::fill(decoded.begin(), decoded.end(), numeric::from_float<D>(0.0f));
    }
    std::memcpy(expected.data() + dst_at[k], decoded.data(), dst_bytes);
  }
  auto row_of = [&](int i) {
    auto const k = static_cast<std::size_t>(i);
    const auto* const codes = reinterpret_cast<const std::uint8_t*>(src.get() + src_at[k]);
    return gnndirect::encoded_copy<meta_type>{i == zeroed ? nullptr : codes,
                                              i == inactive ? nullptr : dst.get() + dst_at[k],
                                              gnndirect::line_head<Align128>(codes, src_bytes), metas[k]};
  };
  run_tile(lanes, [&](const emulated_tile& tile) {
    if (single) {
      for (int i = 0; i < count; ++i) {
        auto const row = row_of(i);
        if (row.dst == nullptr) { continue; }
        gnndirect::decode_row<V, W, D, Align128>(tile, codec, row.src, row.meta, reinterpret_cast<D*>(row.dst),
                                                 src_bytes, dst_bytes, i % 2 == 0 ? row.src : nullptr);
      }
    } else {
      for (int first = 0; first < count; first += Rows) {
        gnndirect::encoded_copy<meta_type> group[Rows];
        for (int r = 0; r < Rows; ++r) {
          if (first + r < count) { group[r] = row_of(first + r); }
        }
        gnndirect::decode_rows<V, W, Rows, D>(tile, codec, group, src_bytes, dst_bytes);
      }
    }
  });
  bool const same = std::memcmp(dst.get(), expected.data(), dst.size) == 0;
  CHECK(same);
  if (!same) {
    for (std::size_t b = 0; b < dst.size; ++b) {
      if (dst.get()[b] != expected[b]) {
        CAPTURE(b);
        FAIL_CHECK("first differing destination byte");
        break;
      }
    }
  }
  // The encoder's error bound against the fp32 input (through float destinations: no second
  // rounding), for the rows that were decoded.
  if constexpr (std::is_same_v<D, float> && !is_identity_v<C>) {
    for (int i = 0; i < count; ++i) {
      if (i == inactive || i == zeroed) { continue; }
      auto const k = static_cast<std::size_t>(i);
      auto const [lo_it, hi_it] = std::minmax_element(x[k].begin(), x[k].end());
      double amax = 0;
      for (float v : x[k]) { amax = std::max(amax, std::fabs(double{v})); }
      const auto* const out = reinterpret_cast<const float*>(dst.get() + dst_at[k]);
      for (std::int64_t c = 0; c < cols; ++c) {
        double const want = x[k][static_cast<std::size_t>(c)];
        CAPTURE(c);
        CAPTURE(want);
        CHECK(std::fabs(double{out[c]} - want) <= error_bound<C>(want, *lo_it, *hi_it, amax));
      }
    }
  }
}

/// The load and store widths the gather uses (move_rows.cuh): byte copies V = W; decoding codecs
/// load 16 bytes or one code, and store the decoded bytes of one load (capped at 16) or single
/// elements. Rows in flight and Align128 vary on the 16-byte loads (kept few: compile time).
template <class C, class D, class Stored>
void check_widths(std::mt19937_64& rng, std::int64_t cols, int lanes)
{
  if constexpr (gnndirect::codec_copies_bytes_v<C, D>) {
    check_decode<C, D, 16, 16, 1, true, Stored>(rng, cols, lanes, false);
    check_decode<C, D, 16, 16, 4, false, Stored>(rng, cols, lanes, false);
    check_decode<C, D, 16, 16, 1, true, Stored>(rng, cols, lanes, true);
    check_decode<C, D, 4, 4, 2, true, Stored>(rng, cols, lanes, false);
    check_decode<C, D, 2, 2, 1, false, Stored>(rng, cols, lanes, true);
  } else {
    constexpr int narrow = C::code_bits >= 8 ? C::code_bits / 8 : 1;
    constexpr int element = static_cast<int>(sizeof(D));
    constexpr int out16 = gnndirect::decoded_bytes_per_load<C, D, 16>;
    constexpr int wide16 = out16 < 16 ? out16 : 16;
    constexpr int out_narrow = gnndirect::decoded_bytes_per_load<C, D, narrow>;
    constexpr int wide_narrow = out_narrow < 16 ? out_narrow : 16;
    check_decode<C, D, 16, wide16, 1, true, Stored>(rng, cols, lanes, false);
    check_decode<C, D, 16, wide16, 2, true, Stored>(rng, cols, lanes, false);
    check_decode<C, D, 16, wide16, 4, false, Stored>(rng, cols, lanes, false);
    check_decode<C, D, 16, wide16, 1, true, Stored>(rng, cols, lanes, true);
    check_decode<C, D, 16, wide16, 1, false, Stored>(rng, cols, lanes, true);
    check_decode<C, D, 16, element, 2, true, Stored>(rng, cols, lanes, false);
    check_decode<C, D, narrow, wide_narrow, 4, true, Stored>(rng, cols, lanes, false);
    check_decode<C, D, narrow, element, 1, true, Stored>(rng, cols, lanes, true);
  }
}

/// Several column counts and tile sizes.
template <class C, class D, class Stored = float>
void check_codec(std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  for (std::int64_t cols : {1, 7, 100, 128, 602}) {
    CAPTURE(cols);
    for (int lanes : {1, 8, 32}) { check_widths<C, D, Stored>(rng, cols, lanes); }
  }
}

TEST_CASE_TEMPLATE("decode_rows / decode_row on an emulated tile equal host_decode_row bit for bit, within the "
                   "encoder's bound; bytes outside the rows untouched",
                   D, float, __half, __nv_bfloat16)
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  SUBCASE("fp32") { check_codec<codecs::fp32, D>(seed); }
  SUBCASE("fp16") { check_codec<codecs::fp16, D>(seed); }
  SUBCASE("bf16") { check_codec<codecs::bf16, D>(seed); }
  SUBCASE("int8 affine") { check_codec<codecs::int8_affine, D>(seed); }
  SUBCASE("int4 affine") { check_codec<codecs::int4_affine, D>(seed); }
  SUBCASE("fp8 e4m3") { check_codec<codecs::fp8_e4m3, D>(seed); }
  SUBCASE("identity") { check_codec<codecs::identity<D>, D, D>(seed); }
}

}  // namespace
