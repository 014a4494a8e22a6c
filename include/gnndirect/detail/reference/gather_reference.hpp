#pragma once
/// @file gather_reference.hpp
/// @brief Internals of reference/gather_reference.hpp: the up-front index and shape checks of
/// the host gather and scatter (host-compilable; not part of the API).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/version.hpp>

#include <cstdint>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN
namespace host {
namespace detail {

/// Throws index_out_of_range for the first index outside [0, bound), before anything is copied.
template <class Index>
void check_indices(const Index* indices, std::int64_t count, std::int64_t bound)
{
  for (std::int64_t i = 0; i < count; ++i) {
    auto const value = static_cast<std::int64_t>(indices[i]);
    if (value < 0 || value >= bound) {
      throw index_out_of_range(__FILE__, __LINE__, "indices", i, value, bound);
    }
  }
}

/// Checks that src and dst match (element type, columns) and that `batch_rows` equals `count`.
template <class S, class D>
void check_reference_shapes(const table_view<S>& src, const table_view<D>& dst, std::int64_t count,
                            std::int64_t batch_rows)
{
  static_assert(std::is_same_v<std::remove_const_t<S>, D>,
                "host reference: source and destination element types differ");
  validate(src, "src");
  validate(dst, "dst");
  GNNDIRECT_EXPECTS(src.cols == dst.cols, "src and dst column counts differ");
  GNNDIRECT_EXPECTS(batch_rows == count, "batch rows differ from the index count");
}

}  // namespace detail
}  // namespace host
GNNDIRECT_NAMESPACE_END
