#pragma once
/// @file move_rows.cuh
/// @brief The gather/scatter kernel and its launch-time dispatch (vector width, rows in flight,
/// checking). Internal: use gather/gather.cuh.

#include <gnndirect/config.hpp>
#include <gnndirect/detail/error_flag.cuh>
#include <gnndirect/detail/launch.cuh>
#include <gnndirect/error.hpp>
#include <gnndirect/gather/copy_row.cuh>
#include <gnndirect/gather/gather_policy.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace gnndirect::detail {

/// Direction of a row move: which side the index selects.
enum class move_direction : std::uint8_t {
  gather,   ///< dst row pos  <- src row indices[i]   (remote side: src)
  scatter,  ///< dst row indices[i] <- src row pos    (remote side: dst)
};

/// A device-memory copy of some rows of the source table (the hot tier of a tiered table):
/// slot_of[row] is the row's slot in `rows`, or negative when the row is only in the source.
struct cache_tier {
  const std::int32_t* slot_of{nullptr};  ///< one slot per source row (device); null = no tier
  const std::byte* rows{nullptr};        ///< cached rows (device memory)
  std::int64_t stride{0};                ///< bytes between cached rows
};

/// Kernel arguments (passed by value; trivially copyable).
template <class Index>
struct move_rows_args {
  const std::byte* src;                ///< source table base
  std::int64_t src_stride;             ///< bytes between source rows
  std::byte* dst;                      ///< destination table base
  std::int64_t dst_stride;             ///< bytes between destination rows
  const Index* indices;                ///< indices to visit (sorted copy when ordering)
  const std::int64_t* positions;       ///< caller position of each visited index; null = identity
  std::int64_t count;                  ///< number of rows to move
  std::int64_t bound;                  ///< rows of the indexed table (valid: 0 <= index < bound)
  std::size_t row_bytes;               ///< payload bytes per row
  int tile_size;                       ///< threads per row
  int log2_tile;                       ///< log2(tile_size)
  bool align_128;                      ///< aligned reads of the remote side
  move_direction direction;            ///< gather or scatter
  error_flag_ref flag;                 ///< where checked kernels report bad indices
  cache_tier tier;                     ///< gather only: rows served from device memory
};

/// Resolves the source/destination row of batch entry `i`; a rejected index yields a null
/// remote pointer (gather: zero-fill the destination row; scatter: write nothing).
template <class Index, bool Checked>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE void resolve_row(const move_rows_args<Index>& a, std::int64_t i,
                                                        const std::byte*& src, std::byte*& dst,
                                                        bool& active, std::int64_t& head)
{
  auto const index = static_cast<std::int64_t>(a.indices[i]);
  std::int64_t const position = a.positions != nullptr ? a.positions[i] : i;
  bool const ok = !Checked || static_cast<std::uint64_t>(index) < static_cast<std::uint64_t>(a.bound);
  if (!ok) { a.flag.report(position); }
  if (a.direction == move_direction::gather) {
    std::int32_t const slot = (ok && a.tier.slot_of != nullptr) ? a.tier.slot_of[index] : -1;
    dst = a.dst + position * a.dst_stride;
    active = true;
    if (slot >= 0) {  // hot row: read the device copy; alignment only matters on the link
      src = a.tier.rows + slot * a.tier.stride;
      head = 0;
    } else {
      src = ok ? a.src + index * a.src_stride : nullptr;
      head = ok ? line_head(src, a.row_bytes, a.align_128) : 0;
    }
  } else {
    src = a.src + position * a.src_stride;
    dst = ok ? a.dst + index * a.dst_stride : nullptr;
    active = ok;
    head = ok ? line_head(dst, a.row_bytes, a.align_128) : 0;
  }
}

/// Grid-stride loop: each tile moves `Rows` consecutive batch entries per iteration.
template <class Index, int V, int Rows, bool Checked>
GNNDIRECT_KERNEL void move_rows_kernel(move_rows_args<Index> a)
{
  std::int64_t const thread = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  int const lane = static_cast<int>(thread & (a.tile_size - 1));
  std::int64_t const tile = thread >> a.log2_tile;
  std::int64_t const tiles = (std::int64_t{gridDim.x} * blockDim.x) >> a.log2_tile;
  for (std::int64_t first = tile * Rows; first < a.count; first += tiles * Rows) {
    const std::byte* src[Rows];
    std::byte* dst[Rows];
    bool active[Rows];
    std::int64_t head[Rows];
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      src[r] = nullptr;
      dst[r] = nullptr;
      active[r] = false;
      head[r] = 0;
      if (first + r < a.count) { resolve_row<Index, Checked>(a, first + r, src[r], dst[r], active[r], head[r]); }
    }
    tile_copy_rows<V, Rows>(lane, a.tile_size, src, dst, active, a.row_bytes, head);
  }
}

/// Blocks of `block_threads` threads that keep every SM of the current device fully occupied.
inline int full_grid_blocks(int block_threads)
{
  int device = 0;
  GNNDIRECT_CUDA_TRY(cudaGetDevice(&device));
  int sms = 0;
  GNNDIRECT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms * (2048 / block_threads);
}

/// Number of blocks: enough tiles for the batch, capped by the policy's budget or by what keeps
/// every SM fully occupied.
inline unsigned move_rows_grid(std::int64_t count, const gather_policy& policy)
{
  std::int64_t const tiles = (count + policy.rows_in_flight - 1) / policy.rows_in_flight;
  std::int64_t const threads = tiles * policy.tile_size;
  std::int64_t blocks = (threads + policy.block_threads - 1) / policy.block_threads;
  std::int64_t const cap = policy.max_blocks > 0 ? policy.max_blocks : full_grid_blocks(policy.block_threads);
  if (blocks > cap) { blocks = cap; }
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

template <class Index, int V, int Rows>
void launch_move_rows(cudaStream_t stream, const move_rows_args<Index>& args, bool checked,
                      unsigned grid, int block)
{
  if (checked) {
    move_rows_kernel<Index, V, Rows, true><<<grid, block, 0, stream>>>(args);
  } else {
    move_rows_kernel<Index, V, Rows, false><<<grid, block, 0, stream>>>(args);
  }
}

template <class Index, int V>
void launch_move_rows(cudaStream_t stream, const move_rows_args<Index>& args,
                      const gather_policy& policy, unsigned grid)
{
  switch (policy.rows_in_flight) {
    case 4: launch_move_rows<Index, V, 4>(stream, args, policy.check_indices, grid, policy.block_threads); break;
    case 2: launch_move_rows<Index, V, 2>(stream, args, policy.check_indices, grid, policy.block_threads); break;
    default: launch_move_rows<Index, V, 1>(stream, args, policy.check_indices, grid, policy.block_threads); break;
  }
}

/// Enqueues the row-move kernel with the widest vector the addresses allow. `policy` must be
/// resolved (select_gather_policy). @throws cuda_error when the launch fails.
template <class Index>
void enqueue_move_rows(cudaStream_t stream, move_rows_args<Index> args, const gather_policy& policy)
{
  if (args.count == 0) { return; }
  args.tile_size = policy.tile_size;
  args.log2_tile = 0;
  while ((1 << args.log2_tile) < policy.tile_size) { ++args.log2_tile; }
  args.align_128 = policy.align_128;
  int const width = vector_width_for(
    reinterpret_cast<std::uintptr_t>(args.src) | reinterpret_cast<std::uintptr_t>(args.tier.rows),
    static_cast<std::uintptr_t>(args.src_stride) | static_cast<std::uintptr_t>(args.tier.stride),
    reinterpret_cast<std::uintptr_t>(args.dst), static_cast<std::uintptr_t>(args.dst_stride),
    args.row_bytes);
  unsigned const grid = move_rows_grid(args.count, policy);
  switch (width) {
    case 16: launch_move_rows<Index, 16>(stream, args, policy, grid); break;
    case 8: launch_move_rows<Index, 8>(stream, args, policy, grid); break;
    case 4: launch_move_rows<Index, 4>(stream, args, policy, grid); break;
    case 2: launch_move_rows<Index, 2>(stream, args, policy, grid); break;
    default: launch_move_rows<Index, 1>(stream, args, policy, grid); break;
  }
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
}

}  // namespace gnndirect::detail
