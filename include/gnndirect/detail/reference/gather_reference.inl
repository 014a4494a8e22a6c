#pragma once
// Definitions of reference/gather_reference.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

template <class S, class D, class Index>
void gather_reference(table_view<S> src, const Index* indices, std::int64_t count, table_view<D> dst,
                      int threads)
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
