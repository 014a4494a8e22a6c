#pragma once
// Definitions of io/edge_list.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Index>
host_coo<Index> parse_edge_list(std::string_view text, std::string_view name,
                                std::int64_t num_nodes)
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

template <class Index>
host_coo<Index> read_edge_list(const std::string& path, std::int64_t num_nodes)
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
