#pragma once
/// @file gather_reference.hpp
/// @brief Host reference of gather and scatter (all cores): the semantics the GPU must match, and
/// the CPU-centric baseline of the benchmarks (host-compilable).
///
/// The GPU tests compare gather/scatter (algorithms/gather.cuh) with these byte for byte, on every
/// placement. Both take host addresses: table_views of pageable, pinned or registered memory.

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
/// @param dst count-row table written  @param threads worker threads (default: all cores); the
///        result does not depend on it
/// @throws index_out_of_range (checked first; dst untouched), invalid_argument. Blocking.
template <class S, class D, class Index>
void gather_reference(table_view<S> src, const Index* indices, std::int64_t count, table_view<D> dst,
                      int threads = default_thread_count());

/// dst.row(indices[i]) = src.row(i) on the CPU; with duplicates the last source row wins.
/// Single pass in index order, so duplicates resolve deterministically (one thread: the
/// last-occurrence rule needs the order). @throws as gather_reference.
/// @tparam S, D, Index as gather_reference
/// @param src count-row table read  @param indices `count` row indices into dst
/// @param count their number  @param dst table written
template <class S, class D, class Index>
void scatter_reference(table_view<S> src, const Index* indices, std::int64_t count, table_view<D> dst);

}  // namespace host
GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/reference/gather_reference.inl>
