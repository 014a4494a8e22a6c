#pragma once
/// @file gather_policy.hpp
/// @brief Tuning and safety knobs of gather/scatter: the policy value type, comparable and
/// printable (host-compilable). The selector that fills its automatic fields from the device,
/// the machine's measured ceilings and the source is core/gather_tuning.hpp.

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>

#include <cstddef>
#include <cstdint>
#include <iosfwd>

GNNDIRECT_NAMESPACE_BEGIN

/// Whether to visit rows in index order before a host-memory gather.
enum class locality_order : std::uint8_t {
  automatic,  ///< selector decides: sort large batches from host-resident sources
  none,       ///< visit rows in caller order
  sorted,     ///< sort indices on the GPU, then write each row to its caller position
};

/// Name of a locality order ("automatic", "none", "sorted"). Pure.
/// @param order the order  @return its name (static storage)
inline const char* to_string(locality_order order) noexcept;

/// Knobs of gather/scatter. Zero / `automatic` values are filled by a gather selector
/// (select_gather_policy, core/gather_tuning.hpp); a policy the selector returned has every knob
/// explicit, and selecting it again leaves it unchanged. Compared with `==`, printed with `<<`.
struct gather_policy {
  /// Threads cooperating on one row: 1, 2, 4, 8, 16 or 32 (0 = from the row size).
  int tile_size{0};
  /// Rows each tile keeps in flight (1, 2 or 4; 0 = from the row size). More rows in flight
  /// hide the host link's latency when rows are short.
  int rows_in_flight{0};
  /// Start reads of rows longer than 128 B at the row's 128-byte line, masking leading lanes,
  /// so that every link request is a full aligned line (+28% on 2408-B rows, docs/design.md §3).
  bool align_128{true};
  /// Locality ordering of host-memory reads.
  locality_order order{locality_order::automatic};
  /// Upper bound on thread blocks (0 = selector: for host-resident sources 32 blocks of 256
  /// threads, or as many as the machine's measured ceilings need to keep the link busy; for
  /// device-resident sources it stays 0, enough blocks to fill the GPU). A small budget lets
  /// gather run beside training kernels.
  int max_blocks{0};
  /// Threads per block (multiple of 32, at most 1024).
  int block_threads{256};
  /// Check every index (0 <= index < rows); a bad index raises index_out_of_range and its row is
  /// zero-filled, nothing is read or written out of bounds. Unchecked is for trusted input.
  bool check_indices{true};
  /// Scatter only: the caller guarantees that no index repeats, so the sort that applies the
  /// last-occurrence rule is skipped (with repeats, rows may then tear).
  bool unique_indices{false};
};

/// The block cap of gathers from host-resident tables when the caller sets none: 32 blocks of 256
/// threads (8192 threads) saturate the host link, expressed in blocks of `block_threads`. The
/// selector applies it to host-resident sources; a pipeline applies it to gathers through its
/// cache tier too, whose selector default is a full grid (most rows come from HBM) that would take
/// the training kernels' SMs (H200, products GraphSAGE with a 20% tier: 1.52 s per epoch with a
/// full grid, 1.05 s with 32 blocks). Pure.
/// @param block_threads threads per block (a valid block size)  @return the block count
constexpr int host_gather_max_blocks(int block_threads = 256) noexcept
{
  return 32 * 256 / block_threads;
}

/// Policies compare equal when every knob is equal. Pure.
/// @param a, b the policies  @return whether all knobs match
inline bool operator==(const gather_policy& a, const gather_policy& b) noexcept;
/// Negation of `==`.  @param a, b the policies  @return whether any knob differs
inline bool operator!=(const gather_policy& a, const gather_policy& b) noexcept;
/// Prints every knob, e.g. `gather_policy{tile_size=8, rows_in_flight=4, align_128=1,
/// order=sorted, max_blocks=32, block_threads=256, check_indices=1, unique_indices=0}`.
/// @param out the stream  @param policy the policy  @return out
inline std::ostream& operator<<(std::ostream& out, const gather_policy& policy);

/// Minimum batch for which automatic locality ordering sorts (sorting tiny batches never pays).
inline constexpr std::int64_t sort_min_batch = 4096;

/// Decoded bytes per encoded byte from which a gather counts as decoding-heavy (int8, fp8 into
/// fp32; 4-bit into fp16 or fp32): its threads spend as long decoding and storing as loading.
inline constexpr int heavy_decode_expansion = 4;

/// Widest vector width (16, 8, 4, 2 or 1 bytes) that divides all of the given byte quantities
/// (addresses, strides, row size). Host and device.
/// @param a, b, c, d, e the quantities (0 for an unused one)  @return the width in bytes
GNNDIRECT_HOST_DEVICE inline int vector_width_for(std::uintptr_t a, std::uintptr_t b, std::uintptr_t c,
                                                  std::uintptr_t d, std::uintptr_t e) noexcept
{
  std::uintptr_t const bits = a | b | c | d | e | std::uintptr_t{16};
  return static_cast<int>(bits & (~bits + 1));  // lowest set bit, capped at 16
}

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/gather_policy.inl>
