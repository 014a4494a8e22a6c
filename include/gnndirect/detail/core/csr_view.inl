#pragma once
// Definitions of core/csr_view.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
GNNDIRECT_HOST_DEVICE Offset csr_view<Offset, Index>::degree(std::int64_t v) const noexcept
{
  return indptr[v + 1] - indptr[v];
}

template <class Offset, class Index>
GNNDIRECT_HOST_DEVICE Offset csr_view<Offset, Index>::edge_id(Offset e) const noexcept
{
  return edge_ids != nullptr ? edge_ids[e] : e;
}

GNNDIRECT_NAMESPACE_END
