#pragma once
// Definitions of owners/coo.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Index>
coo_view<Index> host_coo<Index>::view() const noexcept
{
  return {src.data(), dst.data(), weights.empty() ? nullptr : weights.data(), num_edges(),
          num_nodes, memory_kind::registered};
}

template <class Index>
coo_view<Index> coo_graph<Index>::view() const noexcept
{
  return {src.data(), dst.data(), weights.empty() ? nullptr : weights.data(), num_edges(),
          num_nodes, src.kind()};
}

GNNDIRECT_NAMESPACE_END
