#pragma once
/// @file edge_list.hpp
/// @brief Text edge lists ("src dst [weight]" per line) into a host COO (host-compilable).
///
/// Format: one edge per line, fields separated by spaces or tabs; node ids are non-negative
/// decimal integers; the optional weight is a finite non-negative decimal number, present on
/// every edge line or on none. '#' starts a comment that runs to the end of the line; blank lines
/// are skipped; "\r\n" line ends are accepted. For example
/// @code
///   # src dst weight
///   0 1 0.5
///   1 2 2.0
/// @endcode
/// Edges keep the file's order, duplicates and self-loops included: nothing is deduplicated or
/// sorted (graph/coo_to_csr.hpp builds the CSR). read_edge_list reads the whole file into
/// memory before it parses it.

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
                                std::int64_t num_nodes = -1);

/// Reads and parses an edge-list file. @throws invalid_argument when the file cannot be opened
/// or read, when it is not a regular file (a FIFO, device or directory: refused before it is
/// opened for reading, never blocking), or as parse_edge_list (naming the path).
/// @tparam Index node id type of the result  @param path the file
/// @param num_nodes node count, or -1 for 1 + the largest id  @return the edges in file order
template <class Index>
host_coo<Index> read_edge_list(const std::string& path, std::int64_t num_nodes = -1);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/io/edge_list.inl>
