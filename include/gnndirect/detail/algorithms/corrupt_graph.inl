#pragma once
// Definitions of algorithms/corrupt_graph.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

constexpr std::string_view to_string(csr_array array) noexcept
{
  switch (array) {
    case csr_array::indptr: return "indptr";
    case csr_array::indices: return "indices";
    case csr_array::weights: return "weights";
    case csr_array::edge_ids: return "edge_ids";
  }
  return "unknown";
}

inline corrupt_graph::corrupt_graph(const char* file, int line, csr_array array, std::int64_t position,
              const std::string& problem)
  : invalid_argument(file, line, "corrupt CSR graph: " + problem), array_(array),
    position_(position)
{
}

GNNDIRECT_NAMESPACE_END
