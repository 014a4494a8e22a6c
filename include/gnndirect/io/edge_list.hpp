#pragma once
/// @file edge_list.hpp
/// @brief Text edge lists ("src dst [weight]" per line) into a host COO (host-compilable).
///
/// Format: one edge per line, fields separated by spaces or tabs; node ids are non-negative
/// decimal integers; the optional weight is a finite non-negative decimal number, present on
/// every edge line or on none. '#' starts a comment that runs to the end of the line; blank lines
/// are skipped; "\r\n" line ends are accepted.

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/coo.hpp>
#include <gnndirect/detail/io/edge_list.hpp>
#include <gnndirect/detail/io/files.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>

GNNDIRECT_NAMESPACE_BEGIN

/// Parses edge-list text (format in the file comment) into a host COO.
/// @param text the whole text  @param name names the source in messages (e.g. the path)
/// @param num_nodes node count, or -1 for 1 + the largest id (0 when there is no edge)
/// @throws invalid_argument naming the source and the 1-based line: wrong field count, a field
///         that is not an id or weight, an id >= num_nodes or beyond Index, weights on some lines
///         only. Synchronous; no CUDA call.
/// @tparam Index node id type of the result  @return the edges in file order
template <class Index>
host_coo<Index> parse_edge_list(std::string_view text, std::string_view name = "<text>",
                                std::int64_t num_nodes = -1)
{
  std::int64_t const largest = num_nodes >= 0
                                 ? std::min<std::int64_t>(num_nodes - 1, std::numeric_limits<Index>::max())
                                 : std::numeric_limits<Index>::max();
  host_coo<Index> coo;
  std::int64_t line_number = 0;
  std::int64_t max_id = -1;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t const end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    line = line.substr(0, std::min(line.find('#'), line.size()));
    std::string_view fields[3];
    int const count = detail::split_fields(line, fields, 3);
    if (count == 0) { continue; }
    if (count < 2 || count > 3) {
      detail::throw_edge_list_error(name, line_number, "expected 'src dst [weight]', found " +
                                                         std::string(count > 3 ? "more than 3" : "1") +
                                                         " field(s)");
    }
    bool const weighted = count == 3;
    if (!coo.src.empty() && weighted != !coo.weights.empty()) {
      detail::throw_edge_list_error(name, line_number, weighted ? "has a weight but earlier edges do not"
                                                                : "lacks the weight earlier edges have");
    }
    std::int64_t const src = detail::parse_node_id(fields[0], largest, name, line_number);
    std::int64_t const dst = detail::parse_node_id(fields[1], largest, name, line_number);
    coo.src.push_back(static_cast<Index>(src));
    coo.dst.push_back(static_cast<Index>(dst));
    if (weighted) { coo.weights.push_back(detail::parse_weight(fields[2], name, line_number)); }
    max_id = std::max({max_id, src, dst});
  }
  coo.num_nodes = num_nodes >= 0 ? num_nodes : max_id + 1;
  return coo;
}

/// Reads and parses an edge-list file. @throws invalid_argument when the file cannot be opened
/// or read, when it is not a regular file (a FIFO, device or directory: refused before it is
/// opened for reading, never blocking), or as parse_edge_list (naming the path).
/// @tparam Index node id type of the result  @param path the file
/// @param num_nodes node count, or -1 for 1 + the largest id  @return the edges in file order
template <class Index>
host_coo<Index> read_edge_list(const std::string& path, std::int64_t num_nodes = -1)
{
  std::string const prefix = "edge list '" + path + "': ";
  int const fd = detail::open_regular_file(path, prefix);
  std::string text;
  char chunk[1 << 16];
  while (true) {
    ssize_t const got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) { continue; }
    if (got < 0) {
      int const saved = errno;
      ::close(fd);
      throw invalid_argument(__FILE__, __LINE__, prefix + "cannot read: " + std::strerror(saved));
    }
    if (got == 0) { break; }
    try {
      text.append(chunk, static_cast<std::size_t>(got));
    } catch (...) {
      ::close(fd);
      throw;
    }
  }
  ::close(fd);
  return parse_edge_list<Index>(text, path, num_nodes);
}

GNNDIRECT_NAMESPACE_END
