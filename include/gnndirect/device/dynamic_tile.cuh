#pragma once
/// @file dynamic_tile.cuh
/// @brief dynamic_tile: a group of 1..32 consecutive lanes of one warp whose size is a run-time
/// value (device code).
///
/// cooperative_groups::thread_block_tile needs its size at compile time. The bulk kernels take
/// the tile size from a run-time policy (a selector picks it from the row size or the fanout),
/// and instantiating every primitive for six tile sizes would multiply their kernels by six, so
/// they use this small equivalent built on the *_sync warp intrinsics with an explicit member
/// mask. It offers the subset of thread_block_tile's interface the primitives need
/// (thread_rank, num_threads, shfl, ballot, sync), so a primitive written against that subset
/// accepts either (copy_row and the samplers are). Lanes of different tiles of one warp may
/// diverge.

#include <gnndirect/core/config.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// `size` consecutive lanes of a warp (size a power of two, 1..32); `lane` is this thread's rank.
struct dynamic_tile {
  unsigned mask;  ///< member lanes of the warp, for the *_sync intrinsics
  int lane;       ///< rank of the calling thread in the tile, 0..size-1
  int size;       ///< number of threads in the tile
  int base;       ///< warp lane of the tile's rank 0

#if defined(__CUDACC__)
  /// Tile of `size` lanes containing the calling thread, tiles laid out along threadIdx.x
  /// (blockDim.x must be a multiple of 32, or of `size` when only one warp is partial).
  /// @param size lanes per tile (power of two, 1..32)  @return the tile
  static GNNDIRECT_DEVICE dynamic_tile of_calling_thread(int size) noexcept;

  /// Rank of the calling thread in the tile (thread_block_tile's name).  @return lane
  GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE unsigned thread_rank() const noexcept;
  /// Threads in the tile (thread_block_tile's name).  @return size
  GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE unsigned num_threads() const noexcept;

  /// Value of `value` held by rank `source` of the tile.
  /// @tparam T a type __shfl_sync takes  @param value this thread's value
  /// @param source the rank read
  /// @return rank source's value
  template <class T>
  GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE T shfl(T value, int source) const noexcept;

  /// Bit r set when rank r's predicate holds.  @param predicate this thread's  @return the bits
  GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE unsigned ballot(bool predicate) const noexcept;

  /// Bits of the ranks below this thread's rank (for ballot-based compaction).  @return the mask
  GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE unsigned lower_ranks() const noexcept;

  /// Barrier and memory fence among the tile's threads (shared and global writes become visible).
  GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE void sync() const noexcept { __syncwarp(mask); }
#endif
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/device/dynamic_tile.inl>
