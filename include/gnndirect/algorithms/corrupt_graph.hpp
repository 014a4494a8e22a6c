#pragma once
/// @file corrupt_graph.hpp
/// @brief corrupt_graph: the exception validate(csr_view) raises for a CSR view that does not
/// describe a valid graph, and csr_array, which names the offending array (host-compilable).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>

#include <cstdint>
#include <string>
#include <string_view>

GNNDIRECT_NAMESPACE_BEGIN

/// The arrays of a CSR graph, in the order validation checks them.
enum class csr_array : std::uint8_t { indptr, indices, weights, edge_ids };

/// Name of an array as it appears in messages.
/// @param array the array  @return "indptr", "indices", "weights" or "edge_ids"
constexpr std::string_view to_string(csr_array array) noexcept;

/// A CSR view does not describe a valid graph. array() names the offending array; position() is
/// the first bad position in it, or -1 when the problem is the array as a whole (null pointer,
/// negative size, a size its type cannot hold). The message names the array, position and value.
/// It is an invalid_argument, so a caller that catches that catches it too:
/// @code
///   try { validate(graph.host_view()); }
///   catch (const corrupt_graph& e) { report(to_string(e.array()), e.position(), e.what()); }
/// @endcode
class corrupt_graph : public invalid_argument {
 public:
  /// Message "corrupt CSR graph: problem".
  /// @param file, line source location of the check  @param array offending array
  /// @param position first bad position or -1  @param problem text
  corrupt_graph(const char* file, int line, csr_array array, std::int64_t position,
                const std::string& problem);
  /// @return the array that breaks a rule
  csr_array array() const noexcept { return array_; }
  /// @return first bad position in that array; -1 for whole-array problems
  std::int64_t position() const noexcept { return position_; }

 private:
  csr_array array_;        ///< see array()
  std::int64_t position_;  ///< see position()
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/corrupt_graph.inl>
