#pragma once
/// @file sampled_refs.hpp
/// @brief Internals of core/sampled_refs.hpp: the block_ref of an owner's five arrays (not part of
/// the API; host-compilable).

#include <gnndirect/core/version.hpp>

#include <cstddef>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// Declared here, defined in core/sampled_refs.hpp (which includes this header first), so that
/// block_ref_of can name its return type.
template <class Offset, class Index>
struct block_ref;

namespace detail {
/// The block_ref of any owner whose five arrays have data() and size() (buffer, std::vector).
template <class Offset, class Index, class Owner>
block_ref<Offset, Index> block_ref_of(const Owner& b) noexcept
{
  auto const n = [](std::size_t size) { return static_cast<std::int64_t>(size); };
  return {{b.dst_nodes.data(), n(b.dst_nodes.size())},
          {b.src_nodes.data(), n(b.src_nodes.size())},
          {b.offsets.data(), n(b.offsets.size())},
          {b.indices.data(), n(b.indices.size())},
          {b.edge_ids.data(), n(b.edge_ids.size())}};
}
}  // namespace detail
GNNDIRECT_NAMESPACE_END
