#pragma once
// Definitions of reference/reference_blocks.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

namespace host {

template <class Offset, class Index>
auto reference_blocks<Offset, Index>::view() const -> blocks_view<Offset, Index>
{
  return gnndirect::detail::blocks_view_into<Offset, Index, decltype(layers), blocks_view<Offset, Index>>(
    layers, layer_views);
}

}  // namespace host

GNNDIRECT_NAMESPACE_END
