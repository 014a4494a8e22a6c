// Host tests of the writers' views' capacity checks (core/sampled_views.hpp): the checks every
// call that takes a sampled_slots_view or sampled_block_view runs before anything is written. A
// missing capacity (the default, from aggregate init of the pointers alone) is refused, never
// trusted, also for an empty call; capacity 0 fits an empty call; a large one skips the check.
#include <doctest/doctest.h>

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/sampled_views.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using gnndirect::block_bounds;
using slots_view = gnndirect::sampled_slots_view<std::int64_t, std::int32_t>;
using written_block = gnndirect::sampled_block_view<std::int64_t, std::int32_t>;

namespace {

/// The what() of the invalid_argument that `call` throws ("" when it throws none).
template <class Call>
std::string refusal(Call&& call)
{
  try {
    call();
  } catch (const gnndirect::invalid_argument& e) {
    return e.what();
  }
  return {};
}

/// True when `text` contains `part`.
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("sampled_slots_view: capacities are required; too small is refused; 0 fits no seeds")
{
  std::vector<std::int32_t> neighbors(40);
  std::vector<std::int64_t> counts(10), offsets(11);
  slots_view const bare{neighbors.data(), nullptr, counts.data(), offsets.data()};
  CHECK(bare.seed_capacity < 0);  // the default is "not given"
  CHECK(bare.slot_capacity < 0);
  auto const check = [](const slots_view& ref, std::int64_t seeds, std::int64_t fanout) {
    return refusal([&] { gnndirect::detail::check_slots_capacity(ref, seeds, fanout, "sample_neighbors_async", "out"); });
  };
  std::string const missing = check(bare, 10, 4);
  CAPTURE(missing);
  CHECK(contains(missing, "sample_neighbors_async: out.seed_capacity is not given (-1"));
  CHECK(contains(missing, "set it to what counts (offsets: one more) was sized for"));
  CHECK(contains(check(bare, 0, 4), "out.seed_capacity is not given"));  // an empty call too
  slots_view no_slots = bare;
  no_slots.seed_capacity = 10;
  CHECK(contains(check(no_slots, 10, 4), "out.slot_capacity is not given"));
  slots_view sized{neighbors.data(), nullptr, counts.data(), offsets.data(), 10, 40};
  CHECK(check(sized, 10, 4).empty());
  CHECK(check(sized, 5, 8).empty());
  CHECK(contains(check(sized, 11, 3), "counts (offsets: one more) holds 10 entries (out.seed_capacity), the call "
                                      "may write 11"));
  CHECK(contains(check(sized, 10, 5), "neighbors (and edge_ids) holds 40 entries (out.slot_capacity), the call may "
                                      "write 50"));
  slots_view const zero{nullptr, nullptr, nullptr, offsets.data(), 0, 0};
  CHECK(check(zero, 0, 4).empty());
  CHECK(contains(check(zero, 1, 0), "holds 0 entries"));
  slots_view unchecked = bare;
  unchecked.seed_capacity = std::numeric_limits<std::int64_t>::max();
  unchecked.slot_capacity = std::numeric_limits<std::int64_t>::max();
  CHECK(check(unchecked, 1 << 20, 100).empty());  // said explicitly: the caller answers for the sizes
}

TEST_CASE("sampled_block_view: every capacity field is required, named with the call and layer")
{
  std::int64_t num_src = 0, num_edges = 0;
  written_block const bare{nullptr, nullptr, nullptr, nullptr, &num_src, &num_edges};
  CHECK(bare.capacity.num_src < 0);
  CHECK(bare.capacity.num_dst < 0);
  CHECK(bare.capacity.num_edges < 0);
  auto const check = [](const written_block& ref, const block_bounds& need) {
    return refusal([&] {
      gnndirect::detail::check_block_capacity(ref, need, "sample_blocks_async: layer 2", "out.layers[2]",
                                              " (sample_blocks_bounds)");
    });
  };
  block_bounds const need{10, 50, 60};
  std::string const missing = check(bare, need);
  CAPTURE(missing);
  CHECK(contains(missing, "sample_blocks_async: layer 2: out.layers[2].capacity.num_src is not given (-1"));
  CHECK(contains(missing, "set it to what src_nodes was sized for (sample_blocks_bounds)"));
  CHECK(contains(check(bare, block_bounds{}), "capacity.num_src is not given"));  // an empty call too
  for (int field = 0; field < 3; ++field) {
    CAPTURE(field);
    written_block one_missing = bare;
    one_missing.capacity = need;
    (field == 0 ? one_missing.capacity.num_src : field == 1 ? one_missing.capacity.num_dst : one_missing.capacity.num_edges) = -1;
    char const* const name[] = {"capacity.num_src", "capacity.num_dst", "capacity.num_edges"};
    CHECK(contains(check(one_missing, need), std::string("out.layers[2].") + name[field] + " is not given"));
  }
  written_block sized = bare;
  sized.capacity = need;
  CHECK(check(sized, need).empty());
  CHECK(check(sized, block_bounds{0, 0, 0}).empty());
  CHECK(contains(check(sized, block_bounds{10, 50, 61}), "layer 2: src_nodes holds 60 entries "
                                                         "(out.layers[2].capacity.num_src), the call may write 61"));
  CHECK(contains(check(sized, block_bounds{11, 50, 60}), "offsets (num_dst + 1) holds 10 entries"));
  CHECK(contains(check(sized, block_bounds{10, 51, 60}), "indices/edge_ids holds 50 entries"));
  written_block zero = bare;
  zero.capacity = block_bounds{0, 0, 0};
  CHECK(check(zero, block_bounds{0, 0, 0}).empty());
}
