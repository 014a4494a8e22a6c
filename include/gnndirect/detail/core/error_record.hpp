#pragma once
/// @file error_record.hpp
/// @brief The device error record itself and its two ways of reporting (host-compilable, so
/// that device-layer types such as sampled_output can report into one; internal). The host side
/// (reset, value capture, check) is error_flag.cuh.

#include <gnndirect/core/config.hpp>

#include <cstddef>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// What a checked kernel records. `position` is the smallest bad position reported (all ones when
/// none); `value` is the value found there: written by capture_value_async after a kernel that
/// reported with report_min, or together with the position by report_first.
struct error_record {
  unsigned long long position;
  long long value;
};

/// error_record::position of a clean record (the memset pattern 0xFF..FF).
inline constexpr unsigned long long no_bad_position = ~0ull;

/// error_record::position while a report_first writes the value (never a real position: those
/// are int64 values >= 0).
inline constexpr unsigned long long locked_position = ~0ull - 1;

/// Bytes of workspace one error record needs (callers that carve it out of a larger workspace
/// must keep it 8-byte aligned).
inline constexpr std::size_t error_record_bytes = sizeof(error_record);

/// Records `position` as bad, keeping the minimum over concurrent reports (atomicMin); the value
/// is captured afterwards from the checked array. Device (a no-op on the host).
GNNDIRECT_HOST_DEVICE inline void report_min(error_record* record, std::int64_t position) noexcept
{
#if defined(__CUDA_ARCH__)
  atomicMin(&record->position, static_cast<unsigned long long>(position));
#else
  (void)record;
  (void)position;
#endif
}

/// Records (`position`, `value`) when `position` is below the recorded one, as one pair: for
/// values that no later kernel could read back (a sampler's returned count, an emitted slot).
/// The position word doubles as a lock (locked_position) while the value is written, so the
/// record always holds the smallest position with its own value, whatever the interleaving of
/// concurrent reports. Only error paths call it; a report that cannot lower the position costs
/// one read. Device; on the host (emulated tests) a plain sequential update.
GNNDIRECT_HOST_DEVICE inline void report_first(error_record* record, std::int64_t position,
                                               long long value) noexcept
{
  auto const p = static_cast<unsigned long long>(position);
#if defined(__CUDA_ARCH__)
  volatile unsigned long long* const word = &record->position;
  unsigned long long seen = *word;
  while (seen == locked_position || p < seen) {
    if (seen == locked_position) {  // another report is writing its value: wait for its position
      seen = *word;
      continue;
    }
    unsigned long long const before = atomicCAS(&record->position, seen, locked_position);
    if (before == seen) {
      record->value = value;
      __threadfence();
      atomicExch(&record->position, p);
      return;
    }
    seen = before;
  }
#else
  if (p < record->position) {
    record->position = p;
    record->value = value;
  }
#endif
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
