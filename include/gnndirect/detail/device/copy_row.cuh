#pragma once
/// @file copy_row.cuh
/// @brief Internals of device/copy_row.cuh: vector types by width and the row loop that copy_rows
/// and decode_rows share (not part of the API).

#include <gnndirect/core/config.hpp>

#include <vector_types.h>  // uint4, uint2: implicit under nvcc, needed when a host compiler emulates

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
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

}  // namespace detail

namespace detail {

/// The loop copy_rows and decode_rows share. Each thread handles the V-byte vectors at offsets
/// pass + s * stride + lane * V - head of every row (stride = tile threads x V): it first issues
/// the loads of `Rows` rows x (4 / Rows) steps, so that several requests over the host link are
/// in flight per thread (the link's latency, not its bandwidth, limits short rows), then hands
/// each loaded vector that lies in its row to `consume(r, offset, value)`. A row with a null
/// `src` yields zero vectors; a row with a null `dst` is skipped. Offsets start at -head, so the
/// remote side's accesses begin on its 128-byte line; lanes outside a row are masked.
/// @tparam V vector bytes  @tparam Rows rows in flight (1, 2 or 4)
/// @tparam Row a type with `src` (byte pointer), `dst` and `head` (row_copy, encoded_copy)
/// @tparam Tile a cg tile or dynamic_tile  @tparam Consume callable (int, std::int64_t, const vec&)
/// @param tile the calling tile  @param rows the rows  @param bytes bytes loaded per row
/// @param consume what to do with each loaded vector (store it, or decode and store)
template <int V, int Rows, class Row, class Tile, class Consume>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE void for_each_row_vector(const Tile& tile, const Row (&rows)[Rows],
                                                                std::int64_t bytes, Consume&& consume) noexcept
{
  using vec = typename vector_of<V>::type;
  constexpr int steps_per_pass = 4 / Rows;
  auto const lane = static_cast<std::int64_t>(tile.thread_rank());
  std::int64_t const stride = static_cast<std::int64_t>(tile.num_threads()) * V;
  std::int64_t max_span = 0;
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
    if (rows[r].dst != nullptr && rows[r].head + bytes > max_span) { max_span = rows[r].head + bytes; }
  }
  for (std::int64_t pass = 0; pass < max_span; pass += stride * steps_per_pass) {
    vec values[Rows][steps_per_pass];
    bool in_row[Rows][steps_per_pass];
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
#pragma unroll
      for (int s = 0; s < steps_per_pass; ++s) {
        std::int64_t const offset = pass + s * stride + lane * V - rows[r].head;
        in_row[r][s] = rows[r].dst != nullptr && offset >= 0 && offset < bytes;
        values[r][s] = vec{};
        if (in_row[r][s] && rows[r].src != nullptr) {
          values[r][s] = *reinterpret_cast<const vec*>(reinterpret_cast<const unsigned char*>(rows[r].src) + offset);
        }
      }
    }
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
#pragma unroll
      for (int s = 0; s < steps_per_pass; ++s) {
        if (in_row[r][s]) { consume(r, pass + s * stride + lane * V - rows[r].head, values[r][s]); }
      }
    }
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
