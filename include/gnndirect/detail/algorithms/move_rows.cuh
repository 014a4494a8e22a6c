#pragma once
/// @file move_rows.cuh
/// @brief The gather/scatter kernel, built from copy_rows, the decoding gather kernel, built from
/// decode_rows, and their launch-time dispatch of run-time tuning (vector widths, rows in flight)
/// onto template parameters. Behaviour (row source, codec, direction) is a template parameter of
/// the caller. Internal: use algorithms/gather.cuh.

#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/core/config.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/launch.cuh>
#include <gnndirect/device/copy_row.cuh>
#include <gnndirect/device/decode_row.cuh>
#include <gnndirect/device/dynamic_tile.cuh>
#include <gnndirect/device/row_source.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Direction of a row move: which side the index selects.
enum class move_direction : std::uint8_t {
  gather,   ///< batch row pos  <- source row indices[i]
  scatter,  ///< source row indices[i] <- batch row pos   (the source is written)
};

/// The side with one row per index: gather's output, scatter's input.
struct batch_rows {
  std::byte* data;      ///< row 0 (const-cast for scatter's input: only read there)
  std::int64_t stride;  ///< bytes between rows
};

/// Run-time arguments of the row-move kernel (trivially copyable, passed by value).
template <class Index>
struct move_rows_args {
  batch_rows batch;                ///< the per-index side
  const Index* indices;            ///< indices to visit (sorted copy when ordering)
  const std::int64_t* positions;   ///< caller position of each visited index; null = identity
  std::int64_t count;              ///< number of rows to move
  std::int64_t bound;              ///< rows of the indexed source (valid: 0 <= index < bound)
  std::size_t row_bytes;           ///< payload bytes per batch row
  std::size_t source_row_bytes;    ///< bytes loaded per source row (encoded sources; else row_bytes)
  int tile_size;                   ///< threads per row
  bool align_128;                  ///< aligned accesses on the remote side
  bool checked;                    ///< check indices against bound (uniform branch)
  bool skip_superseded;            ///< scatter, sorted: only the last occurrence of an index writes
  error_flag_ref flag;             ///< where checked kernels report bad indices
  const std::int64_t* device_count;  ///< gather: rows to move, read on the device (<= count); null = count
};

/// Where batch entry `i` goes and which row it names, loaded before any branch so that a tile's
/// `Rows` entries cost one memory round trip, not one per entry (a branch between the loads made
/// them dependent; sorted gathers of a 256 MiB table lost 8-10% to it in one H200 run).
struct row_entry {
  std::int64_t position;  ///< caller position (batch row)
  std::int64_t index;     ///< row of the source; unspecified when the entry is not live
  bool live;              ///< position < the device-side count
};

/// Loads entry `i`. Sorted: both arrays are the sort's output, written in full, so both are read
/// unconditionally. Unsorted: the caller's index array past the device-side count may be unwritten,
/// so it is read only below that count (known without a load: the position is `i`).
template <class Index>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE row_entry load_row_entry(const move_rows_args<Index>& a, std::int64_t i,
                                                            std::int64_t active)
{
  if (a.positions != nullptr) {
    std::int64_t const position = a.positions[i];
    return row_entry{position, static_cast<std::int64_t>(a.indices[i]), position < active};
  }
  bool const live = i < active;
  return row_entry{i, live ? static_cast<std::int64_t>(a.indices[i]) : std::int64_t{0}, live};
}

/// The copy of batch entry `i` (loaded as `entry`): gather reads the source row (zero-fills the
/// output row for a rejected index); scatter writes the source row (nothing for a rejected or
/// superseded index). Entries that are not live (a device-side count below the launch's bound)
/// are skipped entirely: not checked, not read, not written.
/// No early return: returning `row_copy{}` on one path made nvcc lose the global address space of
/// the row pointers (generic ld/st in the copy loop; sorted 2408-B gathers lost 5-8% on an H200).
/// test/ptx checks that the kernel's row accesses stay `.global`.
template <move_direction Dir, class Source, class Index>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE row_copy resolve_row(const Source& source,
                                                            const move_rows_args<Index>& a,
                                                            std::int64_t i, row_entry entry)
{
  std::int64_t const position = entry.position;
  std::int64_t const index = entry.index;
  bool const in_range = !a.checked || static_cast<std::uint64_t>(index) < static_cast<std::uint64_t>(a.bound);
  if (entry.live && !in_range) { a.flag.report(position); }
  bool const ok = entry.live && in_range;
  std::byte* const batch_row = a.batch.data + position * a.batch.stride;
  row_copy copy{};
  if constexpr (Dir == move_direction::gather) {
    if (entry.live) { copy.dst = batch_row; }
    if (ok) {
      auto const where = source.locate(index);
      copy.src = reinterpret_cast<const std::byte*>(where.data);
      copy.head = a.align_128 ? line_head<true>(where.remote ? copy.src : nullptr, a.row_bytes) : 0;
    }
  } else {
    // Sorted (index, position) pairs, stable: a later occurrence of the same index follows.
    bool const superseded = a.skip_superseded && i + 1 < a.count && a.indices[i + 1] == a.indices[i];
    if (entry.live) { copy.src = batch_row; }
    if (ok && !superseded) {
      auto const where = source.locate(index);
      copy.dst = reinterpret_cast<std::byte*>(where.data);
      copy.head = a.align_128 ? line_head<true>(where.remote ? copy.dst : nullptr, a.row_bytes) : 0;
    }
  }
  return copy;
}

GNNDIRECT_USER_KERNELS_BEGIN
/// Grid-stride loop: each tile moves `Rows` consecutive batch entries per iteration with
/// copy_rows (the public primitive: one code path for the library and for users).
template <move_direction Dir, class Source, class Index, int V, int Rows>
GNNDIRECT_KERNEL void move_rows_kernel(Source source, move_rows_args<Index> a)
{
  dynamic_tile const tile = dynamic_tile::of_calling_thread(a.tile_size);
  std::int64_t const tiles_per_block = blockDim.x / a.tile_size;
  std::int64_t const tile_id = blockIdx.x * tiles_per_block + threadIdx.x / a.tile_size;
  std::int64_t const tiles = std::int64_t{gridDim.x} * tiles_per_block;
  std::int64_t const active = a.device_count != nullptr ? *a.device_count : a.count;
  for (std::int64_t first = tile_id * Rows; first < a.count; first += tiles * Rows) {
    row_entry entries[Rows];
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      if (first + r < a.count) { entries[r] = load_row_entry(a, first + r, active); }
    }
    row_copy rows[Rows];
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      if (first + r < a.count) { rows[r] = resolve_row<Dir>(source, a, first + r, entries[r]); }
    }
    copy_rows<V, Rows>(tile, rows, a.row_bytes);
  }
}

/// The copy of gather entry `i` from a decoding source (as resolve_row's gather branch): the
/// encoded row's address and its metadata (read from HBM by row id, before the copy's loads).
template <class Source, class Index>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE encoded_copy<typename Source::codec_type::meta_type>
resolve_encoded_row(const Source& source, const move_rows_args<Index>& a, row_entry entry)
{
  std::int64_t const position = entry.position;
  bool const in_range =
    !a.checked || static_cast<std::uint64_t>(entry.index) < static_cast<std::uint64_t>(a.bound);
  if (entry.live && !in_range) { a.flag.report(position); }
  encoded_copy<typename Source::codec_type::meta_type> copy{};
  if (entry.live) { copy.dst = a.batch.data + position * a.batch.stride; }
  if (entry.live && in_range) {
    auto const where = source.locate(entry.index);
    copy.src = where.data;
    copy.meta = where.meta;
    copy.head = a.align_128 ? line_head<true>(where.remote ? where.data : nullptr, a.source_row_bytes) : 0;
  }
  return copy;
}

/// Grid-stride decoding gather: as move_rows_kernel, each tile decodes `Rows` entries per
/// iteration with decode_rows (the public primitive) into `D` elements.
template <class Source, class D, class Index, int V, int W, int Rows>
GNNDIRECT_KERNEL void decode_rows_kernel(Source source, move_rows_args<Index> a)
{
  dynamic_tile const tile = dynamic_tile::of_calling_thread(a.tile_size);
  std::int64_t const tiles_per_block = blockDim.x / a.tile_size;
  std::int64_t const tile_id = blockIdx.x * tiles_per_block + threadIdx.x / a.tile_size;
  std::int64_t const tiles = std::int64_t{gridDim.x} * tiles_per_block;
  std::int64_t const active = a.device_count != nullptr ? *a.device_count : a.count;
  using meta_type = typename Source::codec_type::meta_type;
  for (std::int64_t first = tile_id * Rows; first < a.count; first += tiles * Rows) {
    row_entry entries[Rows];
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      if (first + r < a.count) { entries[r] = load_row_entry(a, first + r, active); }
    }
    encoded_copy<meta_type> rows[Rows];
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      if (first + r < a.count) { rows[r] = resolve_encoded_row(source, a, entries[r]); }
    }
    decode_rows<V, W, Rows, D>(tile, source.codec(), rows, a.source_row_bytes, a.row_bytes);
  }
}
GNNDIRECT_USER_KERNELS_END

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

/// Launches the kernel instance for vector width V, dispatching rows in flight.
template <move_direction Dir, class Source, class Index, int V>
void launch_move_rows(cudaStream_t stream, const Source& source, const move_rows_args<Index>& args,
                      const gather_policy& policy, unsigned grid)
{
  int const block = policy.block_threads;
  switch (policy.rows_in_flight) {
    case 4: move_rows_kernel<Dir, Source, Index, V, 4><<<grid, block, 0, stream>>>(source, args); break;
    case 2: move_rows_kernel<Dir, Source, Index, V, 2><<<grid, block, 0, stream>>>(source, args); break;
    default: move_rows_kernel<Dir, Source, Index, V, 1><<<grid, block, 0, stream>>>(source, args); break;
  }
}

/// Enqueues the row-move kernel with the widest vector the addresses allow. `policy` must be
/// resolved (select_gather_policy). @throws cuda_error when the launch fails.
template <move_direction Dir, class Source, class Index>
void enqueue_move_rows(cudaStream_t stream, const Source& source, move_rows_args<Index> args,
                       const gather_policy& policy)
{
  if (args.count == 0) { return; }
  args.tile_size = policy.tile_size;
  args.align_128 = policy.align_128;
  int const width = vector_width_for(source.address_bits(), reinterpret_cast<std::uintptr_t>(args.batch.data),
                                     static_cast<std::uintptr_t>(args.batch.stride), args.row_bytes, 16);
  unsigned const grid = move_rows_grid(args.count, policy);
  switch (width) {
    case 16: launch_move_rows<Dir, Source, Index, 16>(stream, source, args, policy, grid); break;
    case 8: launch_move_rows<Dir, Source, Index, 8>(stream, source, args, policy, grid); break;
    case 4: launch_move_rows<Dir, Source, Index, 4>(stream, source, args, policy, grid); break;
    case 2: launch_move_rows<Dir, Source, Index, 2>(stream, source, args, policy, grid); break;
    default: launch_move_rows<Dir, Source, Index, 1>(stream, source, args, policy, grid); break;
  }
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
}

/// Launches the decoding kernel for widths V and W, dispatching rows in flight.
template <class Source, class D, class Index, int V, int W>
void launch_decode_rows(cudaStream_t stream, const Source& source, const move_rows_args<Index>& args,
                        const gather_policy& policy, unsigned grid)
{
  int const block = policy.block_threads;
  switch (policy.rows_in_flight) {
    case 4: decode_rows_kernel<Source, D, Index, V, W, 4><<<grid, block, 0, stream>>>(source, args); break;
    case 2: decode_rows_kernel<Source, D, Index, V, W, 2><<<grid, block, 0, stream>>>(source, args); break;
    default: decode_rows_kernel<Source, D, Index, V, W, 1><<<grid, block, 0, stream>>>(source, args); break;
  }
}

/// Picks the destination store width for encoded load width V: the decoded bytes of one load
/// (capped at 16) when every destination row is aligned to it, else 8 bytes when they are aligned
/// to that, else single elements. Rows of 602 fp32 values (2408 B) are 8-byte aligned only: scalar
/// stores there cost int4 and int8 rows more than half the link (H200, 2026-12-05: 31% and 63%
/// link use against 74% and 94% for 16-byte aligned rows); store_decoded still widens the stores
/// of each row that happens to start on 16 bytes.
template <class Source, class D, class Index, int V>
void launch_decode_rows_v(cudaStream_t stream, const Source& source, const move_rows_args<Index>& args,
                          const gather_policy& policy, unsigned grid)
{
  using codec = typename Source::codec_type;
  constexpr int out = decoded_bytes_per_load<codec, D, V>;
  constexpr int wide = out < 16 ? out : 16;
  constexpr int half = wide > 8 && sizeof(D) <= 8 ? 8 : static_cast<int>(sizeof(D));
  std::uintptr_t const dst_bits = reinterpret_cast<std::uintptr_t>(args.batch.data) |
                                  static_cast<std::uintptr_t>(args.batch.stride);
  if ((dst_bits & static_cast<std::uintptr_t>(wide - 1)) == 0) {
    launch_decode_rows<Source, D, Index, V, wide>(stream, source, args, policy, grid);
  } else if ((dst_bits & static_cast<std::uintptr_t>(half - 1)) == 0) {
    launch_decode_rows<Source, D, Index, V, half>(stream, source, args, policy, grid);
  } else {
    launch_decode_rows<Source, D, Index, V, static_cast<int>(sizeof(D))>(stream, source, args, policy, grid);
  }
}

/// Refuses encoded rows that a decoding codec cannot load one code at a time (addresses, stride
/// and bytes per row not aligned to one code). Host only, before anything is enqueued.
/// @throws invalid_argument.
template <class Source, class D>
void check_decode_alignment(const Source& source, std::size_t source_row_bytes)
{
  using codec = typename Source::codec_type;
  if constexpr (!codec_copies_bytes_v<codec, D>) {
    constexpr int narrow = codec::code_bits >= 8 ? codec::code_bits / 8 : 1;
    int const width = vector_width_for(source.address_bits(), source_row_bytes, 0, 0, 16);
    GNNDIRECT_EXPECTS(width >= narrow, "decoding gather: encoded rows (addresses, stride and bytes per row) "
                                       "must be aligned to one code (" + std::to_string(narrow) + " bytes)");
  }
}

/// Enqueues the decoding gather from a decoding source into `D` rows. Byte-copy codecs take the
/// widest vector that every address and both row sizes allow (copy_rows' rule); decoding codecs
/// load 16 bytes when the encoded rows allow it, else one code's bytes. `policy` must be resolved.
/// @throws invalid_argument (encoded rows not aligned to one code: the callers check it first,
/// check_decode_alignment), cuda_error.
template <class Source, class D, class Index>
void enqueue_decode_rows(cudaStream_t stream, const Source& source, move_rows_args<Index> args,
                         const gather_policy& policy)
{
  using codec = typename Source::codec_type;
  if (args.count == 0) { return; }
  args.tile_size = policy.tile_size;
  args.align_128 = policy.align_128;
  unsigned const grid = move_rows_grid(args.count, policy);
  if constexpr (codec_copies_bytes_v<codec, D>) {
    int const width = vector_width_for(source.address_bits(), reinterpret_cast<std::uintptr_t>(args.batch.data),
                                       static_cast<std::uintptr_t>(args.batch.stride), args.row_bytes,
                                       args.source_row_bytes);
    switch (width) {
      case 16: launch_decode_rows<Source, D, Index, 16, 16>(stream, source, args, policy, grid); break;
      case 8: launch_decode_rows<Source, D, Index, 8, 8>(stream, source, args, policy, grid); break;
      case 4: launch_decode_rows<Source, D, Index, 4, 4>(stream, source, args, policy, grid); break;
      case 2: launch_decode_rows<Source, D, Index, 2, 2>(stream, source, args, policy, grid); break;
      default: launch_decode_rows<Source, D, Index, 1, 1>(stream, source, args, policy, grid); break;
    }
  } else {
    constexpr int narrow = codec::code_bits >= 8 ? codec::code_bits / 8 : 1;
    int const width = vector_width_for(source.address_bits(), args.source_row_bytes, 0, 0, 16);
    check_decode_alignment<Source, D>(source, args.source_row_bytes);  // done before enqueueing too
    if (width == 16) {
      launch_decode_rows_v<Source, D, Index, 16>(stream, source, args, policy, grid);
    } else {
      launch_decode_rows_v<Source, D, Index, narrow>(stream, source, args, policy, grid);
    }
  }
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
