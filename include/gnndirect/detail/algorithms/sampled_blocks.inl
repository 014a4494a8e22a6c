#pragma once
// Definitions of algorithms/sampled_blocks.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
blocks_view<Offset, Index> sampled_blocks<Offset, Index>::view() const
{
  return detail::blocks_view_into<Offset, Index, decltype(layers), blocks_view<Offset, Index>>(layers,
                                                                                               layer_views);
}

GNNDIRECT_NAMESPACE_END
