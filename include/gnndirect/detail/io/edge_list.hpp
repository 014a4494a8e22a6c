#pragma once
/// @file edge_list.hpp
/// @brief Internals of io/edge_list.hpp: splitting lines and parsing fields, with messages naming
/// the line (not part of the API).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Throws invalid_argument "edge list 'name', line N: problem".
[[noreturn]] inline void throw_edge_list_error(std::string_view name, std::int64_t line,
                                               const std::string& problem)
{
  throw invalid_argument(__FILE__, __LINE__,
                         "edge list '" + std::string(name) + "', line " + std::to_string(line) +
                           ": " + problem);
}

/// Splits a line (comment removed) into at most `max_fields` + 1 whitespace-separated fields;
/// returns how many it found (max_fields + 1 means "too many").
inline int split_fields(std::string_view line, std::string_view* fields, int max_fields) noexcept
{
  int count = 0;
  std::size_t pos = 0;
  while (count <= max_fields) {
    pos = line.find_first_not_of(" \t\r", pos);
    if (pos == std::string_view::npos) { break; }
    std::size_t const end = std::min(line.find_first_of(" \t\r", pos), line.size());
    if (count < max_fields) { fields[count] = line.substr(pos, end - pos); }
    ++count;
    pos = end;
  }
  return count;
}

/// Parses a node id field: a whole non-negative decimal integer of at most `largest`.
inline std::int64_t parse_node_id(std::string_view field, std::int64_t largest,
                                  std::string_view name, std::int64_t line)
{
  std::int64_t value = 0;
  auto const [end, status] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (status != std::errc() || end != field.data() + field.size() || value < 0 || value > largest) {
    throw_edge_list_error(name, line, "'" + std::string(field) +
                                        "' is not a node id (a non-negative integer <= " +
                                        std::to_string(largest) + ")");
  }
  return value;
}

/// Parses a weight field: a whole finite non-negative decimal number.
inline float parse_weight(std::string_view field, std::string_view name, std::int64_t line)
{
  float value = 0;
  auto const [end, status] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (status != std::errc() || end != field.data() + field.size() || !std::isfinite(value) ||
      !(value >= 0)) {
    throw_edge_list_error(name, line, "'" + std::string(field) +
                                        "' is not a weight (a finite non-negative number)");
  }
  return value;
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
