#pragma once
/// @file validate_typed.hpp
/// @brief Internals of algorithms/validate_typed.hpp: one relation's host check, validate()'s
/// rules with the src type's bound on neighbour ids (not part of the API; host-compilable).

#include <gnndirect/algorithms/corrupt_graph.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/detail/algorithms/csr_rules.hpp>
#include <gnndirect/detail/algorithms/validate.hpp>

#include <cstdint>
#include <limits>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Host check of one relation; every corrupt_graph it throws starts with `where`.
template <class Offset, class Index>
void validate_relation_host(const relation_view<Offset, Index>& relation, std::int64_t num_src,
                            const std::string& where)
{
  csr_view<Offset, Index> const& g = relation.csc;
  auto const rethrow = [&](const corrupt_graph& e, const std::string& text) {
    throw corrupt_graph(__FILE__, __LINE__, e.array(), e.position(), where + ": " + text);
  };
  auto const fetch = [](auto const* array, std::int64_t i) { return array[i]; };
  try {
    check_csr_shape(g);
    check_host_readable(g);
    std::int64_t const n = g.num_nodes;
    std::int64_t const m = g.num_edges;
    if (g.indptr != nullptr) {
      std::int64_t const at = host_first_violation(n + 1, indptr_rule<Offset>{g.indptr, n, m});
      if (at != no_violation) { throw_csr_violation(g, {csr_array::indptr, at}, fetch); }
    }
    std::int64_t const bad = host_first_violation(m, id_range_rule<Index>{g.indices, num_src});
    if (bad != no_violation) {
      throw corrupt_graph(__FILE__, __LINE__, csr_array::indices, bad,
                          where + ": indices[" + std::to_string(bad) + "] = " +
                            std::to_string(static_cast<std::int64_t>(g.indices[bad])) +
                            " is out of range [0, " + std::to_string(num_src) +
                            ") (the src type's node count)");
    }
    if (g.weights != nullptr) {
      std::int64_t const at = host_first_violation(m, weight_rule{g.weights});
      if (at != no_violation) { throw_csr_violation(g, {csr_array::weights, at}, fetch); }
    }
    if (g.edge_ids != nullptr) {
      id_range_rule<Offset> const rule{g.edge_ids, std::numeric_limits<std::int64_t>::max()};
      std::int64_t const at = host_first_violation(m, rule);
      if (at != no_violation) { throw_csr_violation(g, {csr_array::edge_ids, at}, fetch); }
    }
  } catch (const corrupt_graph& e) {
    std::string const text = e.what();
    if (text.find(where + ": ") != std::string::npos) { throw; }
    std::string const marker = "corrupt CSR graph: ";
    auto const at = text.find(marker);
    rethrow(e, at == std::string::npos ? text : text.substr(at + marker.size()));
  } catch (const invalid_argument& e) {
    throw invalid_argument(__FILE__, __LINE__, where + ": " + e.what());
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
