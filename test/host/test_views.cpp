// Host tests of table_view and csr_view.
#include <doctest/doctest.h>

#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/table_view.hpp>

#include <cstdint>
#include <numeric>
#include <type_traits>
#include <vector>

using gnndirect::csr_view;
using gnndirect::memory_kind;
using gnndirect::table_view;

static_assert(std::is_trivially_copyable_v<table_view<double>>);
static_assert(std::is_trivially_copyable_v<csr_view<std::int64_t, std::int32_t>>);
static_assert(std::is_convertible_v<table_view<float>, table_view<const float>>);
static_assert(!std::is_convertible_v<table_view<const float>, table_view<float>>);

TEST_CASE("table_view addresses rows through the stride")
{
  std::vector<int> data(5 * 7);
  std::iota(data.begin(), data.end(), 0);
  table_view<int> const view(data.data(), 5, 3, 7, memory_kind::pinned);
  CHECK(view.row(0)[0] == 0);
  CHECK(view.row(4)[2] == 4 * 7 + 2);
  CHECK(view.row_bytes() == 3 * sizeof(int));
  CHECK(view.stride_bytes() == 7 * sizeof(int));
  CHECK_FALSE(view.is_contiguous());
  CHECK_FALSE(view.empty());
  table_view<const int> const read_only = view;
  CHECK(read_only.row(3) == view.row(3));
  CHECK(read_only.kind == memory_kind::pinned);
}

TEST_CASE("table_view sizes use 64-bit arithmetic")
{
  // 2^22 rows of 2^12 floats: stride_bytes * rows exceeds 2^32 without overflow.
  table_view<float> const view(nullptr, std::int64_t{1} << 22, 1 << 12, 1 << 12,
                               memory_kind::managed_host);
  CHECK(view.stride_bytes() * static_cast<std::size_t>(view.rows) == (std::size_t{1} << 36));
}

TEST_CASE("validate(table_view) rejects bad shapes with a named view")
{
  std::vector<float> data(12);
  CHECK_NOTHROW(validate(table_view<float>(data.data(), 3, 4, 4, memory_kind::device), "ok"));
  CHECK_NOTHROW(validate(table_view<float>(nullptr, 0, 4, 4, memory_kind::device), "empty"));
  CHECK_THROWS_WITH_AS(validate(table_view<float>(data.data(), 3, 4, 2, memory_kind::device), "dst"),
                       doctest::Contains("table_view 'dst': row_stride 2 < cols 4"),
                       gnndirect::invalid_argument);
  CHECK_THROWS_AS(validate(table_view<float>(nullptr, 3, 4, 4, memory_kind::device), "src"),
                  gnndirect::invalid_argument);
  CHECK_THROWS_AS(validate(table_view<float>(data.data(), -1, 4, 4, memory_kind::device), "src"),
                  gnndirect::invalid_argument);
}

TEST_CASE("csr_view degree, begin and edge ids")
{
  std::vector<std::int64_t> const indptr{0, 2, 2, 5};
  std::vector<std::int32_t> const indices{1, 2, 0, 1, 2};
  std::vector<std::int64_t> const edge_ids{10, 11, 12, 13, 14};
  csr_view<std::int64_t, std::int32_t> csr;
  csr.indptr = indptr.data();
  csr.indices = indices.data();
  csr.num_nodes = 3;
  csr.num_edges = 5;
  CHECK(csr.degree(0) == 2);
  CHECK(csr.degree(1) == 0);
  CHECK(csr.degree(2) == 3);
  CHECK(csr.begin(2) == 2);
  CHECK(csr.edge_id(3) == 3);  // positions when no edge ids are stored
  csr.edge_ids = edge_ids.data();
  CHECK(csr.edge_id(3) == 13);
}
