#pragma once
// Definitions of device/dynamic_tile.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

#if defined(__CUDACC__)  // as the declarations: the members exist in device compilation only

GNNDIRECT_DEVICE inline auto dynamic_tile::of_calling_thread(int size) noexcept -> dynamic_tile
{
  int const warp_lane = static_cast<int>(threadIdx.x & 31u);
  int const tile_base = warp_lane & ~(size - 1);
  unsigned const members = size == 32 ? 0xFFFFFFFFu : ((1u << size) - 1u) << tile_base;
  return dynamic_tile{members, warp_lane - tile_base, size, tile_base};
}

GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE auto dynamic_tile::thread_rank() const noexcept -> unsigned
{
  return static_cast<unsigned>(lane);
}

GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE auto dynamic_tile::num_threads() const noexcept -> unsigned
{
  return static_cast<unsigned>(size);
}

template <class T>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE auto dynamic_tile::shfl(T value, int source) const noexcept -> T
{
  return __shfl_sync(mask, value, source, size);
}

GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE auto dynamic_tile::ballot(bool predicate) const noexcept -> unsigned
{
  // Lanes outside the mask may run the same instruction (another tile): drop their bits.
  return (__ballot_sync(mask, predicate) & mask) >> base;
}

GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE auto dynamic_tile::lower_ranks() const noexcept -> unsigned
{
  return (1u << lane) - 1u;
}

#endif

GNNDIRECT_NAMESPACE_END
