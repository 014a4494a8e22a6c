#pragma once
/// @file tiered_table.cuh
/// @brief tiered_table<T>: keep the hottest rows of a host-resident table in device memory, up to
/// a byte budget, behind the same gather call; rebuildable between epochs.
///
/// Power-law graphs concentrate feature reads on few nodes, so a small device tier serves a large
/// share of a batch from HBM while the rest still streams over the host link, in one launch and in
/// caller order (see cache/hot_set.cuh for choosing the rows).

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/cache/tiered_source.hpp>
#include <gnndirect/cache/tiered_view.hpp>
#include <gnndirect/core/config.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/detail/core/launch.cuh>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/detail/cache/tiered_table.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN

/// Owner of the device tier of a host-resident table (the table itself is not owned).
///
/// Holds a slot map (4 bytes per row, device memory) and up to capacity() cached rows, both from
/// the memory resource it was given, which it keeps (with the stream) to return them and for
/// rebuild's scratch. Move-only.
/// @tparam T element type of the table
template <class T>
class tiered_table {
 public:
  /// Allocates synchronously; the tier starts empty.
  /// @param rows every row, in a host-resident placement (rows.kind pinned, registered or
  ///        managed_host; device-visible view); must outlive this. A device-resident table is
  ///        refused: every row is in HBM already, and a tier would only copy HBM to HBM.
  /// @param budget_bytes device bytes for cached rows (the slot map comes on top)
  /// @param mr resource of the cache and the slot map (synchronous owners, as table's: allocated
  ///        on the legacy default stream and waited for; returned after waiting for the device)
  ///        and of rebuild's scratch; default: the device's default pool. Must outlive the tier.
  /// @throws invalid_argument (device-resident source, more than 2^31 - 1 cached rows, a bad
  ///         view) before allocating anything; allocation_error (or what `mr` throws).
  tiered_table(table_view<const T> rows, std::size_t budget_bytes, resource_ref mr = {});

  /// As above, with the cache and the slot map allocated stream-ordered on `stream` from `mr`
  /// (e.g. a framework's caching allocator); `stream` and `mr` must outlive the tier, which
  /// returns its memory on `stream`. Synchronises `stream` once (the empty tier).
  /// @param rows, budget_bytes as above  @param stream allocation (and release) stream
  /// @param mr the resource
  /// @throws invalid_argument (as above), allocation_error (or what `mr` throws).
  tiered_table(table_view<const T> rows, std::size_t budget_bytes, cudaStream_t stream, resource_ref mr);

  /// @return rows that fit in the budget
  std::int64_t capacity() const noexcept { return capacity_; }
  /// @return rows cached now
  std::int64_t cached_rows() const noexcept { return cached_; }
  /// @return device bytes held (cached rows plus the slot map)
  std::size_t device_bytes() const noexcept { return cache_.bytes() + slot_of_.bytes(); }

  /// Empties the tier (every row served from host memory): resets the slot map on `stream`, the
  /// stream the tier's gathers run on, and waits for it. Work enqueued earlier on `stream` (a
  /// gather still reading the tier) finishes first; gathers of this tier on *other* streams must
  /// be finished by the caller. @param stream the tier's gather stream  @throws cuda_error.
  void clear(cudaStream_t stream);
  /// Same on the legacy default stream, after waiting for the whole device (so that it is ordered
  /// with gathers on non-blocking streams too). Prefer clear(stream). @throws cuda_error.
  void clear();

  /// Caches the first min(count, capacity()) rows of `hot` (device-visible ids, most valuable
  /// first; e.g. from hot_rows_by_degree or hot_rows_by_count), replacing the previous tier.
  /// Every step (slot-map reset, row copy, slot assignment) is enqueued on `stream` -- the stream
  /// of the tier's gathers -- in that order, so a gather enqueued on `stream` before the call
  /// still sees the old tier and one enqueued after sees the new one; gathers on other streams
  /// must be finished by the caller. Synchronous (call between epochs).
  /// @throws index_out_of_range for a bad id (the tier is then empty), cuda_error.
  /// @tparam Index int32 or int64 row id type
  /// @param stream the tier's gather stream  @param hot the ids  @param count their number
  template <class Index>
  void rebuild(cudaStream_t stream, const Index* hot, std::int64_t count);

  /// @return view for gathers (valid until the next rebuild/clear or destruction)
  tiered_view<T> view() const noexcept { return {host_, cache_.data(), slot_of_.data(), cached_}; }

  /// Scatter target that writes through: scatter(stream, src, indices, n, tier.write_source(rows))
  /// writes each host row and, when the row is cached, its HBM copy, so later gathers of the tier
  /// see the new values. `rows` is the writable view of the table this tier was made over (the
  /// tier keeps a read-only one). Valid as view(). @throws invalid_argument when `rows` is not
  /// that table (address, shape or stride differ).
  /// @param rows the writable view of the table  @return the write-through source
  tiered_write_source<T> write_source(table_view<T> rows) const;

 private:
  /// `rows` after the checks every constructor makes before allocating.
  /// @throws invalid_argument naming what is wrong.
  static table_view<const T> checked_source(const table_view<const T>& rows);
  /// Rows of `rows` that fit in `budget_bytes`. @throws invalid_argument beyond 2^31 - 1 rows.
  static std::int64_t capacity_for(const table_view<const T>& rows, std::size_t budget_bytes);

  /// Enqueues the slot-map reset (every row to "not cached") on `stream`.
  void clear_async(cudaStream_t stream);

  table_view<const T> host_;
  std::int64_t capacity_;
  buffer<T> cache_;
  buffer<std::int32_t> slot_of_;
  resource_ref mr_{};  // where cache_ and slot_of_ came from; scratch of rebuild's gather
  std::int64_t cached_{0};
};

/// Enqueues dst.row(i) = row indices[i] of the tiered table: cached rows from device memory, the
/// others from the host tier, one launch, caller order (the kernel is instantiated for
/// tiered_source, so plain gathers pay nothing for the tier). Same contract as gather_async (size
/// the workspace with gather_workspace_bytes for src.host; call gather_check afterwards when
/// checked; device_count as for gather_async). Unless the policy sets a block budget, the full
/// grid is used (most rows come from HBM).
/// @tparam T element type of the table  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, ws, policy, device_count as gather_async
template <class T, class D, class Index>
void gather_async(cudaStream_t stream, const tiered_view<T>& src, const Index* indices, std::int64_t count,
                  table_view<D> dst, workspace_view ws, const gather_policy& policy = {},
                  const std::int64_t* device_count = nullptr);

/// Enqueues a decoding gather from encoded rows behind an HBM tier of them: `tier` is the view of
/// a tiered_table<std::uint8_t> made over `src`'s bytes (table_view<const std::uint8_t>(src.data,
/// src.rows, src.stride_bytes, src.stride_bytes, src.kind), e.g. encoded_table::bytes_view()), so
/// the same budget holds 4x (int8) to 8x (4-bit) the rows of an fp32 tier. As the tiered gather
/// above; dst row i = row indices[i] decoded into D. @throws invalid_argument when `tier` was not
/// made over `src`'s bytes, and as gather_async.
/// @tparam Codec the view's codec  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, ws, policy, device_count as gather_async
/// @param tier the HBM tier of the encoded rows
template <class Codec, class D, class Index>
void gather_async(cudaStream_t stream, const encoded_view<Codec>& src, const tiered_view<std::uint8_t>& tier,
                  const Index* indices, std::int64_t count, table_view<D> dst, workspace_view ws,
                  const gather_policy& policy = {}, const std::int64_t* device_count = nullptr);

/// Synchronous form of the tiered decoding gather (scratch from `mr`). @throws as gather().
/// @tparam Codec the view's codec  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, tier, indices, count, dst, policy as above  @param mr scratch resource
template <class Codec, class D, class Index>
void gather(cudaStream_t stream, const encoded_view<Codec>& src, const tiered_view<std::uint8_t>& tier,
            const Index* indices, std::int64_t count, table_view<D> dst, const gather_policy& policy = {},
            resource_ref mr = {});

/// Synchronous tiered gather (as gather() for a plain table; scratch from `mr`). @throws as gather().
/// @tparam T element type of the table  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, policy as gather()  @param mr scratch resource
template <class T, class D, class Index>
void gather(cudaStream_t stream, const tiered_view<T>& src, const Index* indices, std::int64_t count,
            table_view<D> dst, const gather_policy& policy = {}, resource_ref mr = {});

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/cache/tiered_table.inl>
