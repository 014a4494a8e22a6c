// Host tests of typed (heterogeneous) graphs: schema and fanout lookups, shape and structure
// validation, feature-table row checks, the sampling bounds, the IGBH / ogbn-mag generators and
// the host reference of typed sampling (exact on a handmade graph with fanout -1, invariants on
// fresh random graphs).
#include <doctest/doctest.h>

#include <gnndirect/algorithms/typed_blocks_bounds.hpp>
#include <gnndirect/algorithms/validate_typed.hpp>
#include <gnndirect/core/typed_schema.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/graph/generate_typed.hpp>
#include <gnndirect/graph/typed_graph.hpp>
#include <gnndirect/reference/sample_typed_reference.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

namespace gd = gnndirect;
using offset_t = std::int64_t;
using index_t = std::int64_t;

namespace {

/// Expects `f` to throw an exception derived from gnndirect::invalid_argument whose message
/// contains `part`.
template <class F>
void expect_message(F&& f, const std::string& part)
{
  try {
    f();
  } catch (const gd::invalid_argument& e) {
    CAPTURE(e.what());
    CHECK(std::string(e.what()).find(part) != std::string::npos);
    return;
  }
  FAIL("no exception; expected one naming: " << part);
}

/// A handmade graph: paper (3 nodes), author (2 nodes);
/// (author, writes, paper): paper 0 <- authors {0, 1}, paper 1 <- {1}, paper 2 <- {};
/// (paper, cites, paper): paper 0 <- {1}, paper 1 <- {2}, paper 2 <- {0};
/// (paper, rev_writes, author): author 0 <- {0}, author 1 <- {0, 1}.
gd::host_typed_graph<offset_t, index_t> handmade()
{
  gd::host_typed_graph<offset_t, index_t> g;
  g.schema = gd::typed_schema({"paper", "author"}, {{"author", "writes", "paper"},
                                                    {"paper", "cites", "paper"},
                                                    {"paper", "rev_writes", "author"}});
  g.num_nodes = {3, 2};
  auto csc = [](std::vector<offset_t> indptr, std::vector<index_t> indices) {
    gd::host_csr<offset_t, index_t> c;
    c.num_nodes = static_cast<std::int64_t>(indptr.size()) - 1;
    c.indptr = std::move(indptr);
    c.indices = std::move(indices);
    return c;
  };
  g.relations.push_back(csc({0, 2, 3, 3}, {0, 1, 1}));
  g.relations.push_back(csc({0, 1, 2, 3}, {1, 2, 0}));
  g.relations.push_back(csc({0, 1, 3}, {0, 0, 1}));
  return g;
}

}  // namespace

TEST_CASE("typed schema: lookups and bad names are named")
{
  gd::typed_schema const s({"paper", "author"}, {{"author", "writes", "paper"}, {"paper", "cites", "paper"}});
  CHECK(s.node_type("author") == 1);
  CHECK(s.relation_index(gd::relation_type{"paper", "cites", "paper"}) == 1);
  CHECK(s.relation_index(std::string("writes")) == 0);
  CHECK(s.src_type(0) == 1);
  CHECK(s.dst_type(0) == 0);
  expect_message([&] { (void)s.node_type("venue"); }, "unknown node type 'venue'");
  expect_message([&] { (void)s.relation_index(gd::relation_type{"paper", "writes", "author"}); },
                 "unknown relation (paper, writes, author)");
  expect_message([] { gd::typed_schema({"a", "a"}, {}); }, "node type 'a' is given twice");
  expect_message([] { gd::typed_schema({"a"}, {{"a", "r", "b"}}); }, "unknown node type 'b'");
  expect_message([] { gd::typed_schema({"a"}, {{"a", "r", "a"}, {"a", "r", "a"}}); }, "given twice");
}

TEST_CASE("typed fanouts: PyG's dict semantics and its errors")
{
  gd::typed_schema const s({"paper", "author"}, {{"author", "writes", "paper"}, {"paper", "cites", "paper"}});
  auto const f = gd::typed_fanouts_of(s, {{{"paper", "cites", "paper"}, {5, 3}}, {{"author", "writes", "paper"}, {-1, 0}}});
  CHECK(f.num_layers() == 2);
  CHECK(f.per_relation[0] == std::vector<int>{-1, 0});
  CHECK(f.per_relation[1] == std::vector<int>{5, 3});
  auto const all = gd::typed_fanouts_of(s, std::vector<int>{15, 10, 5});
  CHECK(all.per_relation[1] == std::vector<int>{15, 10, 5});
  expect_message([&] { gd::typed_fanouts_of(s, {{{"paper", "writes", "author"}, {1}}, {{"paper", "cites", "paper"}, {1}}}); },
                 "names relation (paper, writes, author), which the graph does not have");
  expect_message([&] { gd::typed_fanouts_of(s, {{{"paper", "cites", "paper"}, {1}}}); },
                 "no fanouts for relation (author, writes, paper)");
  expect_message([&] { gd::typed_fanouts_of(s, {{{"paper", "cites", "paper"}, {1}}, {{"author", "writes", "paper"}, {1, 2}}}); },
                 "has 2 fanouts, other relations 1");
  expect_message([&] { gd::typed_fanouts_of(s, std::vector<int>{3, -2}); }, "fanout -2");
  auto const fallback = gd::typed_fanouts_of(s, {{{"paper", "cites", "paper"}, {4}}}, {2});
  CHECK(fallback.per_relation[0] == std::vector<int>{2});
}

TEST_CASE("typed graph: shape, structure and table rows are validated with the culprit named")
{
  auto g = handmade();
  gd::validate_typed(g.view(), &g.schema);  // valid
  CHECK(g.view().relations[0].max_degree == 2);
  SUBCASE("a neighbour id outside its src type")
  {
    g.relations[0].indices[2] = 2;  // author ids are [0, 2)
    expect_message([&] { gd::validate_typed(g.view(), &g.schema); },
                   "relation (author, writes, paper): indices[2] = 2 is out of range [0, 2)");
  }
  SUBCASE("a decreasing indptr")
  {
    g.relations[1].indptr[2] = 0;
    expect_message([&] { gd::validate_typed(g.view(), &g.schema); }, "relation (paper, cites, paper): indptr[2] = 0");
  }
  SUBCASE("a relation whose row count disagrees with its dst type")
  {
    auto v = g.view();
    v.relations[2].csc.num_nodes = 3;
    expect_message([&] { gd::validate_typed(v, &g.schema); },
                   "relation (paper, rev_writes, author): its CSC has 3 rows but its dst type 'author' has 2 nodes");
  }
  SUBCASE("an unknown endpoint type index")
  {
    auto v = g.view();
    v.relations[1].src_type = 7;
    expect_message([&] { gd::validate_typed(v); }, "relation 1: src_type 7 is no node type");
  }
  SUBCASE("feature tables")
  {
    gd::check_typed_table_rows(g.view(), {3, -1}, &g.schema);  // author has no features: allowed
    expect_message([&] { gd::check_typed_table_rows(g.view(), {3, 5}, &g.schema); },
                   "the table of node type 'author' has 5 rows, the type has 2 nodes");
    expect_message([&] { gd::check_typed_table_rows(g.view(), {3}, &g.schema); }, "1 tables for 2 node types");
  }
}

TEST_CASE("typed bounds: frontiers, edges and list lengths")
{
  auto const g = handmade();
  auto const v = g.view();
  auto const f = gd::typed_fanouts_of(g.schema, std::vector<int>{2, -1});
  auto const b = gd::sample_typed_blocks_bounds(v, 0, 4, f);
  REQUIRE(b.num_layers() == 2);
  CHECK(b.frontier[0] == std::vector<std::int64_t>{4, 0});
  CHECK(b.layers[0][0].num_dst == 4);
  CHECK(b.layers[0][0].num_edges == 8);
  CHECK(b.layers[0][2].num_dst == 0);
  CHECK(b.new_nodes[0] == std::vector<std::int64_t>{3, 2});  // 8 cites edges capped at 3 papers
  CHECK(b.fanouts[1][0] == 2);                               // -1: max_degree of writes
  CHECK(b.nodes == std::vector<std::int64_t>{7, 2});         // 4 seeds + 3 papers; 2 authors
  expect_message([&] { gd::sample_typed_blocks_bounds(v, 2, 1, f); }, "seed type 2 is no node type");
  auto unknown = v;
  unknown.relations[1].max_degree = -1;
  expect_message([&] { gd::sample_typed_blocks_bounds(unknown, 0, 1, f); }, "whose max_degree is not known");
}

TEST_CASE("typed reference: exact on a handmade graph with fanout -1 (all neighbours)")
{
  auto const g = handmade();
  auto const f = gd::typed_fanouts_of(g.schema, std::vector<int>{-1, -1});
  std::vector<index_t> const seeds{2, 0};
  auto const out = gd::host::sample_typed_blocks_reference(g.view(), 0, seeds.data(), 2, f, gd::uniform_sampler{7}, 1);
  // Layer 0: frontier paper {2, 0}. writes: paper 2 <- {}, paper 0 <- authors {0, 1} (new: 0, 1).
  // cites: paper 2 <- {0} (local 1, a seed), paper 0 <- {1} (new paper 1 -> local 2).
  // rev_writes: author frontier empty.
  // Layer 1: frontier paper {1}, author {0, 1}. writes: paper 1 <- {1} (local 1).
  // cites: paper 1 <- {2} (local 0). rev_writes: author 0 <- {0}, author 1 <- {0, 1}:
  // paper 0 is local 1, paper 1 is local 2.
  CHECK(out.node_types[0].nodes == std::vector<index_t>{2, 0, 1});
  CHECK(out.node_types[0].counts == std::vector<std::int64_t>{2, 3, 3});
  CHECK(out.node_types[1].nodes == std::vector<index_t>{0, 1});
  CHECK(out.node_types[1].counts == std::vector<std::int64_t>{0, 2, 2});
  auto const& l0 = out.layers[0];
  CHECK(l0[0].offsets == std::vector<std::int64_t>{0, 0, 2});
  CHECK(l0[0].indices == std::vector<index_t>{0, 1});
  CHECK(l0[1].offsets == std::vector<std::int64_t>{0, 1, 2});
  CHECK(l0[1].indices == std::vector<index_t>{1, 2});
  CHECK(l0[2].offsets == std::vector<std::int64_t>{0});
  auto const& l1 = out.layers[1];
  CHECK(l1[0].dst_begin == 2);
  CHECK(l1[0].indices == std::vector<index_t>{1});
  CHECK(l1[1].indices == std::vector<index_t>{0});
  CHECK(l1[2].dst_begin == 0);
  CHECK(l1[2].offsets == std::vector<std::int64_t>{0, 1, 3});
  CHECK(l1[2].indices == std::vector<index_t>{1, 1, 2});
  CHECK(l1[2].edge_ids == std::vector<offset_t>{0, 1, 2});
  std::vector<index_t> const bad{1, 3};
  expect_message([&] { gd::host::sample_typed_blocks_reference(g.view(), 0, bad.data(), 2, f, gd::uniform_sampler{7}, 1); },
                 "seeds (node type 0)[1] = 3 is out of range [0, 3)");
}

TEST_CASE("typed reference: PyG's invariants on a fresh ogbn-mag-shaped graph")
{
  std::uint64_t const seed = std::random_device{}();
  CAPTURE(seed);
  auto const g = gd::host::generate_typed<offset_t, index_t>(gd::typed_preset::ogbn_mag, 2e-3, seed);
  auto const v = g.view();
  gd::validate_typed(v, &g.schema);
  REQUIRE(g.schema.num_relations() == 8);
  CHECK(g.schema.relation(4).name == "rev_writes");
  CHECK(g.relations[0].num_edges() == g.relations[4].num_edges());
  int const paper = g.schema.node_type("paper");
  std::mt19937_64 rng(seed);
  std::vector<index_t> seeds(64);
  for (auto& s : seeds) { s = static_cast<index_t>(rng() % static_cast<std::uint64_t>(v.num_nodes[paper])); }
  auto const f = gd::typed_fanouts_of(g.schema, std::vector<int>{6, 4, 2});
  gd::per_relation_samplers<gd::uniform_sampler, gd::uniform_with_replacement_sampler> samplers{
    {gd::uniform_sampler{seed}, gd::uniform_with_replacement_sampler{seed + 1}}, {0, 1, 0, 1, 0, 1, 0, 1}};
  auto const out = gd::host::sample_typed_blocks_reference(v, paper, seeds.data(), 64, f, samplers, 2);
  auto const again = gd::host::sample_typed_blocks_reference(v, paper, seeds.data(), 64, f, samplers, 1);
  for (int t = 0; t < v.num_node_types; ++t) {
    CAPTURE(t);
    CHECK(out.node_types[static_cast<std::size_t>(t)].nodes == again.node_types[static_cast<std::size_t>(t)].nodes);
  }
  for (std::size_t l = 0; l < 3; ++l) {
    // The new nodes of each type: distinct sampled srcs not yet listed, in order of first
    // appearance over relations (schema order), rows and draws.
    std::vector<std::vector<index_t>> expected_new(static_cast<std::size_t>(v.num_node_types));
    std::vector<std::unordered_set<index_t>> seen(static_cast<std::size_t>(v.num_node_types));
    for (int t = 0; t < v.num_node_types; ++t) {
      auto const& type = out.node_types[static_cast<std::size_t>(t)];
      seen[static_cast<std::size_t>(t)].insert(type.nodes.begin(), type.nodes.begin() + type.counts[l]);
    }
    for (int r = 0; r < v.num_relations; ++r) {
      CAPTURE(l);
      CAPTURE(r);
      auto const& rel = v.relations[r];
      auto const& block = out.layers[l][static_cast<std::size_t>(r)];
      auto const& dst = out.node_types[static_cast<std::size_t>(rel.dst_type)];
      auto const& src = out.node_types[static_cast<std::size_t>(rel.src_type)];
      std::int64_t const begin = l == 0 ? 0 : dst.counts[l - 1];
      REQUIRE(block.dst_begin == begin);
      REQUIRE(static_cast<std::int64_t>(block.offsets.size()) == dst.counts[l] - begin + 1);
      int const fanout = f.per_relation[static_cast<std::size_t>(r)][l];
      bool const replace = r % 2 == 1;
      for (std::size_t d = 0; d + 1 < block.offsets.size(); ++d) {
        index_t const node = dst.nodes[static_cast<std::size_t>(begin) + d];
        std::int64_t const degree = rel.csc.degree(node);
        std::int64_t const count = block.offsets[d + 1] - block.offsets[d];
        CHECK(count == (replace ? (degree > 0 ? fanout : 0) : std::min<std::int64_t>(degree, fanout)));
        for (std::int64_t e = block.offsets[d]; e < block.offsets[d + 1]; ++e) {
          auto const local = static_cast<std::size_t>(block.indices[static_cast<std::size_t>(e)]);
          REQUIRE(local < src.nodes.size());
          index_t const global = src.nodes[local];
          offset_t const edge = block.edge_ids[static_cast<std::size_t>(e)];
          CHECK(edge >= rel.csc.indptr[node]);
          CHECK(edge < rel.csc.indptr[node + 1]);
          CHECK(rel.csc.indices[edge] == global);
          if (seen[static_cast<std::size_t>(rel.src_type)].insert(global).second) {
            expected_new[static_cast<std::size_t>(rel.src_type)].push_back(global);
          }
        }
      }
    }
    for (int t = 0; t < v.num_node_types; ++t) {
      auto const& type = out.node_types[static_cast<std::size_t>(t)];
      std::vector<index_t> const added(type.nodes.begin() + type.counts[l], type.nodes.begin() + type.counts[l + 1]);
      CAPTURE(t);
      CHECK(added == expected_new[static_cast<std::size_t>(t)]);
    }
  }
  auto const b = gd::sample_typed_blocks_bounds(v, paper, 64, f);
  for (int t = 0; t < v.num_node_types; ++t) {
    CHECK(static_cast<std::int64_t>(out.node_types[static_cast<std::size_t>(t)].nodes.size()) <= b.nodes[static_cast<std::size_t>(t)]);
  }
  for (std::size_t l = 0; l < 3; ++l) {
    for (std::size_t r = 0; r < out.layers[l].size(); ++r) {
      CAPTURE(l);
      CAPTURE(r);
      auto const& block = out.layers[l][r];
      CHECK(static_cast<std::int64_t>(block.offsets.size()) - 1 <= b.layers[l][r].num_dst);
      CHECK(static_cast<std::int64_t>(block.indices.size()) <= b.layers[l][r].num_edges);
    }
  }
}

TEST_CASE("typed generators: IGBH's schema and scaled counts")
{
  auto const g = gd::host::generate_typed<offset_t, std::int32_t>(gd::typed_preset::igbh, 1e-5, 3);
  REQUIRE(g.schema.num_node_types() == 6);
  REQUIRE(g.schema.num_relations() == 12);
  CHECK(g.schema.relation(1).name == "written_by");
  CHECK(g.schema.relation(7).name == "rev_written_by");
  CHECK(g.num_nodes[0] == 2693);
  CHECK(g.relations[0].num_edges() == 39964);
  gd::validate_typed(g.view(), &g.schema);
}

TEST_CASE("typed reference: relation 0 draws what the homogeneous sampler draws at the same layer")
{
  std::uint64_t const seed = std::random_device{}();
  CAPTURE(seed);
  auto const mag = gd::host::generate_typed<offset_t, index_t>(gd::typed_preset::ogbn_mag, 1e-3, seed);
  // A one-type, one-relation graph: papers citing papers (ogbn-mag's relation 2).
  gd::host_typed_graph<offset_t, index_t> g;
  g.schema = gd::typed_schema({"paper"}, {{"paper", "cites", "paper"}});
  g.num_nodes = {mag.num_nodes[0]};
  g.relations.push_back(mag.relations[2]);
  std::mt19937_64 rng(seed);
  std::vector<index_t> seeds(50);
  for (auto& x : seeds) { x = static_cast<index_t>(rng() % static_cast<std::uint64_t>(g.num_nodes[0])); }
  gd::uniform_sampler const sampler{rng()};
  auto const typed = gd::host::sample_typed_blocks_reference(g.view(), 0, seeds.data(), 50,
                                                             gd::typed_fanouts_of(g.schema, std::vector<int>{4}), sampler, 1);
  auto const plain = gd::host::sample_neighbors_reference(g.relations[0].view(), seeds.data(), 50, 4, 0, sampler, 1);
  auto const& block = typed.layers[0][0];
  CHECK(block.offsets == plain.offsets);
  CHECK(block.edge_ids == plain.edge_ids);
  auto const& nodes = typed.node_types[0].nodes;
  REQUIRE(block.indices.size() == plain.neighbors.size());
  for (std::size_t e = 0; e < plain.neighbors.size(); ++e) {
    CHECK(nodes[static_cast<std::size_t>(block.indices[e])] == plain.neighbors[e]);
  }
  // Relation 1 at layer 0 draws with counter layer 65536: other neighbours than relation 0's.
  CHECK(gd::typed_random_layer(0, 1) == 65536);
  CHECK(gd::typed_random_layer(2, 3) == 2 + 3 * 65536);
}

namespace {

/// An independent typed sampler for fanout -1 (every neighbour, in list order): plain BFS over
/// relations in schema order, lists seeded per type; returns per type its node list and counts,
/// and per layer per relation (offsets, local indices, edge ids).
struct bfs_result {
  std::vector<std::vector<index_t>> nodes;
  std::vector<std::vector<std::int64_t>> counts;
  std::vector<std::vector<std::vector<std::int64_t>>> offsets;  // [l][r]
  std::vector<std::vector<std::vector<index_t>>> indices;       // [l][r]
  std::vector<std::vector<std::vector<offset_t>>> edge_ids;     // [l][r]
};

bfs_result typed_bfs_all(const gd::host_typed_graph<offset_t, index_t>& g,
                         const std::vector<std::vector<index_t>>& seeds, int layers)
{
  auto const types = seeds.size();
  bfs_result out;
  out.nodes = seeds;
  out.counts.resize(types);
  std::vector<std::vector<index_t>> frontier = seeds;
  for (std::size_t t = 0; t < types; ++t) { out.counts[t].push_back(static_cast<std::int64_t>(seeds[t].size())); }
  auto local_of = [&](std::size_t t, index_t id) -> std::int64_t {
    auto const& list = out.nodes[t];
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (list[i] == id) { return static_cast<std::int64_t>(i); }
    }
    return -1;
  };
  for (int l = 0; l < layers; ++l) {
    out.offsets.emplace_back();
    out.indices.emplace_back();
    out.edge_ids.emplace_back();
    std::vector<std::vector<index_t>> next(types);
    for (std::size_t r = 0; r < g.relations.size(); ++r) {
      auto const src = static_cast<std::size_t>(g.schema.src_type(static_cast<int>(r)));
      auto const dst = static_cast<std::size_t>(g.schema.dst_type(static_cast<int>(r)));
      auto const& csc = g.relations[r];
      std::vector<std::int64_t> offsets{0};
      std::vector<index_t> indices;
      std::vector<offset_t> edges;
      for (index_t v : frontier[dst]) {
        for (offset_t e = csc.indptr[static_cast<std::size_t>(v)]; e < csc.indptr[static_cast<std::size_t>(v) + 1]; ++e) {
          index_t const u = csc.indices[static_cast<std::size_t>(e)];
          std::int64_t local = local_of(src, u);
          if (local < 0) {
            local = static_cast<std::int64_t>(out.nodes[src].size());
            out.nodes[src].push_back(u);
            next[src].push_back(u);
          }
          indices.push_back(static_cast<index_t>(local));
          edges.push_back(e);
        }
        offsets.push_back(static_cast<std::int64_t>(indices.size()));
      }
      out.offsets.back().push_back(offsets);
      out.indices.back().push_back(indices);
      out.edge_ids.back().push_back(edges);
    }
    frontier = next;
    for (std::size_t t = 0; t < types; ++t) { out.counts[t].push_back(static_cast<std::int64_t>(out.nodes[t].size())); }
  }
  return out;
}

/// Views of per-type seed vectors.
gd::typed_seeds_view<index_t> seeds_view(const std::vector<std::vector<index_t>>& seeds)
{
  std::vector<const index_t*> p;
  std::vector<std::int64_t> n;
  for (auto const& s : seeds) {
    p.push_back(s.data());
    n.push_back(static_cast<std::int64_t>(s.size()));
  }
  return gd::typed_seeds_of(p, n);
}

}  // namespace

TEST_CASE("typed seeds view: builders and their errors")
{
  std::vector<index_t> const a{1, 2};
  auto const one = gd::typed_seeds_of<index_t>(3, 1, a.data(), 2);
  CHECK(one.num_node_types == 3);
  CHECK(one.count(0) == 0);
  CHECK(one.count(1) == 2);
  CHECK(one.of(1) == a.data());
  CHECK(one.of(2) == nullptr);
  auto const two = gd::typed_seeds_of<index_t>({a.data(), nullptr}, {2, 0});
  CHECK(two.num_node_types == 2);
  CHECK(two.count(0) == 2);
  expect_message([&] { gd::typed_seeds_of<index_t>(2, 2, a.data(), 1); }, "seed type 2 is no node type");
  expect_message([&] { gd::typed_seeds_of<index_t>(0, 0, a.data(), 1); }, "0 node types");
  expect_message([&] { gd::typed_seeds_of<index_t>(2, 0, a.data(), -1); }, "num_seeds must be >= 0");
  expect_message([&] { gd::typed_seeds_of<index_t>({a.data()}, {2, 0}); }, "1 seed arrays but 2 counts");
  expect_message([&] { gd::typed_seeds_of<index_t>({a.data(), a.data()}, {2, -3}); },
                 "node type 1 has -3 seeds");
  std::vector<const index_t*> many(17, a.data());
  expect_message([&] { gd::typed_seeds_of<index_t>(many, std::vector<std::int64_t>(17, 1)); }, "17 node types");
}

TEST_CASE("typed bounds, multi-type seeds: per-type frontiers and the one-type form as a special case")
{
  auto const g = handmade();
  auto const v = g.view();
  auto const f = gd::typed_fanouts_of(g.schema, std::vector<int>{2, -1});
  auto const b = gd::sample_typed_blocks_bounds(v, std::vector<std::int64_t>{2, 1}, f);
  CHECK(b.seed_type == -1);
  CHECK(b.frontier[0] == std::vector<std::int64_t>{2, 1});
  CHECK(b.layers[0][0].num_dst == 2);   // writes: paper rows
  CHECK(b.layers[0][2].num_dst == 1);   // rev_writes: the author seed
  CHECK(b.layers[0][2].num_edges == 2);
  CHECK(b.new_nodes[0] == std::vector<std::int64_t>{3, 2});  // papers: 4 cites + 2 rev_writes, capped at 3
  CHECK(b.nodes == std::vector<std::int64_t>{5, 3});         // 2 + 3 papers; 1 + 2 authors
  auto const one = gd::sample_typed_blocks_bounds(v, 0, 4, f);
  auto const multi = gd::sample_typed_blocks_bounds(v, std::vector<std::int64_t>{4, 0}, f);
  CHECK(one.seed_type == 0);
  CHECK(one.frontier == multi.frontier);
  CHECK(one.new_nodes == multi.new_nodes);
  CHECK(one.nodes == multi.nodes);
  CHECK(one.fanouts == multi.fanouts);
  std::vector<index_t> const a{0};
  auto const view = gd::typed_seeds_of<index_t>({a.data(), a.data()}, {1, 1});
  CHECK(gd::sample_typed_blocks_bounds(v, view, f).frontier[0] == std::vector<std::int64_t>{1, 1});
  expect_message([&] { gd::sample_typed_blocks_bounds(v, std::vector<std::int64_t>{1}, f); },
                 "seed counts for 1 node types, the graph has 2");
  expect_message([&] { gd::sample_typed_blocks_bounds(v, std::vector<std::int64_t>{1, -1}, f); },
                 "node type 1 has -1 seeds");
  auto const short_view = gd::typed_seeds_of<index_t>({a.data()}, {1});
  expect_message([&] { gd::sample_typed_blocks_bounds(v, short_view, f); }, "seeds for 1 node types, the graph has 2");
  auto null_view = view;
  null_view.seeds[1] = nullptr;
  expect_message([&] { gd::sample_typed_blocks_bounds(v, null_view, f); }, "null seeds of node type 1");
}

TEST_CASE("typed reference, multi-type seeds: exact on the handmade graph (paper and author seeds)")
{
  auto const g = handmade();
  auto const f = gd::typed_fanouts_of(g.schema, std::vector<int>{-1, -1});
  std::vector<std::vector<index_t>> const seeds{{1, 1}, {1}};  // a repeated paper seed, one author
  auto const out = gd::host::sample_typed_blocks_reference(g.view(), seeds_view(seeds), f, gd::uniform_sampler{3}, 1);
  // Layer 0: paper rows {1, 1}, author rows {1}.
  //   writes: paper 1 <- {author 1} twice: author 1 is the author seed (local 0).
  //   cites: paper 1 <- {paper 2} twice: new paper 2 -> local 2.
  //   rev_writes: author 1 <- {paper 0, paper 1}: new paper 0 -> local 3; paper 1 is local 0.
  // Layer 1: paper rows {2, 0} (dst_begin 2), no author rows (dst_begin 1).
  //   writes: paper 2 <- {}; paper 0 <- {author 0 (new, local 1), author 1 (local 0)}.
  //   cites: paper 2 <- {paper 0 (local 3)}; paper 0 <- {paper 1 (local 0)}.
  CHECK(out.node_types[0].nodes == std::vector<index_t>{1, 1, 2, 0});
  CHECK(out.node_types[0].counts == std::vector<std::int64_t>{2, 4, 4});
  CHECK(out.node_types[1].nodes == std::vector<index_t>{1, 0});
  CHECK(out.node_types[1].counts == std::vector<std::int64_t>{1, 1, 2});
  auto const& l0 = out.layers[0];
  CHECK(l0[0].offsets == std::vector<std::int64_t>{0, 1, 2});
  CHECK(l0[0].indices == std::vector<index_t>{0, 0});
  CHECK(l0[0].edge_ids == std::vector<offset_t>{2, 2});
  CHECK(l0[1].indices == std::vector<index_t>{2, 2});
  CHECK(l0[1].edge_ids == std::vector<offset_t>{1, 1});
  CHECK(l0[2].dst_begin == 0);
  CHECK(l0[2].offsets == std::vector<std::int64_t>{0, 2});
  CHECK(l0[2].indices == std::vector<index_t>{3, 0});
  CHECK(l0[2].edge_ids == std::vector<offset_t>{1, 2});
  auto const& l1 = out.layers[1];
  CHECK(l1[0].dst_begin == 2);
  CHECK(l1[0].offsets == std::vector<std::int64_t>{0, 0, 2});
  CHECK(l1[0].indices == std::vector<index_t>{1, 0});
  CHECK(l1[1].offsets == std::vector<std::int64_t>{0, 1, 2});
  CHECK(l1[1].indices == std::vector<index_t>{3, 0});
  CHECK(l1[1].edge_ids == std::vector<offset_t>{2, 0});
  CHECK(l1[2].dst_begin == 1);
  CHECK(l1[2].offsets == std::vector<std::int64_t>{0});
  SUBCASE("errors name the type")
  {
    std::vector<std::vector<index_t>> const bad{{0, 2}, {0, 2}};  // author ids are [0, 2)
    expect_message([&] { gd::host::sample_typed_blocks_reference(g.view(), seeds_view(bad), f, gd::uniform_sampler{3}, 1); },
                   "seeds (node type 1)[1] = 2 is out of range [0, 2)");
    std::vector<std::vector<index_t>> const neg{{-1}, {}};
    expect_message([&] { gd::host::sample_typed_blocks_reference(g.view(), seeds_view(neg), f, gd::uniform_sampler{3}, 1); },
                   "seeds (node type 0)[0] = -1 is out of range [0, 3)");
    std::vector<std::vector<index_t>> const three{{0}, {0}, {0}};
    expect_message([&] { gd::host::sample_typed_blocks_reference(g.view(), seeds_view(three), f, gd::uniform_sampler{3}, 1); },
                   "seeds for 3 node types, the graph has 2");
  }
  SUBCASE("no seeds at all")
  {
    std::vector<std::vector<index_t>> const none{{}, {}};
    auto const empty = gd::host::sample_typed_blocks_reference(g.view(), seeds_view(none), f, gd::uniform_sampler{3}, 1);
    CHECK(empty.node_types[0].counts == std::vector<std::int64_t>{0, 0, 0});
    CHECK(empty.layers[1][2].offsets == std::vector<std::int64_t>{0});
  }
}

TEST_CASE("typed reference, multi-type seeds: equals an independent BFS (fanout -1) on fresh random graphs")
{
  std::uint64_t const seed = std::random_device{}();
  CAPTURE(seed);
  auto const g = gd::host::generate_typed<offset_t, index_t>(gd::typed_preset::ogbn_mag, 2e-4, seed);
  auto const v = g.view();
  std::mt19937_64 rng(seed);
  std::vector<std::vector<index_t>> seeds(static_cast<std::size_t>(v.num_node_types));
  for (int t = 0; t < v.num_node_types; ++t) {
    if (t == 1 || v.num_nodes[t] == 0) { continue; }  // one type without seeds
    std::size_t const n = 1 + rng() % 5;
    for (std::size_t i = 0; i < n; ++i) {
      seeds[static_cast<std::size_t>(t)].push_back(static_cast<index_t>(rng() % static_cast<std::uint64_t>(v.num_nodes[t])));
    }
  }
  auto const f = gd::typed_fanouts_of(g.schema, std::vector<int>{-1, -1});
  auto const out = gd::host::sample_typed_blocks_reference(v, seeds_view(seeds), f, gd::uniform_sampler{seed}, 2);
  auto const expected = typed_bfs_all(g, seeds, 2);
  for (int t = 0; t < v.num_node_types; ++t) {
    CAPTURE(t);
    CHECK(out.node_types[static_cast<std::size_t>(t)].nodes == expected.nodes[static_cast<std::size_t>(t)]);
    CHECK(out.node_types[static_cast<std::size_t>(t)].counts == expected.counts[static_cast<std::size_t>(t)]);
  }
  for (std::size_t l = 0; l < 2; ++l) {
    for (std::size_t r = 0; r < out.layers[l].size(); ++r) {
      CAPTURE(l);
      CAPTURE(r);
      CHECK(out.layers[l][r].offsets == expected.offsets[l][r]);
      CHECK(out.layers[l][r].indices == expected.indices[l][r]);
      CHECK(out.layers[l][r].edge_ids == expected.edge_ids[l][r]);
    }
  }
}

TEST_CASE("typed reference: the one-type form equals the multi-type form with one type's seeds")
{
  std::uint64_t const seed = std::random_device{}();
  CAPTURE(seed);
  auto const g = gd::host::generate_typed<offset_t, index_t>(gd::typed_preset::ogbn_mag, 1e-3, seed);
  auto const v = g.view();
  int const paper = g.schema.node_type("paper");
  std::mt19937_64 rng(seed);
  std::vector<index_t> seeds(40);
  for (auto& s : seeds) { s = static_cast<index_t>(rng() % static_cast<std::uint64_t>(v.num_nodes[paper])); }
  auto const f = gd::typed_fanouts_of(g.schema, std::vector<int>{5, 3});
  gd::uniform_sampler const sampler{seed};
  auto const one = gd::host::sample_typed_blocks_reference(v, paper, seeds.data(), 40, f, sampler, 1);
  auto const multi = gd::host::sample_typed_blocks_reference(
    v, gd::typed_seeds_of(v.num_node_types, paper, seeds.data(), 40), f, sampler, 1);
  for (int t = 0; t < v.num_node_types; ++t) {
    CHECK(one.node_types[static_cast<std::size_t>(t)].nodes == multi.node_types[static_cast<std::size_t>(t)].nodes);
    CHECK(one.node_types[static_cast<std::size_t>(t)].counts == multi.node_types[static_cast<std::size_t>(t)].counts);
  }
  for (std::size_t l = 0; l < 2; ++l) {
    for (std::size_t r = 0; r < one.layers[l].size(); ++r) {
      CHECK(one.layers[l][r].offsets == multi.layers[l][r].offsets);
      CHECK(one.layers[l][r].indices == multi.layers[l][r].indices);
      CHECK(one.layers[l][r].edge_ids == multi.layers[l][r].edge_ids);
    }
  }
}
