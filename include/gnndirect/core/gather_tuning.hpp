#pragma once
/// @file gather_tuning.hpp
/// @brief The gather's tuning selector, in CUB's policy + selector shape (host-compilable, pure):
/// what a selector is told (the device's compute capability and SMs, the machine's measured
/// link ceilings, the source's placement, row size, batch and codec), the library's default
/// selector, and select_gather_policy, which applies any selector and checks what it returns.
///
/// A gather_policy's zero / `automatic` fields are choices left to a selector; the fields the
/// caller set are never changed. The default selector reproduces the defaults measured on the
/// H200 (docs/design.md §3) whenever the ceilings are unknown or as low as the H200's, and raises
/// the block cap of host-memory gathers to what a machine whose link needs more loads in flight
/// measured (measure_machine_ceilings, algorithms/machine_ceilings.cuh). A selector is any type
/// callable as `gather_policy (gather_policy requested, const gather_device&, const
/// gather_source&) const` (is_gather_selector_v); the preparer and the pipeline take one as a
/// template parameter:
/// @code
///   struct wide_host_gathers {  // every host-memory gather on 256 blocks
///     gnndirect::gather_policy operator()(gnndirect::gather_policy p, const gnndirect::gather_device& d,
///                                         const gnndirect::gather_source& s) const
///     {
///       if (p.max_blocks == 0 && gnndirect::is_host_resident(s.kind)) { p.max_blocks = 256; }
///       return gnndirect::default_gather_selector{}(p, d, s);
///     }
///   };
/// @endcode

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/core/memory_kind.hpp>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// What a machine's host link sustains, measured on it (measure_machine_ceilings); every field 0
/// means "not measured", and a selector then keeps the defaults measured on the H200.
struct machine_ceilings {
  /// Sequential zero-copy read of mapped pinned memory by the SMs, GB/s (decimal).
  double zero_copy_read_gbps{0};
  /// Pinned host-to-device cudaMemcpy (the copy engines), GB/s (decimal).
  double copy_engine_gbps{0};
  /// 16-byte loads the SMs must keep in flight for the zero-copy read to reach
  /// zero_copy_read_gbps (within 3%): by Little's law the link's bandwidth times its latency, in
  /// loads. A gather keeps max_blocks x block_threads x rows_in_flight of them in flight.
  std::int64_t saturating_loads_in_flight{0};
};

/// What a gather selector knows of the device it tunes for; 0 fields are unknown.
struct gather_device {
  int cc_major{0};               ///< compute capability, major (9 on the H100 and the H200)
  int cc_minor{0};               ///< compute capability, minor
  int sm_count{0};               ///< streaming multiprocessors
  machine_ceilings ceilings{};   ///< the host link's measured ceilings
};

/// What a gather selector knows of the rows it moves.
struct gather_source {
  memory_kind kind{memory_kind::device};  ///< placement of the source table
  std::size_t row_bytes{0};    ///< bytes loaded per row (the encoded row of a decoding gather)
  std::int64_t count{0};       ///< rows in the batch (its bound when the count is on the device)
  int decode_expansion{1};     ///< the codec's decoded bytes per loaded byte (1: a plain copy)
};

/// The device the library's defaults were measured on (docs/design.md §3): an H200 (compute
/// capability 9.0, 132 SMs) whose zero-copy read reaches 51 GB/s beside 50.7 GB/s of copy
/// engines, saturated by 8192 loads in flight (16 blocks of 256 threads at 2 rows in flight
/// gave 51 GB/s at 512-B rows). The default selector gives it exactly its historical choices.
inline constexpr gather_device h200_reference_device{9, 0, 132, machine_ceilings{51.2, 50.7, 8192}};

/// Threads an SM of compute capability major.minor keeps resident (the CUDA Programming Guide's
/// per-capability table: 1024 on 7.5; 1536 on 8.6, 8.7, 8.9 and 12.x; 2048 otherwise, unknown
/// capabilities included). Pure.
/// @param cc_major, cc_minor the compute capability  @return resident threads per SM
constexpr int resident_threads_per_sm(int cc_major, int cc_minor) noexcept
{
  if (cc_major == 7 && cc_minor == 5) { return 1024; }
  if ((cc_major == 8 && (cc_minor == 6 || cc_minor == 7 || cc_minor == 9)) || cc_major == 12) { return 1536; }
  return 2048;
}

/// The library's gather selector. Fills, of `requested`, only the automatic fields:
/// - tile_size: the narrowest tile whose 16-byte lanes cover the row (plus its head within the
///   128-B line when align_128), at most 8 threads for a decode expanding >= 4 times;
/// - rows_in_flight: 4 for one-pass rows, 2 for two passes or heavy decodes, else 1;
/// - max_blocks, host-resident sources only (device-resident ones keep 0, a full grid):
///   host_gather_max_blocks(block_threads), times expansion / 4 for a heavy decode (H200 sweep
///   gather_codec_tune, 2026-12-05, 602 features: int8 3.45 -> 3.91x, fp8 3.29 -> 3.93x, 4-bit
///   3.95 -> 6.95x the link peak in decoded bytes); raised, when the device's ceilings need more
///   loads in flight than that cap's 8192 threads x scale x rows_in_flight, to the blocks that
///   keep saturating_loads_in_flight loads in flight, up to what the SMs hold
///   resident at once (sm_count x resident_threads_per_sm / block_threads; more blocks would queue
///   and add no loads in flight). The H100 machine's link needs about 8x the H200's.
/// - order: sorted for host-resident sources and batches of at least sort_min_batch rows.
/// Pure; never touches the GPU.
struct default_gather_selector {
  /// Resolves the automatic fields of `requested`.
  /// @param requested the caller's policy (validated by select_gather_policy)
  /// @param device the device and its ceilings  @param source the rows moved
  /// @return the policy with every knob explicit
  inline gather_policy operator()(gather_policy requested, const gather_device& device,
                                  const gather_source& source) const;
};

/// True when `S` is a gather selector: a const `S` is callable as
/// `gather_policy(gather_policy, const gather_device&, const gather_source&)`.
/// @tparam S the type to test
template <class S>
inline constexpr bool is_gather_selector_v =
  std::is_invocable_r_v<gather_policy, const S&, gather_policy, const gather_device&, const gather_source&>;

/// The trait form of is_gather_selector_v (a std::bool_constant).  @tparam S the type to test
template <class S>
struct is_gather_selector : std::bool_constant<is_gather_selector_v<S>> {};

/// Validates `requested` and `source`, lets `selector` fill the automatic fields, then keeps
/// every field the caller set (a selector only chooses what was left to it) and checks that the
/// result has every knob explicit and valid. Pure; never touches the GPU.
/// @tparam Selector a gather selector (is_gather_selector_v)
/// @param selector the selector  @param requested the caller's policy (0 / automatic: choose)
/// @param device the device and its ceilings ({}: unknown, the H200's defaults)
/// @param source the rows moved
/// @return the resolved policy
/// @throws invalid_argument for a bad tile size, rows in flight, block size or budget in
/// `requested`, an expansion < 1 in `source`, or a selector result with an
/// automatic or invalid knob (naming it).
template <class Selector>
gather_policy select_gather_policy(const Selector& selector, gather_policy requested, const gather_device& device,
                                   const gather_source& source);

/// select_gather_policy with default_gather_selector.
/// @param requested the caller's policy  @param device the device ({}: unknown)
/// @param source the rows moved  @return the resolved policy
/// @throws invalid_argument as the selector form.
inline gather_policy select_gather_policy(gather_policy requested, const gather_device& device,
                                          const gather_source& source);

/// Ceilings compare equal when every field is equal.  @param a, b the ceilings  @return whether they match
inline bool operator==(const machine_ceilings& a, const machine_ceilings& b) noexcept;
/// Negation of `==`.  @param a, b the ceilings  @return whether any field differs
inline bool operator!=(const machine_ceilings& a, const machine_ceilings& b) noexcept;
/// Devices compare equal when every field is equal.  @param a, b the devices  @return whether they match
inline bool operator==(const gather_device& a, const gather_device& b) noexcept;
/// Negation of `==`.  @param a, b the devices  @return whether any field differs
inline bool operator!=(const gather_device& a, const gather_device& b) noexcept;
/// Sources compare equal when every field is equal.  @param a, b the sources  @return whether they match
inline bool operator==(const gather_source& a, const gather_source& b) noexcept;
/// Negation of `==`.  @param a, b the sources  @return whether any field differs
inline bool operator!=(const gather_source& a, const gather_source& b) noexcept;
/// Prints every field: `machine_ceilings{zero_copy_read_gbps=51.2, copy_engine_gbps=50.7,
/// saturating_loads_in_flight=8192}`.  @param out the stream  @param c the ceilings  @return out
inline std::ostream& operator<<(std::ostream& out, const machine_ceilings& c);
/// Prints every field: `gather_device{cc=9.0, sm_count=132, ceilings=machine_ceilings{...}}`.
/// @param out the stream  @param d the device  @return out
inline std::ostream& operator<<(std::ostream& out, const gather_device& d);
/// Prints every field: `gather_source{kind=pinned, row_bytes=512, count=1048576, decode_expansion=1}`.
/// @param out the stream  @param s the source  @return out
inline std::ostream& operator<<(std::ostream& out, const gather_source& s);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/gather_tuning.inl>
