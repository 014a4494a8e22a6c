#pragma once
// Definitions of host/cpu_gather.hpp (included at its end; not part of the API).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/detail/host/first_bad.hpp>

#include <algorithm>
#include <cstring>

GNNDIRECT_NAMESPACE_BEGIN

namespace host {

template <class S, class Index>
void gather_rows(worker_pool& pool, table_view<S> src, const Index* ids, std::int64_t n, std::remove_const_t<S>* dst)
{
  GNNDIRECT_EXPECTS(n >= 0 && (n == 0 || (ids != nullptr && dst != nullptr && src.data != nullptr)),
                    "gather_rows: null ids, dst or source table");
  constexpr std::int64_t grain = 1024;
  std::size_t const bytes = src.row_bytes();
  detail::first_bad bad;
  pool.run((n + grain - 1) / grain, [&](std::int64_t task, int) {
    std::int64_t const end = std::min(n, (task + 1) * grain);
    for (std::int64_t i = task * grain; i < end; ++i) {
      auto const r = static_cast<std::int64_t>(ids[i]);
      if (r < 0 || r >= src.rows) {
        bad.note(i);
        continue;
      }
      std::memcpy(dst + i * src.cols, src.row(r), bytes);
    }
  });
  if (bad.any()) {
    std::int64_t const p = bad.position.load();
    throw index_out_of_range(__FILE__, __LINE__, "indices", p, static_cast<std::int64_t>(ids[p]), src.rows);
  }
}

template <class T, class Index>
void scatter_rows(worker_pool& pool, const T* src, const Index* ids, std::int64_t n, table_view<T> dst)
{
  GNNDIRECT_EXPECTS(n >= 0 && (n == 0 || (ids != nullptr && src != nullptr && dst.data != nullptr)),
                    "scatter_rows: null ids, src or destination table");
  std::int64_t const first_bad = detail::first_out_of_range(pool, ids, n, dst.rows);
  if (first_bad < n) {
    throw index_out_of_range(__FILE__, __LINE__, "indices", first_bad,
                             static_cast<std::int64_t>(ids[first_bad]), dst.rows);
  }
  std::size_t const bytes = dst.row_bytes();
  // Few rows: one pass. Otherwise one task per worker, each writing the rows of its range.
  std::int64_t const owners = n < 4096 ? 1 : std::min<std::int64_t>(pool.size(), dst.rows);
  pool.run(owners, [&](std::int64_t owner, int) {
    std::int64_t const lo = dst.rows * owner / owners;
    std::int64_t const hi = dst.rows * (owner + 1) / owners;
    for (std::int64_t i = 0; i < n; ++i) {
      auto const r = static_cast<std::int64_t>(ids[i]);
      if (r >= lo && r < hi) { std::memcpy(dst.row(r), src + i * dst.cols, bytes); }
    }
  });
}

template <class T>
staged_gather<T>::staged_gather(std::size_t slot_bytes, host_resource_ref host_mr)
  : slot_bytes_(slot_bytes),
    host_mr_(host_mr)
{
  for (auto& e : events_) { GNNDIRECT_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); }
}

template <class T>
staged_gather<T>::~staged_gather()
{
  for (auto& e : events_) {
    GNNDIRECT_CUDA_TRY_NOTHROW(cudaEventSynchronize(e));  // no copy may read freed staging
    GNNDIRECT_CUDA_TRY_NOTHROW(cudaEventDestroy(e));
  }
}

template <class T>
template <class Index>
auto staged_gather<T>::gather(
  worker_pool& pool, table_view<const T> src, const Index* ids, std::int64_t n, T* device_dst,
  cudaStream_t stream) -> void
{
  GNNDIRECT_EXPECTS(n == 0 || device_dst != nullptr, "staged_gather: null device destination");
  std::size_t const row_bytes = std::max<std::size_t>(src.row_bytes(), 1);
  ensure_slots(row_bytes);
  auto const piece = static_cast<std::int64_t>(slot_capacity_ / row_bytes);
  for (std::int64_t first = 0; first < n; first += piece) {
    std::int64_t const rows = std::min(piece, n - first);
    GNNDIRECT_CUDA_TRY(cudaEventSynchronize(events_[next_]));  // the slot's previous copy is done
    T* const staging = slots_[next_].host_data();
    gather_rows(pool, src, ids + first, rows, staging);
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(device_dst + first * src.cols, staging,
                                       static_cast<std::size_t>(rows) * src.row_bytes(),
                                       cudaMemcpyHostToDevice, stream));
    GNNDIRECT_CUDA_TRY(cudaEventRecord(events_[next_], stream));
    next_ ^= 1;
  }
}

template <class T>
auto staged_gather<T>::synchronize() -> void
{
  for (auto& e : events_) { GNNDIRECT_CUDA_TRY(cudaEventSynchronize(e)); }
}

template <class T>
auto staged_gather<T>::ensure_slots(std::size_t row_bytes) -> void
{
  std::size_t const want = std::max(slot_bytes_, row_bytes);
  if (slot_capacity_ >= want) { return; }
  synchronize();
  std::size_t const elements = (want + sizeof(T) - 1) / sizeof(T);
  for (auto& slot : slots_) { slot = buffer<T>(elements, memory_kind::pinned, {}, host_mr_); }
  slot_capacity_ = elements * sizeof(T);
}

}  // namespace host

GNNDIRECT_NAMESPACE_END
