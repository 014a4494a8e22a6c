// Host tests of the 0.2 vocabulary (issue #39): the data views are trivially copyable; the 0.1
// names (core/deprecated_names.hpp) name the same types; the owners' deprecated ref() returns
// what view() returns; an owner's blocks_view points into storage the owner holds, which a
// second view() call reuses (no dangling first view).
#include <doctest/doctest.h>

#include <gnndirect/core/deprecated_names.hpp>
#include <gnndirect/core/sampled_typed_views.hpp>
#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/reference/reference_blocks.hpp>
#include <gnndirect/reference/sample_reference.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

namespace gd = gnndirect;
using Offset = std::int64_t;
using Index = std::int32_t;

// The deprecated aliases are what this file tests: their warnings are expected here.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
static_assert(std::is_same_v<gd::array_ref<const Index>, gd::array_view<const Index>>);
static_assert(std::is_same_v<gd::sampled_slots_ref<Offset, Index>, gd::sampled_slots_view<Offset, Index>>);
static_assert(std::is_same_v<gd::sampled_block_ref<Offset, Index>, gd::sampled_block_view<Offset, Index>>);
static_assert(std::is_same_v<gd::sampled_blocks_ref<Offset, Index>, gd::sampled_blocks_view<Offset, Index>>);
static_assert(std::is_same_v<gd::block_ref<Offset, Index>, gd::block_view<Offset, Index>>);
static_assert(std::is_same_v<gd::blocks_ref<Offset, Index>, gd::blocks_view<Offset, Index>>);
static_assert(std::is_same_v<gd::sampled_type_nodes_ref<Index>, gd::sampled_type_nodes_view<Index>>);
static_assert(std::is_same_v<gd::sampled_relation_ref<Offset, Index>, gd::sampled_relation_view<Offset, Index>>);
static_assert(std::is_same_v<gd::sampled_typed_blocks_ref<Offset, Index>,
                             gd::sampled_typed_blocks_view<Offset, Index>>);
static_assert(std::is_same_v<gd::relation_block_ref<Offset, Index>, gd::relation_block_view<Offset, Index>>);
static_assert(std::is_same_v<gd::type_nodes_ref<Index>, gd::type_nodes_view<Index>>);
static_assert(std::is_same_v<gd::typed_blocks_ref<Offset, Index>, gd::typed_blocks_view<Offset, Index>>);
static_assert(std::is_same_v<gd::edge_seeds_ref<Index>, gd::edge_seeds_view<Index>>);  // declared only here

/// Calls the deprecated ref() of a 0.1-style caller.
template <class Owner>
auto old_ref(const Owner& owner)
{
  return owner.ref();
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static_assert(std::is_trivially_copyable_v<gd::blocks_view<Offset, Index>>);
static_assert(std::is_trivially_copyable_v<gd::block_view<Offset, Index>>);
static_assert(std::is_trivially_copyable_v<gd::array_view<const Index>>);

namespace {

/// A 6-node ring with chords, as host arrays.
struct ring {
  std::vector<Offset> indptr{0, 2, 4, 6, 8, 10, 12};
  std::vector<Index> indices{1, 3, 2, 4, 3, 5, 4, 0, 5, 1, 0, 2};
  /// @return the graph's view
  gd::csr_view<Offset, Index> view() const
  {
    gd::csr_view<Offset, Index> v;
    v.indptr = indptr.data();
    v.indices = indices.data();
    v.num_nodes = 6;
    v.num_edges = 12;
    return v;
  }
};

}  // namespace

TEST_CASE("reference_blocks: view() is a trivially copyable window into the owner; ref() is view()")
{
  ring const g;
  std::vector<Index> const seeds{0, 3};
  auto const blocks = gd::host::sample_blocks_reference(g.view(), seeds.data(), 2, {2, 2}, gd::uniform_sampler{7}, 1);
  gd::blocks_view<Offset, Index> const first = blocks.view();
  REQUIRE(first.layers.size() == 2);
  CHECK(first.layers.data() == blocks.layer_views.data());  // the owner's storage
  gd::blocks_view<Offset, Index> const second = blocks.view();
  CHECK(second.layers.data() == first.layers.data());  // reused: the first view still holds
  for (std::size_t l = 0; l < blocks.layers.size(); ++l) {
    CHECK(first.layers[l].src_nodes.data() == blocks.layers[l].src_nodes.data());
    CHECK(first.layers[l].num_src() == static_cast<std::int64_t>(blocks.layers[l].src_nodes.size()));
    CHECK(first.layers[l].num_edges() == static_cast<std::int64_t>(blocks.layers[l].indices.size()));
  }
  CHECK(first.input_nodes().data() == blocks.input_nodes().data());
  std::int64_t edges = 0;
  for (auto const& b : first.layers) { edges += b.num_edges(); }  // range-for over the layers
  CHECK(edges == static_cast<std::int64_t>(blocks.layers[0].indices.size() + blocks.layers[1].indices.size()));
  auto const old = old_ref(blocks);
  CHECK(old.layers.data() == first.layers.data());
  CHECK(old.layers.size() == 2);
}
