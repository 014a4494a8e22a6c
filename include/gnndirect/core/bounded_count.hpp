#pragma once
/// @file bounded_count.hpp
/// @brief A count that lives on the device, with the host-known bound every launch is sized by
/// (host-compilable).
///
/// A framework that composes its own hops (sample_neighbors_async, relabel_async) feeds one
/// hop's *num_src to the next as its dst count without reading it back, so the hops stay in one
/// stream of work that a CUDA graph can capture:
/// @code
///   gnndirect::bounded_count const next{block0.num_src, bounds[1].num_dst};
///   gnndirect::sample_neighbors_async(stream, csr, block0.src_nodes, next, fanout1, 1, sampler,
///                                     policy, hop1, ws1);
/// @endcode
/// Launches, capacity checks and workspaces are sized by `bound`; the device reads *value when
/// the work runs and clamps it to [0, bound], so a wrong count never reaches past an output.

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/version.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// A count read on the device (*value, clamped to [0, bound]) or, with a null value, the
/// host-known count `bound` itself. Trivially copyable; kernels take it by value.
struct bounded_count {
  const std::int64_t* value{nullptr};  ///< device-visible count read when the work runs, or null
  std::int64_t bound{0};               ///< upper bound (the count itself when value is null)

  /// The count on the device: *value clamped to [0, bound], or bound when value is null.
  /// Device code (and host code for host-visible memory).
  /// @return the count
  GNNDIRECT_HOST_DEVICE std::int64_t get() const noexcept
  {
    if (value == nullptr) { return bound; }
    std::int64_t const n = *value;
    return n < 0 ? 0 : (n < bound ? n : bound);
  }
};

GNNDIRECT_NAMESPACE_END
