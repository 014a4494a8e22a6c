#pragma once
// Definitions of host/cpu_blocks.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

template <class Offset, class Index>
auto cpu_blocks<Offset, Index>::view() const -> blocks_view<Offset, Index>
{
  return gnndirect::detail::blocks_view_into<Offset, Index, decltype(layers), blocks_view<Offset, Index>>(
    layers, layer_views);
}

template <class Offset, class Index>
auto cpu_blocks<Offset, Index>::num_edges() const noexcept -> std::int64_t
{
  std::int64_t e = 0;
  for (auto const& layer : layers) { e += layer.num_edges(); }
  return e;
}

}  // namespace host
GNNDIRECT_NAMESPACE_END
