// libFuzzer target: parse_edge_list on arbitrary text. It must either throw
// gnndirect::invalid_argument or return an edge list whose ids are in range; small results are
// converted to CSR and validated, which must then succeed.
#include <gnndirect/algorithms/validate.hpp>
#include <gnndirect/graph/coo_to_csr.hpp>
#include <gnndirect/io/edge_list.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  // The first byte, when present, picks a node count (or "infer" for 0), the rest is the text.
  std::int64_t const nodes = size > 0 && data[0] != 0 ? data[0] : -1;
  std::string_view const text(reinterpret_cast<const char*>(data) + (size > 0 ? 1 : 0),
                              size > 0 ? size - 1 : 0);
  gnndirect::host_coo<std::int32_t> coo;
  try {
    coo = gnndirect::parse_edge_list<std::int32_t>(text, "fuzz", nodes);
  } catch (const gnndirect::invalid_argument&) {
    return 0;
  }
  if (coo.src.size() != coo.dst.size() || (!coo.weights.empty() && coo.weights.size() != coo.src.size())) {
    std::abort();
  }
  for (std::size_t e = 0; e < coo.src.size(); ++e) {
    if (coo.src[e] < 0 || coo.src[e] >= coo.num_nodes || coo.dst[e] < 0 || coo.dst[e] >= coo.num_nodes) {
      std::abort();
    }
  }
  if (coo.num_nodes <= (1 << 16)) {  // keep memory bounded: indptr has num_nodes + 1 entries
    auto const csr = gnndirect::host::coo_to_csr<std::int64_t, std::int32_t>(coo.view());
    gnndirect::validate(csr.view());  // a parsed edge list always makes a valid graph
  }
  return 0;
}
