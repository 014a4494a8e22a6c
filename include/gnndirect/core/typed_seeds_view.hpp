#pragma once
/// @file typed_seeds_view.hpp
/// @brief Seeds of several node types at once (a link seed's two endpoint types, pyg-lib's seed
/// dict): per node type a pointer and a count, in a trivially copyable view (host-compilable).
///
/// Typed sampling (algorithms/sample_typed_blocks_async.cuh, the host reference
/// reference/sample_typed_reference.hpp) starts every type's node list with that type's seeds,
/// in the given order (repeats kept as separate rows of layer 0), and takes them as the type's
/// frontier at layer 0. A type may have no seeds (count 0, pointer ignored). Ids are local to
/// their type: type t's seeds lie in [0, num_nodes[t]), which the samplers check.

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/version.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Seeds per node type (see the file comment). The arrays are device-visible for the GPU
/// sampler and host-readable for the host reference; the view owns nothing.
/// @tparam Index node id type
template <class Index>
struct typed_seeds_view {
  int num_node_types{0};                        ///< entries in use: the graph's node type count
  const Index* seeds[max_node_types]{};         ///< per type: its seed ids (null when count 0)
  std::int64_t counts[max_node_types]{};        ///< per type: its number of seeds (>= 0)

  /// @param t a node type  @return type t's seeds (no bounds check)
  GNNDIRECT_HOST_DEVICE const Index* of(int t) const noexcept { return seeds[t]; }
  /// @param t a node type  @return type t's seed count (no bounds check)
  GNNDIRECT_HOST_DEVICE std::int64_t count(int t) const noexcept { return counts[t]; }
};

static_assert(std::is_trivially_copyable_v<typed_seeds_view<std::int64_t>>,
              "typed_seeds_view: trivially copyable");
static_assert(std::is_trivially_copyable_v<typed_seeds_view<std::int32_t>>,
              "typed_seeds_view: trivially copyable");

/// Seeds of one type only: `seeds[0, num_seeds)` of type `seed_type`, no seeds for the others
/// (what the one-type samplers pass on). Pure host function; reads no array.
/// @param num_node_types the graph's node types (1 to max_node_types)
/// @param seed_type the seeds' type (0 to num_node_types - 1)
/// @param seeds their ids  @param num_seeds their number (>= 0)
/// @return the view
/// @throws invalid_argument (a type count or seed type out of range, num_seeds < 0).
/// @tparam Index node id type
template <class Index>
typed_seeds_view<Index> typed_seeds_of(int num_node_types, int seed_type, const Index* seeds,
                                       std::int64_t num_seeds);

/// Seeds of every type from parallel lists: `seeds[t]` holds `counts[t]` ids of type t. Pure
/// host function; reads no array.
/// @param seeds per type: its ids (may be null where the count is 0)
/// @param counts per type: their number (>= 0)
/// @return the view (num_node_types = seeds.size())
/// @throws invalid_argument (lists of different lengths or more than max_node_types entries; a
/// negative count, naming the type).
/// @tparam Index node id type
template <class Index>
typed_seeds_view<Index> typed_seeds_of(const std::vector<const Index*>& seeds,
                                       const std::vector<std::int64_t>& counts);

/// Checks a seeds view against a graph's node type count (no array is read): the entry count
/// equals `num_node_types`, every count is >= 0 and every non-empty type has a pointer.
/// @param seeds the view  @param num_node_types the graph's node types
/// @param call the caller's name, which starts the messages
/// @return the counts per type
/// @throws invalid_argument naming the call and the type.
/// @tparam Index node id type
template <class Index>
std::vector<std::int64_t> typed_seed_counts(const typed_seeds_view<Index>& seeds, int num_node_types,
                                            const char* call);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/typed_seeds_view.inl>
