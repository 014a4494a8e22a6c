#pragma once
/// @file gather_policy.hpp
/// @brief Tuning and safety knobs of gather/scatter, and the selector that fills the defaults
/// from the placement and the row size (host-compilable).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Whether to visit rows in index order before a host-memory gather.
enum class locality_order : std::uint8_t {
  automatic,  ///< selector decides: sort large batches from host-resident sources
  none,       ///< visit rows in caller order
  sorted,     ///< sort indices on the GPU, then write each row to its caller position
};

/// Knobs of gather/scatter. Zero / `automatic` values are filled by select_gather_policy().
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
  /// Upper bound on thread blocks (0 = selector: 32 blocks of 256 threads for host-resident
  /// sources, which saturate the link, else enough to fill the GPU). A small budget lets gather
  /// run beside training kernels.
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

/// Minimum batch for which automatic locality ordering sorts (sorting tiny batches never pays).
inline constexpr std::int64_t sort_min_batch = 4096;

/// Decoded bytes per encoded byte from which a gather counts as decoding-heavy (int8, fp8 into
/// fp32; 4-bit into fp16 or fp32): its threads spend as long decoding and storing as loading.
inline constexpr int heavy_decode_expansion = 4;

/// Fills the defaults of `policy` for a source in `source_kind` with rows of `row_bytes` bytes
/// and a batch of `count` rows; validates explicit values. Pure; never touches the GPU.
/// A decoding gather whose codec expands each loaded byte `decode_expansion` >= 4 times gets
/// tiles of at most 8 threads with 2 rows in flight on multi-pass rows, and from host memory
/// expansion / 4 times the block cap (H200 sweep `gather_codec_tune`, 2026-12-05, 602 features:
/// int8 3.45 -> 3.91x, fp8 3.29 -> 3.93x, 4-bit 3.95 -> 6.95x the link peak in decoded bytes;
/// unchanged at 128 features, where the rows are one 8-thread pass already).
/// @param policy the caller's policy (0 fields: defaults)
/// @param source_kind placement of the source
/// @param row_bytes bytes loaded per row (the encoded row of a decoding gather)
/// @param count rows in the batch
/// @param decode_expansion decoded bytes per loaded byte (1: a plain copy)
/// @return the resolved policy
/// @throws invalid_argument for a bad tile size, rows in flight, block size or budget.
inline gather_policy select_gather_policy(gather_policy policy, memory_kind source_kind,
                                          std::size_t row_bytes, std::int64_t count, int decode_expansion = 1)
{
  auto const is_pow2_upto = [](int v, int limit) { return v >= 1 && v <= limit && (v & (v - 1)) == 0; };
  GNNDIRECT_EXPECTS(policy.tile_size == 0 || is_pow2_upto(policy.tile_size, 32),
                    "gather_policy: tile_size must be 1, 2, 4, 8, 16 or 32, got " +
                      std::to_string(policy.tile_size));
  GNNDIRECT_EXPECTS(policy.rows_in_flight == 0 || is_pow2_upto(policy.rows_in_flight, 4),
                    "gather_policy: rows_in_flight must be 1, 2 or 4, got " +
                      std::to_string(policy.rows_in_flight));
  GNNDIRECT_EXPECTS(policy.block_threads >= 32 && policy.block_threads <= 1024 &&
                      policy.block_threads % 32 == 0,
                    "gather_policy: block_threads must be a multiple of 32 in [32, 1024], got " +
                      std::to_string(policy.block_threads));
  GNNDIRECT_EXPECTS(policy.max_blocks >= 0, "gather_policy: negative max_blocks");

  // Bytes a tile may have to cover: the row plus, when aligned, its head within the 128-B line.
  std::size_t const span = row_bytes + (policy.align_128 && row_bytes > 128 ? 127 : 0);
  bool const heavy_decode = decode_expansion >= heavy_decode_expansion;
  if (policy.tile_size == 0) {
    // One 16-byte vector per lane covers the span; a heavy decode spreads a long row over
    // passes of a small tile instead, so that more rows are decoded at once.
    int const widest = heavy_decode ? 8 : 32;
    int tile = 1;
    while (tile < widest && static_cast<std::size_t>(tile) * 16 < span) { tile *= 2; }
    policy.tile_size = tile;
  }
  if (policy.rows_in_flight == 0) {
    std::size_t const per_pass = static_cast<std::size_t>(policy.tile_size) * 16;
    std::size_t const passes = (span + per_pass - 1) / per_pass;
    policy.rows_in_flight = passes <= 1 ? 4 : (passes == 2 || heavy_decode ? 2 : 1);
  }
  if (policy.max_blocks == 0 && is_host_resident(source_kind)) {
    // 32 blocks of 256 threads already saturate the link, and a smaller grid keeps the sorted
    // sweep's working set (pages being translated) narrow: H200, 16 GiB table, 64-B rows:
    // 37 GB/s with 32 blocks vs 31 GB/s with a full grid. It also leaves most SMs to training.
    // A heavy decode needs more threads to keep as many bytes in flight.
    int const scale = heavy_decode ? decode_expansion / heavy_decode_expansion : 1;
    policy.max_blocks = host_gather_max_blocks(policy.block_threads) * scale;
  }
  if (policy.order == locality_order::automatic) {
    // Every host-resident placement is translation-bound on large tables: sorted order turns
    // random page walks into a sweep (H200, 16 GiB table: pinned 4.3 -> 17 GB/s, managed_host
    // 40 -> 48 GB/s at 128-B rows) and lets duplicate rows hit in L2. It never cost more than 3%
    // in our sweep; device-resident tables gain nothing from it.
    policy.order = is_host_resident(source_kind) && count >= sort_min_batch ? locality_order::sorted
                                                                           : locality_order::none;
  }
  return policy;
}

/// One timed probe of a gather calibration: the block cap and rows in flight it ran with and the
/// seconds its gather took (the median of its repeats).
struct gather_probe {
  int max_blocks{0};      ///< block cap of the probe
  int rows_in_flight{0};  ///< rows each tile kept in flight
  double seconds{0};      ///< its time (0 before it ran)
};

/// The block caps x rows in flight a calibration of host-memory gathers tries on a device of
/// `sm_count` SMs, in blocks of 256 threads: 32, 64, 128, 256, SMs x 2 and SMs x 4 (distinct,
/// ascending; the H200 saturated its link with 32, the H100 needs more requests in flight)
/// times rows in flight 1, 2 and 4. Pure.
/// @param sm_count the device's SM count (>= 1)  @return the candidates, seconds 0
/// @throws invalid_argument for sm_count < 1.
inline std::vector<gather_probe> gather_calibration_candidates(int sm_count)
{
  GNNDIRECT_EXPECTS(sm_count >= 1, "gather_calibration_candidates: sm_count must be >= 1, got " +
                                     std::to_string(sm_count));
  std::vector<int> caps{32, 64, 128, 256, 2 * sm_count, 4 * sm_count};
  std::sort(caps.begin(), caps.end());
  caps.erase(std::unique(caps.begin(), caps.end()), caps.end());
  std::vector<gather_probe> out;
  for (int cap : caps) {
    for (int rows : {1, 2, 4}) { out.push_back(gather_probe{cap, rows, 0}); }
  }
  return out;
}

/// Chooses among timed probes: the fastest, unless a probe with fewer blocks (then fewer rows in
/// flight) is within `tolerance` of it, so that a budget which gains nothing measurable leaves its
/// SMs to the work beside the gather (sampling, training). Pure.
/// @param probes the timed probes (each seconds > 0)  @param tolerance relative slack (>= 0)
/// @return the chosen probe
/// @throws invalid_argument for no probe, a probe not timed (seconds <= 0) or a negative tolerance.
inline gather_probe choose_gather_probe(const std::vector<gather_probe>& probes, double tolerance = 0.03)
{
  GNNDIRECT_EXPECTS(!probes.empty(), "choose_gather_probe: no probe");
  GNNDIRECT_EXPECTS(tolerance >= 0, "choose_gather_probe: negative tolerance");
  double fastest = probes.front().seconds;
  for (auto const& p : probes) {
    GNNDIRECT_EXPECTS(p.seconds > 0, "choose_gather_probe: a probe was not timed (" +
                                       std::to_string(p.max_blocks) + " blocks, " +
                                       std::to_string(p.rows_in_flight) + " rows in flight)");
    fastest = std::min(fastest, p.seconds);
  }
  gather_probe const* chosen = nullptr;
  for (auto const& p : probes) {
    if (p.seconds > fastest * (1 + tolerance)) { continue; }
    if (chosen == nullptr || p.max_blocks < chosen->max_blocks ||
        (p.max_blocks == chosen->max_blocks && p.rows_in_flight < chosen->rows_in_flight)) {
      chosen = &p;
    }
  }
  return *chosen;
}

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
