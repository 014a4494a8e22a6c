#pragma once
// Bodies of core/gather_tuning.hpp: the default gather selector, the checks around any selector,
// and the comparison and printing of the selector's inputs.

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/gather_tuning.hpp>

#include <algorithm>
#include <ostream>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// True for a power of two in [1, limit].
constexpr bool is_pow2_upto(int v, int limit) noexcept { return v >= 1 && v <= limit && (v & (v - 1)) == 0; }

/// Checks the explicit knobs of a policy; `who` names the policy's origin in the message.
inline void check_gather_knobs(const gather_policy& policy, const std::string& who)
{
  GNNDIRECT_EXPECTS(policy.tile_size == 0 || is_pow2_upto(policy.tile_size, 32),
                    who + ": tile_size must be 1, 2, 4, 8, 16 or 32, got " + std::to_string(policy.tile_size));
  GNNDIRECT_EXPECTS(policy.rows_in_flight == 0 || is_pow2_upto(policy.rows_in_flight, 4),
                    who + ": rows_in_flight must be 1, 2 or 4, got " + std::to_string(policy.rows_in_flight));
  GNNDIRECT_EXPECTS(policy.block_threads >= 32 && policy.block_threads <= 1024 && policy.block_threads % 32 == 0,
                    who + ": block_threads must be a multiple of 32 in [32, 1024], got " +
                      std::to_string(policy.block_threads));
  GNNDIRECT_EXPECTS(policy.max_blocks >= 0, who + ": negative max_blocks");
}

}  // namespace detail

inline gather_policy default_gather_selector::operator()(gather_policy policy, const gather_device& device,
                                                         const gather_source& source) const
{
  // Bytes a tile may have to cover: the row plus, when aligned, its head within the 128-B line.
  std::size_t const span = source.row_bytes + (policy.align_128 && source.row_bytes > 128 ? 127 : 0);
  bool const heavy_decode = source.decode_expansion >= heavy_decode_expansion;
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
  if (policy.max_blocks == 0 && is_host_resident(source.kind)) {
    // 32 blocks of 256 threads saturate the H200's link, and a smaller grid keeps the sorted
    // sweep's working set (pages being translated) narrow: H200, 16 GiB table, 64-B rows:
    // 37 GB/s with 32 blocks vs 31 GB/s with a full grid. It also leaves most SMs to training.
    // A heavy decode needs more threads to keep as many bytes in flight.
    int const scale = heavy_decode ? source.decode_expansion / heavy_decode_expansion : 1;
    int blocks = host_gather_max_blocks(policy.block_threads) * scale;
    std::int64_t const loads = device.ceilings.saturating_loads_in_flight;
    // The loads the historical cap keeps in flight: 8192 threads (times the decode's scale),
    // each with rows_in_flight loads outstanding.
    std::int64_t const historical = std::int64_t{host_gather_max_blocks(256)} * 256 * scale * policy.rows_in_flight;
    if (loads > historical) {
      // A machine whose link needs more loads in flight gets the blocks that keep them there
      // (the H100 machine: 60% of its link with 32 blocks, 93% with a plain 256-block kernel),
      // bounded by the blocks its SMs hold at once.
      std::int64_t const per_block = std::int64_t{policy.block_threads} * policy.rows_in_flight;
      std::int64_t needed = (loads + per_block - 1) / per_block;
      if (device.sm_count > 0) {
        int const per_sm = std::max(1, resident_threads_per_sm(device.cc_major, device.cc_minor) / policy.block_threads);
        needed = std::min<std::int64_t>(needed, std::int64_t{device.sm_count} * per_sm);
      }
      blocks = static_cast<int>(std::max<std::int64_t>(blocks, std::min<std::int64_t>(needed, 1 << 20)));
    }
    policy.max_blocks = blocks;
  }
  if (policy.order == locality_order::automatic) {
    // Every host-resident placement is translation-bound on large tables: sorted order turns
    // random page walks into a sweep (H200, 16 GiB table: pinned 4.3 -> 17 GB/s, managed_host
    // 40 -> 48 GB/s at 128-B rows) and lets duplicate rows hit in L2. It never cost more than 3%
    // in our sweep; device-resident tables gain nothing from it.
    policy.order = is_host_resident(source.kind) && source.count >= sort_min_batch ? locality_order::sorted
                                                                                  : locality_order::none;
  }
  return policy;
}

template <class Selector>
gather_policy select_gather_policy(const Selector& selector, gather_policy requested, const gather_device& device,
                                   const gather_source& source)
{
  static_assert(is_gather_selector_v<Selector>,
                "gnndirect::select_gather_policy: the Selector must be callable as gather_policy(gather_policy, "
                "const gather_device&, const gather_source&) const (core/gather_tuning.hpp)");
  detail::check_gather_knobs(requested, "gather_policy");
  GNNDIRECT_EXPECTS(source.decode_expansion >= 1,
                    "gather_source: decode_expansion must be >= 1, got " + std::to_string(source.decode_expansion));
  gather_policy chosen = selector(requested, device, source);
  // What the caller set stays: a selector chooses only what was left to it.
  if (requested.tile_size != 0) { chosen.tile_size = requested.tile_size; }
  if (requested.rows_in_flight != 0) { chosen.rows_in_flight = requested.rows_in_flight; }
  if (requested.max_blocks != 0) { chosen.max_blocks = requested.max_blocks; }
  if (requested.order != locality_order::automatic) { chosen.order = requested.order; }
  chosen.align_128 = requested.align_128;
  chosen.block_threads = requested.block_threads;
  chosen.check_indices = requested.check_indices;
  chosen.unique_indices = requested.unique_indices;
  detail::check_gather_knobs(chosen, "gather selector");
  GNNDIRECT_EXPECTS(chosen.tile_size != 0 && chosen.rows_in_flight != 0,
                    "gather selector: left tile_size or rows_in_flight automatic (0)");
  GNNDIRECT_EXPECTS(chosen.order != locality_order::automatic, "gather selector: left order automatic");
  return chosen;
}

inline gather_policy select_gather_policy(gather_policy requested, const gather_device& device,
                                          const gather_source& source)
{
  return select_gather_policy(default_gather_selector{}, requested, device, source);
}

inline bool operator==(const machine_ceilings& a, const machine_ceilings& b) noexcept
{
  return a.zero_copy_read_gbps == b.zero_copy_read_gbps && a.copy_engine_gbps == b.copy_engine_gbps &&
         a.saturating_loads_in_flight == b.saturating_loads_in_flight;
}
inline bool operator!=(const machine_ceilings& a, const machine_ceilings& b) noexcept { return !(a == b); }

inline bool operator==(const gather_device& a, const gather_device& b) noexcept
{
  return a.cc_major == b.cc_major && a.cc_minor == b.cc_minor && a.sm_count == b.sm_count && a.ceilings == b.ceilings;
}
inline bool operator!=(const gather_device& a, const gather_device& b) noexcept { return !(a == b); }

inline bool operator==(const gather_source& a, const gather_source& b) noexcept
{
  return a.kind == b.kind && a.row_bytes == b.row_bytes && a.count == b.count &&
         a.decode_expansion == b.decode_expansion;
}
inline bool operator!=(const gather_source& a, const gather_source& b) noexcept { return !(a == b); }

inline std::ostream& operator<<(std::ostream& out, const machine_ceilings& c)
{
  return out << "machine_ceilings{zero_copy_read_gbps=" << c.zero_copy_read_gbps
             << ", copy_engine_gbps=" << c.copy_engine_gbps
             << ", saturating_loads_in_flight=" << c.saturating_loads_in_flight << "}";
}

inline std::ostream& operator<<(std::ostream& out, const gather_device& d)
{
  return out << "gather_device{cc=" << d.cc_major << "." << d.cc_minor << ", sm_count=" << d.sm_count
             << ", ceilings=" << d.ceilings << "}";
}

inline std::ostream& operator<<(std::ostream& out, const gather_source& s)
{
  return out << "gather_source{kind=" << to_string(s.kind) << ", row_bytes=" << s.row_bytes << ", count=" << s.count
             << ", decode_expansion=" << s.decode_expansion << "}";
}

GNNDIRECT_NAMESPACE_END
