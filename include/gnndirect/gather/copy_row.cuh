#pragma once
/// @file copy_row.cuh
/// @brief Device primitive: copy rows with a warp or sub-warp tile, 128-byte aligned reads from
/// the remote (host-resident) side, vector width chosen from the alignment. Inline it in any
/// kernel; gnndirect's bulk gather/scatter are built from it.

#include <gnndirect/config.hpp>
#include <gnndirect/gather/gather_policy.hpp>  // vector_width_for

#include <cstddef>
#include <cstdint>

namespace gnndirect {
namespace detail {

/// Unsigned type of exactly `Bytes` bytes, for vector loads and stores.
template <int Bytes>
struct vector_of;
template <>
struct vector_of<16> {
  using type = uint4;
};
template <>
struct vector_of<8> {
  using type = uint2;
};
template <>
struct vector_of<4> {
  using type = unsigned int;
};
template <>
struct vector_of<2> {
  using type = unsigned short;
};
template <>
struct vector_of<1> {
  using type = unsigned char;
};

/// Bytes before the row's start within its 128-byte line (0 for rows of <= 128 B, where a row
/// spans at most two lines anyway, or when alignment is off). A multiple of the vector width
/// whenever the remote address is vector-aligned.
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE std::int64_t line_head(const void* remote, std::size_t row_bytes,
                                                              bool align_128) noexcept
{
  return (align_128 && row_bytes > 128) ? static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(remote) & 127u)
                                        : 0;
}

/// Copies `Rows` rows at once with one tile: every lane first issues the loads of `Rows` rows x
/// (4 / Rows) steps, then the stores, so several link requests are in flight per thread.
///
/// @tparam V vector bytes (16, 8, 4, 2, 1): must divide every address, stride and row_bytes
/// @tparam Rows rows in flight (1, 2, 4)
/// @param lane rank in the tile  @param tile_size threads in the tile
/// @param src/dst row starts (src[r] may be null for a row to zero-fill: a rejected index)
/// @param active rows to process  @param row_bytes bytes per row
/// @param head per-row leading bytes of the remote line (see line_head): offsets start at -head
template <int V, int Rows>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE void tile_copy_rows(int lane, int tile_size,
                                                           const std::byte* const (&src)[Rows],
                                                           std::byte* const (&dst)[Rows],
                                                           const bool (&active)[Rows],
                                                           std::size_t row_bytes,
                                                           const std::int64_t (&head)[Rows]) noexcept
{
  using vec = typename vector_of<V>::type;
  constexpr int steps_per_pass = 4 / Rows;
  auto const bytes = static_cast<std::int64_t>(row_bytes);
  std::int64_t const stride = static_cast<std::int64_t>(tile_size) * V;
  std::int64_t max_span = 0;
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
    if (active[r] && head[r] + bytes > max_span) { max_span = head[r] + bytes; }
  }
  for (std::int64_t pass = 0; pass < max_span; pass += stride * steps_per_pass) {
    vec values[Rows][steps_per_pass];
    bool in_row[Rows][steps_per_pass];
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
#pragma unroll
      for (int s = 0; s < steps_per_pass; ++s) {
        std::int64_t const offset = pass + s * stride + std::int64_t{lane} * V - head[r];
        in_row[r][s] = active[r] && offset >= 0 && offset < bytes;
        values[r][s] = vec{};
        if (in_row[r][s] && src[r] != nullptr) {
          values[r][s] = *reinterpret_cast<const vec*>(src[r] + offset);
        }
      }
    }
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
#pragma unroll
      for (int s = 0; s < steps_per_pass; ++s) {
        if (in_row[r][s]) {
          std::int64_t const offset = pass + s * stride + std::int64_t{lane} * V - head[r];
          *reinterpret_cast<vec*>(dst[r] + offset) = values[r][s];
        }
      }
    }
  }
}

}  // namespace detail

/// Copies one row of `row_bytes` bytes from `src` to `dst` with a tile of `tile_size` threads
/// (call from every lane of the tile, `lane` in [0, tile_size)). Reads start at the 128-byte
/// line of the *remote* address (src for gather from host memory; pass remote = dst when
/// writing into host memory) when align_128 is set and the row exceeds 128 B.
/// @tparam V vector bytes; must divide src, dst and row_bytes (see vector_width_for).
/// No synchronisation; no bounds checks beyond the row itself.
template <int V>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE void copy_row(int lane, int tile_size, const void* src, void* dst,
                                                     std::size_t row_bytes, bool align_128,
                                                     const void* remote) noexcept
{
  const std::byte* const sources[1] = {static_cast<const std::byte*>(src)};
  std::byte* const destinations[1] = {static_cast<std::byte*>(dst)};
  const bool active[1] = {true};
  const std::int64_t head[1] = {detail::line_head(remote, row_bytes, align_128)};
  detail::tile_copy_rows<V, 1>(lane, tile_size, sources, destinations, active, row_bytes, head);
}

}  // namespace gnndirect
