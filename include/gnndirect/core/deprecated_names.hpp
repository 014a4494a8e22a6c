#pragma once
/// @file deprecated_names.hpp
/// @brief The 0.1 names of the data views, kept for one release (0.2) as deprecated aliases of
/// their 0.2 names (host-compilable; declarations only).
///
/// 0.2 spells every trivially copyable, non-owning window onto data `*_view` (its owners hand it
/// out with view()); `*_ref` is kept for handles to a resource or service (resource_ref,
/// host_resource_ref, stream_ref, error_flag_ref), as libcu++'s cuda::mr::resource_ref. A use of
/// an old name compiles and warns ([[deprecated]]); scripts/migrate-0.2 rewrites a source tree,
/// and docs/CHANGELOG.md lists the renames. The owners keep a deprecated ref() forwarding to
/// view() for the same release.
///
/// The header forward-declares the new names, so that it needs nothing else: every header that
/// defines one of them (core/sampled_views.hpp, core/sampled_typed_views.hpp,
/// algorithms/edge_seeds.cuh) includes it, and an old name is usable wherever its new name is.
/// It lives in core/ (layer 0) so that those headers may include it (test/python/check_layers.py).

#include <gnndirect/core/version.hpp>

GNNDIRECT_NAMESPACE_BEGIN

// The 0.2 names (defined in core/sampled_views.hpp, core/sampled_typed_views.hpp and
// algorithms/edge_seeds.cuh), declared here for the aliases below.
/// Defined in core/sampled_views.hpp (declared here for its 0.1 alias below).
/// @tparam T element type
template <class T> struct array_view;
/// Defined in core/sampled_views.hpp (declared here for its 0.1 alias below).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index> struct sampled_slots_view;
/// Defined in core/sampled_views.hpp (declared here for its 0.1 alias below).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index> struct sampled_block_view;
/// Defined in core/sampled_views.hpp (declared here for its 0.1 alias below).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index> struct sampled_blocks_view;
/// Defined in core/sampled_views.hpp (declared here for its 0.1 alias below).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index> struct block_view;
/// Defined in core/sampled_views.hpp (declared here for its 0.1 alias below).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index> struct blocks_view;
/// Defined in core/sampled_typed_views.hpp (declared here for its 0.1 alias below).
/// @tparam Index node id type
template <class Index> struct sampled_type_nodes_view;
/// Defined in core/sampled_typed_views.hpp (declared here for its 0.1 alias below).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index> struct sampled_relation_view;
/// Defined in core/sampled_typed_views.hpp (declared here for its 0.1 alias below).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index> struct sampled_typed_blocks_view;
/// Defined in core/sampled_typed_views.hpp (declared here for its 0.1 alias below).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index> struct relation_block_view;
/// Defined in core/sampled_typed_views.hpp (declared here for its 0.1 alias below).
/// @tparam Index node id type
template <class Index> struct type_nodes_view;
/// Defined in core/sampled_typed_views.hpp (declared here for its 0.1 alias below).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index> struct typed_blocks_view;
/// Defined in algorithms/edge_seeds.cuh (declared here for its 0.1 alias below).
/// @tparam Index node id type
template <class Index> struct edge_seeds_view;

// The 0.1 names, one alias each (remove in 0.3).
/// @deprecated 0.1 name of array_view: use array_view
/// (scripts/migrate-0.2 rewrites it; removed in 0.3).
/// @tparam T element type
template <class T>
using array_ref [[deprecated("renamed to array_view in 0.2")]] = array_view<T>;
/// @deprecated 0.1 name of sampled_slots_view: use sampled_slots_view
/// (scripts/migrate-0.2 rewrites it; removed in 0.3).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index>
using sampled_slots_ref [[deprecated("renamed to sampled_slots_view in 0.2")]] = sampled_slots_view<Offset, Index>;
/// @deprecated 0.1 name of sampled_block_view: use sampled_block_view
/// (scripts/migrate-0.2 rewrites it; removed in 0.3).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index>
using sampled_block_ref [[deprecated("renamed to sampled_block_view in 0.2")]] = sampled_block_view<Offset, Index>;
/// @deprecated 0.1 name of sampled_blocks_view: use sampled_blocks_view
/// (scripts/migrate-0.2 rewrites it; removed in 0.3).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index>
using sampled_blocks_ref [[deprecated("renamed to sampled_blocks_view in 0.2")]] = sampled_blocks_view<Offset, Index>;
/// @deprecated 0.1 name of block_view: use block_view
/// (scripts/migrate-0.2 rewrites it; removed in 0.3).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index>
using block_ref [[deprecated("renamed to block_view in 0.2")]] = block_view<Offset, Index>;
/// @deprecated 0.1 name of blocks_view (0.2: its layers are a pointer and a count): use blocks_view
/// (scripts/migrate-0.2 rewrites it; removed in 0.3).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index>
using blocks_ref [[deprecated("renamed to blocks_view in 0.2")]] = blocks_view<Offset, Index>;
/// @deprecated 0.1 name of sampled_type_nodes_view: use sampled_type_nodes_view
/// (scripts/migrate-0.2 rewrites it; removed in 0.3).
/// @tparam Index node id type
template <class Index>
using sampled_type_nodes_ref [[deprecated("renamed to sampled_type_nodes_view in 0.2")]] = sampled_type_nodes_view<Index>;
/// @deprecated 0.1 name of sampled_relation_view: use sampled_relation_view
/// (scripts/migrate-0.2 rewrites it; removed in 0.3).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index>
using sampled_relation_ref [[deprecated("renamed to sampled_relation_view in 0.2")]] = sampled_relation_view<Offset, Index>;
/// @deprecated 0.1 name of sampled_typed_blocks_view: use sampled_typed_blocks_view
/// (scripts/migrate-0.2 rewrites it; removed in 0.3).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index>
using sampled_typed_blocks_ref [[deprecated("renamed to sampled_typed_blocks_view in 0.2")]] =
  sampled_typed_blocks_view<Offset, Index>;
/// @deprecated 0.1 name of relation_block_view: use relation_block_view
/// (scripts/migrate-0.2 rewrites it; removed in 0.3).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index>
using relation_block_ref [[deprecated("renamed to relation_block_view in 0.2")]] = relation_block_view<Offset, Index>;
/// @deprecated 0.1 name of type_nodes_view: use type_nodes_view
/// (scripts/migrate-0.2 rewrites it; removed in 0.3).
/// @tparam Index node id type
template <class Index>
using type_nodes_ref [[deprecated("renamed to type_nodes_view in 0.2")]] = type_nodes_view<Index>;
/// @deprecated 0.1 name of typed_blocks_view: use typed_blocks_view
/// (scripts/migrate-0.2 rewrites it; removed in 0.3).
/// @tparam Offset, Index offset and node id types
template <class Offset, class Index>
using typed_blocks_ref [[deprecated("renamed to typed_blocks_view in 0.2")]] = typed_blocks_view<Offset, Index>;
/// @deprecated 0.1 name of edge_seeds_view: use edge_seeds_view
/// (scripts/migrate-0.2 rewrites it; removed in 0.3).
/// @tparam Index node id type
template <class Index>
using edge_seeds_ref [[deprecated("renamed to edge_seeds_view in 0.2")]] = edge_seeds_view<Index>;

GNNDIRECT_NAMESPACE_END
