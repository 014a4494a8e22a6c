#pragma once
// Definitions of reference/reference_blocks.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

namespace host {

template <class Offset, class Index>
auto reference_blocks<Offset, Index>::ref() const -> blocks_ref<Offset, Index>
{
  blocks_ref<Offset, Index> out;
  for (auto const& layer : layers) { out.layers.push_back(gnndirect::detail::block_ref_of<Offset, Index>(layer)); }
  return out;
}

}  // namespace host

GNNDIRECT_NAMESPACE_END
