#pragma once
/// @file validate_typed.cuh
/// @brief Internals of algorithms/validate_typed.cuh: one relation's GPU check, validate()'s
/// rules with the src type's bound on neighbour ids (not part of the API).

#include <gnndirect/algorithms/corrupt_graph.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/detail/algorithms/csr_rules.hpp>
#include <gnndirect/detail/algorithms/validate.cuh>
#include <gnndirect/detail/algorithms/validate.hpp>
#include <gnndirect/detail/algorithms/validate_kernels.cuh>
#include <gnndirect/detail/algorithms/validate_typed.hpp>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/owners/buffer.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <limits>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// GPU check of one relation (arrays in any device-visible placement); every corrupt_graph it
/// throws starts with `where`. Synchronises `stream`.
template <class Offset, class Index>
void validate_relation_device(cudaStream_t stream, const relation_view<Offset, Index>& relation,
                              std::int64_t num_src, const std::string& where, resource_ref mr)
{
  csr_view<Offset, Index> const& g = relation.csc;
  auto const fetch = [stream](auto const* array, std::int64_t i) { return fetch_element(stream, array, i); };
  try {
    check_csr_shape(g);
    check_csr_pointers(g);
    constexpr int arrays = 4;
    buffer<error_record> records(arrays, stream, mr);
    std::int64_t const n = g.num_nodes;
    std::int64_t const m = g.num_edges;
    auto const flag = [&](csr_array a) { return error_flag_ref{records.data() + static_cast<int>(a)}; };
    {
      stream_sync_guard const guard(stream);
      for (int a = 0; a < arrays; ++a) { flag(static_cast<csr_array>(a)).reset_async(stream); }
      if (g.indptr != nullptr) {
        launch_first_violation(stream, indptr_rule<Offset>{g.indptr, n, m}, n + 1, flag(csr_array::indptr));
      }
      launch_first_violation(stream, id_range_rule<Index>{g.indices, num_src}, m, flag(csr_array::indices));
      if (g.weights != nullptr) { launch_first_violation(stream, weight_rule{g.weights}, m, flag(csr_array::weights)); }
      if (g.edge_ids != nullptr) {
        id_range_rule<Offset> const rule{g.edge_ids, std::numeric_limits<std::int64_t>::max()};
        launch_first_violation(stream, rule, m, flag(csr_array::edge_ids));
      }
    }
    for (int a = 0; a < arrays; ++a) {
      auto const array = static_cast<csr_array>(a);
      error_record const record = flag(array).read(stream);
      if (record.position == no_bad_position) { continue; }
      auto const at = static_cast<std::int64_t>(record.position);
      if (array == csr_array::indices) {
        throw corrupt_graph(__FILE__, __LINE__, array, at,
                            where + ": indices[" + std::to_string(at) + "] = " +
                              std::to_string(static_cast<std::int64_t>(fetch(g.indices, at))) +
                              " is out of range [0, " + std::to_string(num_src) +
                              ") (the src type's node count)");
      }
      throw_csr_violation(g, {array, at}, fetch);
    }
  } catch (const corrupt_graph& e) {
    std::string const text = e.what();
    if (text.find(where + ": ") != std::string::npos) { throw; }
    std::string const marker = "corrupt CSR graph: ";
    auto const at = text.find(marker);
    throw corrupt_graph(__FILE__, __LINE__, e.array(), e.position(),
                        where + ": " + (at == std::string::npos ? text : text.substr(at + marker.size())));
  } catch (const invalid_argument& e) {
    throw invalid_argument(__FILE__, __LINE__, where + ": " + e.what());
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
