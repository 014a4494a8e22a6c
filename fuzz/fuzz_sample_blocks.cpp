// libFuzzer target: host multi-layer sampling (host::cpu_sampler with 1 and 2 threads and
// host::sample_blocks_reference, each with all three library samplers) on small, possibly corrupt
// CSR graphs decoded from the bytes. Never crash (ASan/UBSan); and:
// - a bad seed (outside [0, num_nodes)) must raise index_out_of_range at the first bad position;
// - a corrupt neighbour list (indptr[v] < 0, indptr[v + 1] < indptr[v] or > num_edges) or an
//   out-of-range neighbour id that the sampler certainly reads must raise invalid_argument (or
//   its subclass index_out_of_range), naming a node / an id that is really corrupt;
// - one that the sampler reads only for some random draws (a list of a node that is reached only
//   if some neighbour is drawn; an id at a position that is drawn only sometimes) may raise it
//   (the samplers promise to check what they read, not the whole graph), but only naming
//   something that is corrupt and reachable;
// - any call that returns gives blocks whose invariants hold (see check_blocks), and the 1- and
//   2-thread CPU samplers agree on every layer's node and edge sets.
// "Certainly read" is decided by a plain reachability walk over the CSR, layer by layer, that
// knows only how many draws each sampler makes (pigeonhole: a neighbour that fills more than
// degree - draws positions is drawn for sure); it shares no code with the samplers.
//
// Layout: byte 0 = node count (0..63), byte 1 = edge count (raw indptr mode), byte 2 = flags
// (bit 0: weights, bit 1: edge ids, bit 2: indptr from cumulative deltas 0..7 with the edge
// count = indptr[n] (valid lists), bit 3: 64-bit offsets, bit 4: raw neighbour ids (else id mod
// n), bit 5 with byte 7 >= 0xf0: tile the seeds to 4096 (the 2-thread sampler's parallel
// relabelling), bits 6-7: one corruption of a delta-mode graph: 1 = indptr[k] = value,
// 2 = indices[k] = value, 3 = edge count -= value), byte 3 = sampler (% 3: uniform, with
// replacement, weighted) and layers (1 + (byte / 3) % 3), bytes 4-6 = fanouts (% 7), byte 7 =
// seed count (% 16), byte 8 = random seed (bit 0: the reference runs 2 threads), bytes 9-10 =
// corruption position k and value; then, one signed byte each and in this order, the seeds
// (-8..-1 and 120..127 kept, out of range; else id mod n), indptr, indices, weights (NaN, +inf,
// -inf, negative, zero, positive), edge ids; missing bytes read as 0. Every array is exactly
// as long as its view says, so that ASan sees any read past one.
#include "fuzz_bytes.hpp"
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/host/cpu_sampler.hpp>
#include <gnndirect/reference/sample_reference.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using gnndirect_fuzz::byte_reader;
using gnndirect_fuzz::weight_from;

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail = {})
{
  std::fprintf(stderr, "fuzz_sample_blocks: %s %s\n", what, detail.c_str());
  std::abort();
}

enum class kind { uniform, replace, weighted };

/// The decoded graph, in plain vectors (int64 everywhere; the views use the chosen types).
struct graph {
  std::int64_t n{0};
  std::int64_t m{0};
  std::vector<std::int64_t> indptr;
  std::vector<std::int64_t> indices;
  std::vector<float> weights;        // empty: none
  std::vector<std::int64_t> edge_ids;  // empty: none

  bool list_corrupt(std::int64_t v) const
  {
    return indptr[v] < 0 || indptr[v + 1] < indptr[v] || indptr[v + 1] > m;
  }
  std::int64_t edge_id(std::int64_t p) const { return edge_ids.empty() ? p : edge_ids[p]; }
  bool in_range(std::int64_t u) const { return u >= 0 && u < n; }
};

/// What the reachability walk expects of a call.
struct expectation {
  bool must_throw{false};
  std::int64_t first_bad_seed{-1};           // >= 0: index_out_of_range at this position
  bool missing_weights{false};               // weighted sampler, no weights, edges present
  std::set<std::int64_t> corrupt_nodes;      // corrupt lists that may be read
  std::set<std::int64_t> bad_ids;            // out-of-range neighbour ids that may be drawn
};

/// Positions of v's (valid) list that the sampler may draw, and whether each is certainly drawn
/// (pigeonhole over the neighbour id), for fanout f.
void drawable(const graph& g, std::int64_t v, int f, kind k,
              std::vector<std::pair<std::int64_t, bool>>& out)
{
  out.clear();
  std::int64_t const b = g.indptr[v];
  std::int64_t const e = g.indptr[v + 1];
  std::vector<std::int64_t> eligible;
  for (std::int64_t p = b; p < e; ++p) {
    if (k != kind::weighted || g.weights[p] > 0.0f) { eligible.push_back(p); }
  }
  auto const deg = static_cast<std::int64_t>(eligible.size());
  if (f == 0 || deg == 0) { return; }
  // Distinct positions drawn (without replacement): min(deg, f); with replacement, f draws that
  // may all land on one position, so only a neighbour filling every position is certain.
  std::int64_t const slack = k == kind::replace ? deg - 1 : deg - std::min<std::int64_t>(deg, f);
  for (std::int64_t p : eligible) {
    std::int64_t same = 0;
    for (std::int64_t q : eligible) { same += g.indices[q] == g.indices[p] ? 1 : 0; }
    out.emplace_back(p, same > slack);
  }
}

expectation expect(const graph& g, const std::vector<std::int64_t>& seeds,
                   const std::vector<int>& fanouts, kind k)
{
  expectation x;
  if (k == kind::weighted && g.weights.empty() && g.m > 0) {
    x.missing_weights = true;
    x.must_throw = true;
  }
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    if (!g.in_range(seeds[i])) {
      x.first_bad_seed = static_cast<std::int64_t>(i);
      x.must_throw = true;
      return x;
    }
  }
  if (x.missing_weights) { return x; }
  std::map<std::int64_t, bool> dst;  // node -> certainly among this layer's dst nodes
  for (std::int64_t s : seeds) { dst[s] = true; }
  std::vector<std::pair<std::int64_t, bool>> positions;
  for (int f : fanouts) {
    std::map<std::int64_t, bool> next = dst;
    for (auto const& [v, certain] : dst) {
      if (g.list_corrupt(v)) {
        x.corrupt_nodes.insert(v);
        x.must_throw = x.must_throw || certain;
        continue;
      }
      drawable(g, v, f, k, positions);
      for (auto const& [p, drawn] : positions) {
        std::int64_t const u = g.indices[p];
        bool const sure = certain && drawn;
        if (!g.in_range(u)) {
          x.bad_ids.insert(u);
          x.must_throw = x.must_throw || sure;
          continue;
        }
        next[u] = next[u] || sure;
      }
    }
    dst = std::move(next);
  }
  return x;
}

/// The node named by a corrupt-list message ("... node V's neighbour list ..."), or -1.
std::int64_t named_node(const std::string& message)
{
  std::size_t const at = message.find("'s neighbour list");
  if (at == std::string::npos) { return -1; }
  std::size_t begin = at;
  while (begin > 0 && message[begin - 1] >= '0' && message[begin - 1] <= '9') { --begin; }
  if (begin == at) { return -1; }
  return std::stoll(message.substr(begin, at - begin));
}

/// Checks a thrown error against the expectation: it must name something really corrupt.
void check_error(const expectation& x, const gnndirect::invalid_argument& error, const char* who)
{
  std::string const message = error.what();
  if (auto const* index = dynamic_cast<const gnndirect::index_out_of_range*>(&error)) {
    if (x.first_bad_seed >= 0) {
      if (index->position() != x.first_bad_seed) { fail(who, "wrong bad seed position: " + message); }
      return;
    }
    if (x.bad_ids.count(index->value()) == 0) { fail(who, "unjustified index_out_of_range: " + message); }
    return;
  }
  // Missing weights and a bad seed together: either error is right (the reference checks the
  // seeds first, the CPU sampler its arguments before its passes).
  bool const weights_named = message.find("needs_weights") != std::string::npos;
  if (x.first_bad_seed >= 0 && !(x.missing_weights && weights_named)) {
    fail(who, "a bad seed gave a plain invalid_argument: " + message);
  }
  if (x.missing_weights) {
    if (!weights_named) { fail(who, "unexpected: " + message); }
    return;
  }
  std::int64_t const v = named_node(message);
  if (v < 0 || x.corrupt_nodes.count(v) == 0) { fail(who, "unjustified invalid_argument: " + message); }
}

/// Invariants of one multi-layer result (cpu_blocks or sampled_blocks: same field names).
template <class Blocks>
void check_blocks(const graph& g, const std::vector<std::int64_t>& seeds,
                  const std::vector<int>& fanouts, kind k, const Blocks& blocks, const char* who)
{
  if (blocks.layers.size() != fanouts.size()) { fail(who, "layer count"); }
  std::vector<std::int64_t> dst_expected = seeds;
  for (std::size_t l = 0; l < blocks.layers.size(); ++l) {
    auto const& b = blocks.layers[l];
    int const f = fanouts[l];
    std::string const at = "layer " + std::to_string(l);
    auto const num_dst = static_cast<std::int64_t>(b.dst_nodes.size());
    auto const num_src = static_cast<std::int64_t>(b.src_nodes.size());
    auto const num_edges = static_cast<std::int64_t>(b.indices.size());
    if (num_dst != static_cast<std::int64_t>(dst_expected.size())) { fail(who, at + ": dst count"); }
    for (std::int64_t d = 0; d < num_dst; ++d) {
      if (static_cast<std::int64_t>(b.dst_nodes[d]) != dst_expected[d]) { fail(who, at + ": dst nodes"); }
    }
    if (static_cast<std::int64_t>(b.offsets.size()) != num_dst + 1 || b.offsets[0] != 0 ||
        b.offsets[num_dst] != num_edges || static_cast<std::int64_t>(b.edge_ids.size()) != num_edges) {
      fail(who, at + ": offsets / sizes");
    }
    if (num_src < num_dst) { fail(who, at + ": fewer src than dst nodes"); }
    for (std::int64_t d = 0; d < num_dst; ++d) {
      if (b.offsets[d + 1] < b.offsets[d]) { fail(who, at + ": decreasing offsets"); }
      if (b.src_nodes[d] != b.dst_nodes[d]) { fail(who, at + ": src nodes do not start with dst"); }
    }
    std::set<std::int64_t> dst_set(dst_expected.begin(), dst_expected.end());
    std::set<std::int64_t> new_src;
    for (std::int64_t s = 0; s < num_src; ++s) {
      auto const u = static_cast<std::int64_t>(b.src_nodes[s]);
      if (!g.in_range(u)) { fail(who, at + ": src node out of range: " + std::to_string(u)); }
      if (s >= num_dst && (dst_set.count(u) != 0 || !new_src.insert(u).second)) {
        fail(who, at + ": repeated src node " + std::to_string(u));
      }
    }
    std::vector<bool> used(static_cast<std::size_t>(num_src), false);
    std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> first_row;
    for (std::int64_t d = 0; d < num_dst; ++d) {
      std::int64_t const v = dst_expected[d];
      std::vector<std::pair<std::int64_t, std::int64_t>> row;  // (global src, edge id)
      for (std::int64_t e = b.offsets[d]; e < b.offsets[d + 1]; ++e) {
        auto const local = static_cast<std::int64_t>(b.indices[e]);
        if (local < 0 || local >= num_src) { fail(who, at + ": local index out of range"); }
        used[static_cast<std::size_t>(local)] = true;
        row.emplace_back(static_cast<std::int64_t>(b.src_nodes[local]),
                         static_cast<std::int64_t>(b.edge_ids[e]));
      }
      auto const seen = first_row.find(v);
      if (seen != first_row.end()) {  // a repeated dst id samples the same as its first row
        if (seen->second != row) { fail(who, at + ": repeated dst node sampled differently"); }
        continue;
      }
      // Every sampled edge is an edge of v's list with its edge id; count as promised;
      // without replacement no list position twice (multiset of (neighbour, edge id)).
      if (g.list_corrupt(v)) { fail(who, at + ": sampled a corrupt list without an error"); }
      std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> available;
      std::int64_t eligible = 0;
      for (std::int64_t p = g.indptr[v]; p < g.indptr[v + 1]; ++p) {
        if (k == kind::weighted && !(g.weights[p] > 0.0f)) { continue; }
        ++eligible;
        ++available[{g.indices[p], g.edge_id(p)}];
      }
      std::int64_t const count = k == kind::replace ? (eligible > 0 ? f : 0)
                                                    : std::min<std::int64_t>(eligible, f);
      if (static_cast<std::int64_t>(row.size()) != count) { fail(who, at + ": sample count"); }
      for (auto const& edge : row) {
        auto const it = available.find(edge);
        if (it == available.end() || it->second == 0) {
          fail(who, at + ": sampled edge (" + std::to_string(v) + ", " + std::to_string(edge.first) +
                      ") id " + std::to_string(edge.second) + " not in the list (or drawn twice)");
        }
        if (k != kind::replace) { --it->second; }
      }
      first_row.emplace(v, std::move(row));
    }
    for (std::int64_t s = num_dst; s < num_src; ++s) {
      if (!used[static_cast<std::size_t>(s)]) { fail(who, at + ": src node no edge reaches"); }
    }
    dst_expected.assign(b.src_nodes.begin(), b.src_nodes.end());
  }
}

using edge_list = std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>;

/// Per layer: the sorted src nodes and the sorted (dst, src, edge id) edges in global ids.
template <class Blocks>
std::vector<std::pair<std::vector<std::int64_t>, edge_list>> global_sets(const Blocks& blocks)
{
  std::vector<std::pair<std::vector<std::int64_t>, edge_list>> out;
  for (auto const& b : blocks.layers) {
    out.emplace_back();
    out.back().first.assign(b.src_nodes.begin(), b.src_nodes.end());
    std::sort(out.back().first.begin(), out.back().first.end());
    for (std::size_t d = 0; d + 1 < b.offsets.size(); ++d) {
      for (std::int64_t e = b.offsets[d]; e < b.offsets[d + 1]; ++e) {
        out.back().second.emplace_back(b.dst_nodes[d], b.src_nodes[static_cast<std::size_t>(b.indices[e])],
                                       b.edge_ids[e]);
      }
    }
    std::sort(out.back().second.begin(), out.back().second.end());
  }
  return out;
}

/// Same node and edge sets in every layer (the 1- and 2-thread samplers may order local ids
/// differently when the 2-thread one relabels in parallel; see cpu_sampler.hpp).
template <class Blocks>
bool same_sets(const Blocks& a, const Blocks& b)
{
  bool identical = a.layers.size() == b.layers.size();
  for (std::size_t l = 0; identical && l < a.layers.size(); ++l) {
    auto const& x = a.layers[l];
    auto const& y = b.layers[l];
    identical = x.dst_nodes == y.dst_nodes && x.src_nodes == y.src_nodes && x.offsets == y.offsets &&
                x.indices == y.indices && x.edge_ids == y.edge_ids;
  }
  return identical || global_sets(a) == global_sets(b);
}

/// Runs `call` (which returns blocks) and checks its outcome against the expectation. Returns
/// whether it returned (then `blocks` holds the result).
template <class Blocks, class Call>
bool run_checked(const graph& g, const std::vector<std::int64_t>& seeds,
                 const std::vector<int>& fanouts, kind k, const expectation& x, const char* who,
                 Blocks& blocks, Call&& call)
{
  try {
    call(blocks);
  } catch (const gnndirect::invalid_argument& error) {
    if (!x.must_throw && x.corrupt_nodes.empty() && x.bad_ids.empty()) {
      fail(who, std::string("threw on a graph whose reachable part is valid: ") + error.what());
    }
    check_error(x, error, who);
    return false;
  }
  if (x.must_throw) { fail(who, "returned although a bad seed or a certainly-read corruption"); }
  check_blocks(g, seeds, fanouts, k, blocks, who);
  return true;
}

template <class Offset>
void run(const graph& g, const std::vector<std::int64_t>& seeds64, const std::vector<int>& fanouts,
         kind k, std::uint64_t seed, bool two_threads)
{
  using Index = std::int32_t;
  std::vector<Offset> indptr(g.indptr.begin(), g.indptr.end());
  std::vector<Index> indices(g.indices.begin(), g.indices.end());
  std::vector<Offset> edge_ids(g.edge_ids.begin(), g.edge_ids.end());
  std::vector<float> weights = g.weights;
  std::vector<Index> seeds(seeds64.begin(), seeds64.end());
  gnndirect::csr_view<Offset, Index> csr;
  csr.indptr = indptr.data();
  csr.indices = indices.empty() ? nullptr : indices.data();
  csr.weights = weights.empty() ? nullptr : weights.data();
  csr.edge_ids = edge_ids.empty() ? nullptr : edge_ids.data();
  csr.num_nodes = g.n;
  csr.num_edges = g.m;
  csr.indptr_kind = csr.indices_kind = gnndirect::memory_kind::pinned;
  auto const num_seeds = static_cast<std::int64_t>(seeds.size());
  expectation const x = expect(g, seeds64, fanouts, k);

  auto reference = [&](auto sampler) {
    // Tiled seeds are there for the CPU sampler's parallel relabelling; the reference has no
    // such path, and skipping it keeps those (slow) runs shorter.
    if (num_seeds > 16) { return; }
    gnndirect::host::reference_blocks<Offset, Index> blocks;
    run_checked(g, seeds64, fanouts, k, x, "sample_blocks_reference", blocks, [&](auto& out) {
      out = gnndirect::host::sample_blocks_reference(csr, seeds.data(), num_seeds, fanouts, sampler,
                                                     two_threads ? 2 : 1);
    });
  };
  // Persistent samplers and outputs: the marker and the storage are reused across inputs, as a
  // loader reuses them, so a mark left behind by an earlier (failed) call would show.
  static gnndirect::host::cpu_sampler one(1);
  static gnndirect::host::cpu_sampler two(2);
  static gnndirect::host::cpu_blocks<Offset, Index> reused;
  auto cpu = [&](auto sampler) {
    gnndirect::host::cpu_blocks<Offset, Index> fresh;
    bool const ok1 = run_checked(g, seeds64, fanouts, k, x, "cpu_sampler(1)", reused, [&](auto& out) {
      one.sample_blocks(csr, seeds.data(), num_seeds, fanouts, sampler, out);
    });
    bool const ok2 = run_checked(g, seeds64, fanouts, k, x, "cpu_sampler(2)", fresh, [&](auto& out) {
      two.sample_blocks(csr, seeds.data(), num_seeds, fanouts, sampler, out);
    });
    if (ok1 != ok2) { fail("cpu_sampler", "1 and 2 threads disagree on whether the call fails"); }
    if (ok1 && !same_sets(reused, fresh)) {
      fail("cpu_sampler", "1 and 2 threads sampled different node or edge sets");
    }
  };
  switch (k) {
    case kind::uniform:
      cpu(gnndirect::uniform_sampler{seed});
      reference(gnndirect::uniform_sampler{seed});
      break;
    case kind::replace:
      cpu(gnndirect::uniform_with_replacement_sampler{seed});
      reference(gnndirect::uniform_with_replacement_sampler{seed});
      break;
    case kind::weighted:
      cpu(gnndirect::weighted_sampler{seed});
      reference(gnndirect::weighted_sampler{seed});
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  if (size < 11) { return 0; }
  graph g;
  g.n = data[0] % 64;
  std::uint8_t const flags = data[2];
  auto const k = static_cast<kind>(data[3] % 3);
  std::vector<int> fanouts(1 + (data[3] / 3) % 3);
  for (std::size_t l = 0; l < fanouts.size(); ++l) { fanouts[l] = data[4 + l] % 7; }
  std::size_t const num_seeds = data[7] % 16;
  std::uint64_t const seed = data[8];
  std::int64_t const corrupt_at = data[9];
  auto const corrupt_value = static_cast<std::int8_t>(data[10]);
  bool const deltas = (flags & 4) != 0;
  byte_reader in{data, size, 11};

  std::vector<std::int64_t> seeds(num_seeds);
  for (auto& s : seeds) {
    std::int8_t const byte = in.next();
    bool const raw = g.n == 0 || (byte >= -8 && byte < 0) || byte >= 120;  // out of range
    s = raw ? byte : (byte & 0x7f) % g.n;
  }
  if ((flags & 32) != 0 && data[7] >= 0xf0 && !seeds.empty()) {  // rare: it costs ~100x a run
    for (std::size_t i = seeds.size(); i < 4096; ++i) { seeds.push_back(seeds[i % num_seeds]); }
  }
  g.indptr.resize(static_cast<std::size_t>(g.n) + 1);
  std::int64_t sum = 0;
  for (auto& offset : g.indptr) {
    std::int8_t const byte = in.next();
    offset = deltas ? (sum += byte & 7) : byte;
  }
  if (deltas) {
    for (auto& offset : g.indptr) { offset -= g.indptr[0]; }
    g.m = g.indptr.back();
  } else {
    g.m = data[1];
  }
  g.indices.resize(static_cast<std::size_t>(g.m));
  for (auto& index : g.indices) {
    std::int8_t const byte = in.next();
    index = (flags & 16) != 0 || g.n == 0 ? byte : (byte & 0x7f) % g.n;
  }
  if ((flags & 1) != 0) {
    g.weights.resize(static_cast<std::size_t>(g.m));
    for (auto& weight : g.weights) { weight = weight_from(in.next()); }
  }
  if ((flags & 2) != 0) {
    g.edge_ids.resize(static_cast<std::size_t>(g.m));
    for (auto& id : g.edge_ids) { id = in.next(); }
  }
  if (deltas) {  // one targeted corruption of an otherwise valid graph
    switch (flags >> 6) {
      case 1: g.indptr[static_cast<std::size_t>(corrupt_at % (g.n + 1))] = corrupt_value; break;
      case 2:
        if (g.m > 0) { g.indices[static_cast<std::size_t>(corrupt_at % g.m)] = corrupt_value; }
        break;
      case 3: g.m = std::max<std::int64_t>(0, g.m - (corrupt_value & 0x7f)); break;
      default: break;
    }
  }
  // Exactly num_edges long, so that ASan sees any read past the edge array.
  g.indices.resize(static_cast<std::size_t>(g.m));
  if (!g.weights.empty()) { g.weights.resize(static_cast<std::size_t>(g.m)); }
  if (!g.edge_ids.empty()) { g.edge_ids.resize(static_cast<std::size_t>(g.m)); }
  bool const two_threads = (seed & 1) != 0;  // threads of the reference (the CPU sampler runs both)
  if ((flags & 8) != 0) {
    run<std::int64_t>(g, seeds, fanouts, k, seed, two_threads);
  } else {
    run<std::int32_t>(g, seeds, fanouts, k, seed, two_threads);
  }
  return 0;
}
