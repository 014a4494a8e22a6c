// libFuzzer target: host validate() on a small CSR decoded from the bytes, compared with a naive
// sequential reference. validate must throw gnndirect::corrupt_graph exactly when the reference
// finds a violation, naming the same array and first position; never crash.
//
// Layout: byte 0 = node count (0..63), byte 1 = edge count, byte 2 = flags (bit 0: weights,
// bit 1: edge ids, bit 2: indptr from cumulative deltas so that valid graphs are common, bit 3:
// null indptr, bit 4: null indices, bit 5: negative node count), then the array values, one byte
// each (signed), cycling through the input; missing bytes read as 0.
#include "fuzz_bytes.hpp"
#include <gnndirect/algorithms/validate.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

using gnndirect_fuzz::byte_reader;
using gnndirect_fuzz::weight_from;

namespace {

struct violation {
  gnndirect::csr_array array;
  std::int64_t position;
};

/// The rules of validate.hpp, written as plainly as possible.
std::optional<violation> reference(const std::vector<std::int32_t>& indptr,
                                   const std::vector<std::int32_t>& indices,
                                   const std::vector<float>& weights,
                                   const std::vector<std::int32_t>& edge_ids, std::int64_t n,
                                   std::int64_t m)
{
  for (std::int64_t i = 0; i <= n; ++i) {
    bool const bad = (i == 0 && indptr[0] != 0) || (i > 0 && indptr[i] < indptr[i - 1]) ||
                     (i == n && indptr[i] != m);
    if (bad) { return violation{gnndirect::csr_array::indptr, i}; }
  }
  for (std::int64_t e = 0; e < m; ++e) {
    if (indices[e] < 0 || indices[e] >= n) { return violation{gnndirect::csr_array::indices, e}; }
  }
  for (std::size_t e = 0; e < weights.size(); ++e) {
    if (!std::isfinite(weights[e]) || weights[e] < 0) {
      return violation{gnndirect::csr_array::weights, static_cast<std::int64_t>(e)};
    }
  }
  for (std::size_t e = 0; e < edge_ids.size(); ++e) {
    if (edge_ids[e] < 0) { return violation{gnndirect::csr_array::edge_ids, static_cast<std::int64_t>(e)}; }
  }
  return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  if (size < 3) { return 0; }
  std::int64_t const n = data[0] % 64;
  std::int64_t const m = data[1];
  std::uint8_t const flags = data[2];
  byte_reader in{data, size, 3};
  std::vector<std::int32_t> indptr(static_cast<std::size_t>(n) + 1);
  std::int32_t sum = 0;
  for (auto& offset : indptr) {
    std::int8_t const byte = in.next();
    offset = (flags & 4) != 0 ? (sum += byte & 7) : byte;
  }
  if ((flags & 4) != 0) { indptr[0] = 0; }
  std::vector<std::int32_t> indices(static_cast<std::size_t>(m));
  for (auto& index : indices) { index = in.next(); }
  std::vector<float> weights((flags & 1) != 0 ? static_cast<std::size_t>(m) : 0);
  for (auto& weight : weights) { weight = weight_from(in.next()); }
  std::vector<std::int32_t> edge_ids((flags & 2) != 0 ? static_cast<std::size_t>(m) : 0);
  for (auto& id : edge_ids) { id = in.next(); }

  gnndirect::csr_view<std::int32_t, std::int32_t> view;
  view.indptr = (flags & 8) != 0 ? nullptr : indptr.data();
  view.indices = (flags & 16) != 0 ? nullptr : indices.data();
  view.weights = weights.empty() ? nullptr : weights.data();
  view.edge_ids = edge_ids.empty() ? nullptr : edge_ids.data();
  view.num_nodes = (flags & 32) != 0 ? -n - 1 : n;
  view.num_edges = m;
  view.indptr_kind = view.indices_kind = gnndirect::memory_kind::pinned;

  bool const shape_error = view.num_nodes < 0 || (view.indptr == nullptr && (n > 0 || m > 0)) ||
                           (view.indices == nullptr && m > 0);
  // A null indptr is valid only for the empty graph, which has nothing else to check.
  std::optional<violation> const expected =
    shape_error || view.indptr == nullptr ? std::nullopt
                                          : reference(indptr, indices, weights, edge_ids, n, m);
  try {
    gnndirect::validate(view);
  } catch (const gnndirect::corrupt_graph& error) {
    if (shape_error) {
      if (error.position() != -1) { std::abort(); }
      return 0;
    }
    if (!expected || expected->array != error.array() || expected->position != error.position()) {
      std::abort();
    }
    return 0;
  }
  if (shape_error || expected) { std::abort(); }  // validate accepted a corrupt graph
  return 0;
}
