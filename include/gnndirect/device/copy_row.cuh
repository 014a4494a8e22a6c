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
#include <gnndirect/detail/device/copy_row.cuh>

#include <vector_types.h>  // uint4, uint2: implicit under nvcc, needed when a host compiler emulates

#include <cstddef>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// One row to copy: `src` may be null (the destination row is zero-filled: a rejected index);
/// `dst` null means nothing to do for this row. `head` = line_head() of the remote address.
struct row_copy {
  const std::byte* src{nullptr};  ///< source row start (any device-visible memory)
  std::byte* dst{nullptr};        ///< destination row start; null = inactive
  std::int64_t head{0};           ///< bytes before the remote row start within its 128-B line
};

/// Bytes before `remote` within its 128-byte line when aligned access applies: rows longer than
/// 128 B (a shorter row spans at most two lines anyway). 0 when `Align128` is false or `remote`
/// is null (a device-resident side, where alignment does not matter). A multiple of the vector
/// width whenever the remote address is vector-aligned. Host and device.
/// @tparam Align128 whether aligned access applies  @param remote the remote row's address, or null
/// @param row_bytes bytes per row  @return the head in bytes
template <bool Align128>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE std::int64_t line_head(const void* remote,
                                                                   std::size_t row_bytes) noexcept;

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
                                                      std::size_t row_bytes) noexcept;

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
                                                     const void* remote) noexcept;

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/device/copy_row.inl>
