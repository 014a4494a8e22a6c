#pragma once
/// @file copy_row.cuh
/// @brief Device primitive: copy table rows with a tile of threads, 128-byte aligned accesses on
/// the remote (host-resident) side, vector width and alignment as template parameters. Inline it
/// in any kernel; gnndirect's bulk gather and scatter are built from copy_rows (one code path).
///
/// @code
///   namespace cg = cooperative_groups;
///   auto tile = cg::tiled_partition<8>(cg::this_thread_block());     // size known at compile time
///   gnndirect::copy_row<16>(tile, host_row, my_out_row, row_bytes, host_row);
/// @endcode
///
/// Tile concept: any object with `thread_rank()` and `num_threads()` (a
/// `cooperative_groups::thread_block_tile<N>`, whose size then folds into the loop bounds, or
/// gnndirect::dynamic_tile when the size is a run-time value). No collective operation is used,
/// so the tile's threads need not be converged.

#include <gnndirect/core/config.hpp>

#include <vector_types.h>  // uint4, uint2: implicit under nvcc, needed when a host compiler emulates

#include <cstddef>
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

/// One row to copy: `src` may be null (the destination row is zero-filled: a rejected index);
/// `dst` null means nothing to do for this row. `head` = line_head() of the remote address.
struct row_copy {
  const std::byte* src{nullptr};  ///< source row start (any device-visible memory)
  std::byte* dst{nullptr};        ///< destination row start; null = inactive
  std::int64_t head{0};           ///< bytes before the remote row start within its 128-B line
};

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

/// Bytes before `remote` within its 128-byte line when aligned access applies: rows longer than
/// 128 B (a shorter row spans at most two lines anyway). 0 when `Align128` is false or `remote`
/// is null (a device-resident side, where alignment does not matter). A multiple of the vector
/// width whenever the remote address is vector-aligned. Host and device.
/// @tparam Align128 whether aligned access applies  @param remote the remote row's address, or null
/// @param row_bytes bytes per row  @return the head in bytes
template <bool Align128>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE std::int64_t line_head(const void* remote,
                                                                   std::size_t row_bytes) noexcept
{
  if constexpr (!Align128) {
    return 0;
  } else {
    return (remote != nullptr && row_bytes > 128)
             ? static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(remote) & 127u)
             : 0;
  }
}

/// Copies `Rows` rows at once with one tile: every thread first issues the loads of `Rows` rows
/// x (4 / Rows) steps, then the stores, so several link requests are in flight per thread (the
/// host link's latency, not its bandwidth, limits short rows).
///
/// @tparam V vector bytes (16, 8, 4, 2 or 1): must divide every row address and row_bytes
/// @tparam Rows rows in flight (1, 2 or 4)  @tparam Tile a cg tile or dynamic_tile
/// @param tile the calling tile (every thread of it calls with the same arguments)
/// @param rows the rows (inactive ones have dst null)  @param row_bytes payload bytes per row
/// Offsets start at -head so that the remote side's accesses begin on its 128-B line; lanes
/// outside the row are masked. No synchronisation, no bounds checks beyond the rows themselves.
template <int V, int Rows, class Tile>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE void copy_rows(const Tile& tile, const row_copy (&rows)[Rows],
                                                      std::size_t row_bytes) noexcept
{
  static_assert(V == 16 || V == 8 || V == 4 || V == 2 || V == 1,
                "copy_rows: vector width V must be 16, 8, 4, 2 or 1 bytes");
  static_assert(Rows == 1 || Rows == 2 || Rows == 4, "copy_rows: Rows must be 1, 2 or 4");
  using vec = typename detail::vector_of<V>::type;
  detail::for_each_row_vector<V, Rows>(tile, rows, static_cast<std::int64_t>(row_bytes),
                                       [&](int r, std::int64_t offset, const vec& value) {
                                         *reinterpret_cast<vec*>(rows[r].dst + offset) = value;
                                       });
}

/// Copies one row of `row_bytes` bytes from `src` to `dst` with the calling tile (every thread
/// of the tile calls it with the same arguments).
///
/// @tparam V vector bytes (16, 8, 4, 2, 1); must divide src, dst and row_bytes (vector_width_for
///         in gather_policy.hpp computes the widest that does)
/// @tparam Align128 start the remote side's accesses at its 128-byte line (rows > 128 B), so that
///         every request over the host link is a full aligned line (+28% on 2408-B rows from
///         pinned memory on an H200)
/// @tparam Tile a cg tile or dynamic_tile
/// @param tile a cooperative_groups::thread_block_tile<N> or gnndirect::dynamic_tile
/// @param src, dst the rows  @param row_bytes bytes per row
/// @param remote the host-resident side (src when gathering from host memory, dst when writing
///        into it); null when both sides are in device memory
/// No synchronisation; no bounds checks beyond the row itself.
template <int V, bool Align128 = true, class Tile>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE void copy_row(const Tile& tile, const void* src, void* dst,
                                                     std::size_t row_bytes,
                                                     const void* remote) noexcept
{
  row_copy const rows[1] = {row_copy{static_cast<const std::byte*>(src), static_cast<std::byte*>(dst),
                                     line_head<Align128>(remote, row_bytes)}};
  copy_rows<V, 1>(tile, rows, row_bytes);
}

GNNDIRECT_NAMESPACE_END
