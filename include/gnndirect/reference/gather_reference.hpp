#pragma once
/// @file gather_reference.hpp
/// @brief Host reference of gather and scatter (all cores): the semantics the GPU must match, and
/// the CPU-centric baseline of the benchmarks (host-compilable).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/reference/gather_reference.hpp>
#include <gnndirect/util/parallel.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

/// dst.row(i) = src.row(indices[i]) on the CPU with `threads` threads (host addresses).
/// @tparam S, D source and destination element types (S may be const; otherwise equal)
/// @tparam Index int32 or int64 index type
/// @param src table read  @param indices `count` row indices into src  @param count their number
/// @param dst count-row table written  @param threads worker threads
/// @throws index_out_of_range (checked first; dst untouched), invalid_argument. Blocking.
template <class S, class D, class Index>
void gather_reference(table_view<S> src, const Index* indices, std::int64_t count, table_view<D> dst,
                      int threads = default_thread_count())
{
  detail::check_reference_shapes(src, dst, count, dst.rows);
  detail::check_indices(indices, count, src.rows);
  std::size_t const bytes = dst.row_bytes();
  parallel_for_ranges(
    count,
    [&](std::int64_t begin, std::int64_t end, int) {
      for (std::int64_t i = begin; i < end; ++i) {
        std::memcpy(dst.row(i), src.row(static_cast<std::int64_t>(indices[i])), bytes);
      }
    },
    threads);
}

/// dst.row(indices[i]) = src.row(i) on the CPU; with duplicates the last source row wins.
/// Single pass in index order, so duplicates resolve deterministically. @throws as gather_reference.
/// @tparam S, D, Index as gather_reference
/// @param src count-row table read  @param indices `count` row indices into dst
/// @param count their number  @param dst table written
template <class S, class D, class Index>
void scatter_reference(table_view<S> src, const Index* indices, std::int64_t count, table_view<D> dst)
{
  detail::check_reference_shapes(src, dst, count, src.rows);
  detail::check_indices(indices, count, dst.rows);
  for (std::int64_t i = 0; i < count; ++i) {
    std::memcpy(dst.row(static_cast<std::int64_t>(indices[i])), src.row(i), dst.row_bytes());
  }
}

}  // namespace host
GNNDIRECT_NAMESPACE_END
