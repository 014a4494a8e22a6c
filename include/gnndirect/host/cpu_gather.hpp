#pragma once
/// @file cpu_gather.hpp
/// @brief The CPU-centric feature path: all-core row gather (index_select) and scatter on the
/// host, and a double-buffered loader that gathers into one pinned staging buffer while the other
/// is being copied to the GPU (host-compilable; the copy part calls the CUDA runtime).
///
/// This is what a good CPU loader does (PyTorch's pinned-memory DataLoader, DGL's CPU path):
/// the gather of piece k+1 overlaps the H2D copy of piece k, so the epoch costs about
/// max(gather, copy) rather than their sum.

#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/util/worker_pool.hpp>

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

/// Packs rows: dst + i * src.cols receives src.row(ids[i]) for i in [0, n), on all the pool's
/// workers (chunks of 1024 rows). src must be CPU-readable, dst a host array of n * src.cols.
/// Blocking. @throws index_out_of_range ("indices", first bad position) when an id is outside
/// [0, src.rows): dst then holds unspecified rows; invalid_argument for null pointers.
/// @tparam S element type (may be const)  @tparam Index int32 or int64 id type
/// @param pool the workers  @param src table read  @param ids `n` row ids  @param n their number
/// @param dst host array written
template <class S, class Index>
void gather_rows(worker_pool& pool, table_view<S> src, const Index* ids, std::int64_t n,
                 std::remove_const_t<S>* dst);

/// Writes rows: dst.row(ids[i]) receives src + i * dst.cols for i in [0, n), on all the pool's
/// workers. Each worker owns a range of destination rows and walks the ids in order, so a row
/// named twice ends as a sequential loop leaves it (the last occurrence wins, whole row) without
/// locks. Every id is checked before any row is written. Blocking.
/// @throws index_out_of_range ("indices", first bad position) when an id is outside
/// [0, dst.rows), with dst unchanged; invalid_argument for null pointers.
/// @tparam T element type  @tparam Index int32 or int64 id type
/// @param pool the workers  @param src host array of n * dst.cols elements  @param ids `n` row
/// ids  @param n their number  @param dst table written (CPU-writable)
template <class T, class Index>
void scatter_rows(worker_pool& pool, const T* src, const Index* ids, std::int64_t n, table_view<T> dst);

/// Double-buffered CPU gather into the GPU: rows are gathered on the CPU into one of two pinned
/// staging buffers while the other buffer's cudaMemcpyAsync is in flight.
///
/// A gather is cut into pieces of at most slot_bytes; piece k waits only for the copy that last
/// used its slot (a CUDA event), so CPU gather and PCIe copy overlap within a batch and across
/// consecutive batches. Not thread-safe: one loader thread per object.
/// @tparam T element type (trivially copyable)
template <class T>
class staged_gather {
  static_assert(std::is_trivially_copyable_v<T>, "staged_gather: rows must be trivially copyable");

 public:
  /// Creates the two events; staging is allocated on first use.
  /// @param slot_bytes bytes per staging buffer (two are allocated, pinned, on first use; grown
  /// to one row when a row is larger)
  /// @param host_mr where the two staging buffers come from: mapped page-locked memory (see
  /// core/host_resource.hpp); default pinned_host_resource (cudaHostAlloc). The resource must
  /// outlive this object. @throws cuda_error when events cannot be created.
  explicit staged_gather(std::size_t slot_bytes = std::size_t{16} << 20, host_resource_ref host_mr = {});
  /// Waits for the copies in flight, then frees the staging and the events.
  ~staged_gather();
  staged_gather(const staged_gather&) = delete;
  staged_gather& operator=(const staged_gather&) = delete;

  /// Enqueues device_dst[i * src.cols ..] = src.row(ids[i]) for i in [0, n) on `stream`.
  /// Returns when the last piece's copy is enqueued (in flight): stream-ordered consumers may
  /// use device_dst; call synchronize() before reading it from the host. The CPU work blocks.
  /// @tparam Index int32 or int64 id type
  /// @param pool CPU workers that gather  @param src CPU-readable table  @param ids host ids
  /// @param n their number  @param stream stream the copies are enqueued on
  /// @param device_dst device (or any cudaMemcpy-able) array of n * src.cols elements
  /// @throws index_out_of_range as gather_rows (pieces already enqueued still land); cuda_error.
  template <class Index>
  void gather(worker_pool& pool, table_view<const T> src, const Index* ids, std::int64_t n,
              T* device_dst, cudaStream_t stream);

  /// Blocks until both staging buffers' copies have completed.
  void synchronize();

  /// @return bytes of each of the two staging buffers (0 before first use)
  std::size_t slot_bytes() const noexcept { return slot_capacity_; }

 private:
  void ensure_slots(std::size_t row_bytes);

  std::size_t slot_bytes_;
  host_resource_ref host_mr_;  // source of the pinned staging
  std::size_t slot_capacity_{0};
  std::array<buffer<T>, 2> slots_{};
  std::array<cudaEvent_t, 2> events_{};
  int next_{0};
};

}  // namespace host
GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/host/cpu_gather.inl>
