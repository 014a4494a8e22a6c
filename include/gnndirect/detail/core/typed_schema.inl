#pragma once
// Definitions of core/typed_schema.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

inline auto relation_type::operator==(const relation_type& other) const -> bool
{
  return src == other.src && name == other.name && dst == other.dst;
}

inline std::string to_string(const relation_type& r)
{
  return "(" + r.src + ", " + r.name + ", " + r.dst + ")";
}

inline typed_schema::typed_schema(std::vector<std::string> node_types, std::vector<relation_type> relations)
  : node_types_(std::move(node_types)),
    relations_(std::move(relations))
{
  GNNDIRECT_EXPECTS(static_cast<int>(node_types_.size()) <= max_node_types,
                    "typed_schema: " + std::to_string(node_types_.size()) +
                      " node types, at most " + std::to_string(max_node_types));
  GNNDIRECT_EXPECTS(static_cast<int>(relations_.size()) <= max_relations,
                    "typed_schema: " + std::to_string(relations_.size()) + " relations, at most " +
                      std::to_string(max_relations));
  for (std::size_t t = 0; t < node_types_.size(); ++t) {
    GNNDIRECT_EXPECTS(!node_types_[t].empty(), "typed_schema: node type " + std::to_string(t) +
                                                 " has an empty name");
    for (std::size_t u = 0; u < t; ++u) {
      GNNDIRECT_EXPECTS(node_types_[u] != node_types_[t],
                        "typed_schema: node type '" + node_types_[t] + "' is given twice");
    }
  }
  for (std::size_t r = 0; r < relations_.size(); ++r) {
    relation_type const& key = relations_[r];
    GNNDIRECT_EXPECTS(!key.name.empty(), "typed_schema: relation " + to_string(key) +
                                           " has an empty name");
    src_.push_back(find_node_type(key.src, "typed_schema: relation " + to_string(key) + ": src"));
    dst_.push_back(find_node_type(key.dst, "typed_schema: relation " + to_string(key) + ": dst"));
    for (std::size_t q = 0; q < r; ++q) {
      GNNDIRECT_EXPECTS(!(relations_[q] == key),
                        "typed_schema: relation " + to_string(key) + " is given twice");
    }
  }
}

inline auto typed_schema::relation_index(const relation_type& key) const -> int
{
  for (std::size_t r = 0; r < relations_.size(); ++r) {
    if (relations_[r] == key) { return static_cast<int>(r); }
  }
  throw invalid_argument(__FILE__, __LINE__,
                         "typed graph: unknown relation " + to_string(key) + " (relations: " +
                           relation_list() + ")");
}

inline auto typed_schema::relation_index(const std::string& name) const -> int
{
  int found = -1;
  for (std::size_t r = 0; r < relations_.size(); ++r) {
    if (relations_[r].name != name) { continue; }
    GNNDIRECT_EXPECTS(found < 0, "typed graph: relation name '" + name +
                                   "' is ambiguous (relations: " + relation_list() + ")");
    found = static_cast<int>(r);
  }
  GNNDIRECT_EXPECTS(found >= 0, "typed graph: unknown relation '" + name + "' (relations: " +
                                  relation_list() + ")");
  return found;
}

inline auto typed_schema::relation_list() const -> std::string
{
  std::string out;
  for (relation_type const& r : relations_) { out += (out.empty() ? "" : ", ") + to_string(r); }
  return out.empty() ? "none" : out;
}

inline auto typed_schema::find_node_type(const std::string& name, const std::string& where) const -> int
{
  for (std::size_t t = 0; t < node_types_.size(); ++t) {
    if (node_types_[t] == name) { return static_cast<int>(t); }
  }
  std::string known;
  for (std::string const& n : node_types_) { known += (known.empty() ? "'" : ", '") + n + "'"; }
  throw invalid_argument(__FILE__, __LINE__,
                         where + ": unknown node type '" + name + "' (node types: " +
                           (known.empty() ? std::string("none") : known) + ")");
}

inline auto typed_fanouts::num_layers() const noexcept -> int
{
  return per_relation.empty() ? 0 : static_cast<int>(per_relation.front().size());
}

inline typed_fanouts typed_fanouts_of(
  const typed_schema& schema, const std::vector<std::pair<relation_type, std::vector<int>>>& dict,
  const std::vector<int>& fallback)
{
  auto const r_count = static_cast<std::size_t>(schema.num_relations());
  std::vector<bool> given(r_count, false);
  typed_fanouts out;
  out.per_relation.assign(r_count, fallback);
  std::size_t layers = fallback.size();
  for (auto const& [key, list] : dict) {
    int r = -1;
    try {
      r = schema.relation_index(key);
    } catch (const invalid_argument&) {
      throw invalid_argument(__FILE__, __LINE__,
                             "typed fanouts: the fanout dict names relation " + to_string(key) +
                               ", which the graph does not have (relations: " +
                               schema.relation_list() + ")");
    }
    GNNDIRECT_EXPECTS(!given[static_cast<std::size_t>(r)],
                      "typed fanouts: relation " + to_string(key) + " is given twice");
    given[static_cast<std::size_t>(r)] = true;
    if (layers == 0) { layers = list.size(); }
    GNNDIRECT_EXPECTS(list.size() == layers,
                      "typed fanouts: relation " + to_string(key) + " has " +
                        std::to_string(list.size()) + " fanouts, other relations " +
                        std::to_string(layers) + " (one per layer, the same count for all)");
    out.per_relation[static_cast<std::size_t>(r)] = list;
  }
  for (std::size_t r = 0; r < r_count; ++r) {
    GNNDIRECT_EXPECTS(given[r] || !fallback.empty(),
                      "typed fanouts: no fanouts for relation " + to_string(schema.relation(static_cast<int>(r))) +
                        " (list every relation, or give a fallback)");
  }
  GNNDIRECT_EXPECTS(layers > 0, "typed fanouts: at least one layer is needed");
  for (std::size_t r = 0; r < r_count; ++r) {
    for (int f : out.per_relation[r]) {
      GNNDIRECT_EXPECTS(f >= -1, "typed fanouts: relation " + to_string(schema.relation(static_cast<int>(r))) +
                                   " has fanout " + std::to_string(f) + " (use -1 for all neighbours, 0 for none)");
    }
  }
  return out;
}

inline typed_fanouts typed_fanouts_of(const typed_schema& schema, const std::vector<int>& fanouts)
{
  GNNDIRECT_EXPECTS(!fanouts.empty(), "typed fanouts: at least one layer is needed");
  return typed_fanouts_of(schema, {}, fanouts);
}

GNNDIRECT_NAMESPACE_END
