#pragma once
/// @file cpu_sampler.hpp
/// @brief Fast CPU neighbour sampler with relabelling to local ids: the CPU-centric data path
/// (host-compilable).
///
/// This is a real CPU loader path, written for speed, and the CPU-centric baseline of the
/// benchmarks. It is NOT bit-equal to the GPU sampler: host::sample_blocks_reference
/// (sample_reference.hpp) stays the oracle the GPU is checked against.
///
/// How it is fast:
/// - all cores through a persistent worker_pool; work is cut into chunks of 512 dst nodes taken
///   dynamically (power-law degrees balance themselves);
/// - one splitmix64 stream per (seed, layer, node id), as the GPU sampler keys Philox: a node's
///   samples depend on the seed only, never on the thread count or its position in the batch,
///   and cost one multiply-xorshift per draw;
/// - no allocation per seed or per batch in steady state: outputs are reused (default-initialised
///   vectors, so growing them does not zero-fill on one thread) and Floyd's positions are
///   staged in the output's edge-id slots;
/// - relabelling through one dense marker array (8 bytes per graph node, allocated once, reset
///   only where it was touched) instead of a hash map. torch-sparse and pyg-lib relabel with one
///   hash map per batch on one thread; here one thread does one marker access per edge, and
///   several threads do it in four parallel passes per layer (claim with plain stores, no
///   compare-exchange, then count owners, assign ids, translate).
///
/// Samplers: the library's three (device/samplers.hpp), given as types like every sampling
/// entry point; their seed keys the streams. User-written samplers are the GPU's: other types
/// fail to compile with a message. Each draws from the same distribution as its GPU form, from
/// other random numbers. Semantics:
/// - without replacement: degree <= fanout takes every neighbour in stored order; otherwise
///   Floyd's algorithm picks `fanout` distinct positions uniformly (every subset equally likely),
///   listed in Floyd's insertion order, not sorted;
/// - with replacement: `fanout` independent uniform positions (nothing for degree 0);
/// - weighted (without replacement, csr.weights required): edges of weight <= 0 or NaN are never
///   taken; at most `fanout` such positive edges: all of them; otherwise Efraimidis-Spirakis
///   (edge p gets the key -ln(u_p) / w_p, the `fanout` smallest keys win). Listed in stored
///   order. Costs one pass over each sampled node's weights, one draw and one log per positive
///   edge;
/// - a node listed twice among one layer's dst nodes gets the same samples both times (DGL's and
///   the GPU sampler's "deterministic per node"); batches differ through the seed.
/// Block layout (that of gnndirect::sample_blocks): src_nodes = dst_nodes in order, then every
/// other sampled neighbour once; indices are local src ids, src_nodes[indices[e]] is the global
/// neighbour. Order of the new src nodes:
/// - one thread, or a layer of fewer than 16384 sampled edges: first appearance in the layer's
///   concatenated per-dst samples (as gnndirect::sample_blocks), edges to a repeated dst id use
///   its first row;
/// - otherwise grouped by chunk of 512 dst nodes, in chunk order, first appearance within the
///   chunk; a node reached from several chunks belongs to one of them, and which one (so the
///   local ids, the next layer's dst order and which row of a repeated dst id edges use) can
///   differ between runs. What each global node samples in each layer, and so every layer's node
///   set and edge set in global ids, never does.

#include <gnndirect/core/sampled_refs.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/philox.hpp>
#include <gnndirect/detail/host/cpu_sampler.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/util/parallel.hpp>
#include <gnndirect/util/worker_pool.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

/// A std::vector whose resize() does not zero-fill (elements of trivial types start
/// uninitialised). Used for the sampler's outputs so that reusing them costs nothing.
/// @tparam T element type
template <class T>
using host_vector = std::vector<T, detail::default_init_allocator<T>>;

/// Sampled neighbours of a batch in CSR form: seed i's are neighbors[offsets[i] .. offsets[i+1]).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct cpu_neighbors {
  host_vector<std::int64_t> offsets;  ///< num_seeds + 1
  host_vector<Index> neighbors;       ///< global neighbour ids
  host_vector<Offset> edge_ids;       ///< csr.edge_id(position) of each sampled edge

  /// @return number of sampled edges
  std::int64_t num_edges() const noexcept { return static_cast<std::int64_t>(neighbors.size()); }
};

/// One message-flow block with local ids (layout of gnndirect::sampled_block, host memory).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct cpu_block {
  host_vector<Index> dst_nodes;       ///< global ids of the destination nodes (this layer's seeds)
  host_vector<Index> src_nodes;       ///< global ids of the source nodes, dst nodes first
  host_vector<std::int64_t> offsets;  ///< num_dst + 1; dst d's edges are [offsets[d], offsets[d+1])
  host_vector<Index> indices;         ///< local src id of each sampled edge
  host_vector<Offset> edge_ids;       ///< global edge id of each sampled edge

  /// @return number of destination nodes
  std::int64_t num_dst() const noexcept { return static_cast<std::int64_t>(dst_nodes.size()); }
  /// @return number of source nodes (>= num_dst)
  std::int64_t num_src() const noexcept { return static_cast<std::int64_t>(src_nodes.size()); }
  /// @return number of sampled edges
  std::int64_t num_edges() const noexcept { return static_cast<std::int64_t>(indices.size()); }
};

/// All blocks of a multi-layer sample, seeds side first (layers[l] used fanouts[l]).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
struct cpu_blocks {
  std::vector<cpu_block<Offset, Index>> layers;  ///< one block per fanout

  /// @return global ids of the input (feature) nodes: the last layer's src nodes
  const host_vector<Index>& input_nodes() const noexcept { return layers.back().src_nodes; }
  /// The blocks as views of the family every sampler hands out (core/sampled_refs.hpp;
  /// host memory), valid until the next call that reuses this owner.  @return the views
  blocks_ref<Offset, Index> ref() const
  {
    blocks_ref<Offset, Index> out;
    for (auto const& layer : layers) { out.layers.push_back(gnndirect::detail::block_ref_of<Offset, Index>(layer)); }
    return out;
  }
  /// @return sampled edges over all layers
  std::int64_t num_edges() const noexcept
  {
    std::int64_t e = 0;
    for (auto const& layer : layers) { e += layer.num_edges(); }
    return e;
  }
};

/// Fast all-core CPU neighbour sampler with relabelling (see the file comment for semantics and
/// for the order of local ids).
///
/// Holds the worker threads, the relabelling marker (8 bytes per node of the largest graph seen,
/// allocated on first use) and per-chunk scratch. One call at a time per sampler (calls are
/// serialised by a mutex); use one sampler per loader thread. The csr_view must hold host
/// addresses (its memory_kind fields are not consulted).
class cpu_sampler {
 public:
  /// Starts the worker threads.
  /// @param threads worker threads (<= 0: default_thread_count()); 1 gives a one-core sampler.
  explicit cpu_sampler(int threads = default_thread_count()) : pool_(threads) {}

  /// @return number of worker threads
  int threads() const noexcept { return pool_.size(); }

  /// Samples up to fanout neighbours of each seed (one layer, no relabelling) into `out`
  /// (its storage is reused). Blocking.
  /// @tparam Sampler uniform_sampler, uniform_with_replacement_sampler or weighted_sampler
  /// (others do not compile)
  /// @param csr the graph (host addresses)  @param seeds host array of node ids
  /// @param num_seeds their number
  /// @param fanout draws per seed (>= 0)  @param sampler what to draw, with its seed
  /// @param layer random stream index (different layers draw independently)  @param out the result
  /// @throws invalid_argument for fanout < 0, a bad graph or seed array; index_out_of_range
  /// ("seeds") for the first seed outside [0, num_nodes), before any output.
  /// @tparam Offset, Index the graph's offset (and edge id) and node id types
  template <class Offset, class Index, class Sampler>
  void sample_neighbors(const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds,
                        int fanout, int layer, const Sampler& sampler,
                        cpu_neighbors<Offset, Index>& out)
  {
    detail::cpu_draw const policy = detail::cpu_draw_of(sampler);
    std::lock_guard<std::mutex> lock(mutex_);
    check_call(csr, seeds, num_seeds, sampler, fanout);
    detail::fresh_size(out.offsets, num_seeds + 1);
    std::int64_t const total = count_pass(csr, seeds, num_seeds, fanout, policy, out.offsets.data(),
                                          static_cast<Index*>(nullptr), "seeds");
    detail::fresh_size(out.neighbors, total);
    detail::fresh_size(out.edge_ids, total);
    sample_pass(csr, seeds, num_seeds, fanout, layer, policy, out.offsets.data(), out.neighbors.data(),
                out.edge_ids.data(), false);
  }

  /// Multi-layer sampling with relabelling into `out` (storage reused; see cpu_block). Layer l
  /// samples its dst nodes (layer 0: the seeds, else layer l-1's src nodes) with fanouts[l].
  /// Blocking. @param seeds host array of num_seeds node ids (duplicates allowed: they keep
  /// separate dst rows; edges to the node use the first row's local id)
  /// @param csr the graph (host addresses)  @param num_seeds seed count
  /// @param fanouts one per layer
  /// @param sampler what to draw, with its seed  @param out the result
  /// @tparam Sampler uniform_sampler, uniform_with_replacement_sampler or weighted_sampler
  /// (others do not compile)
  /// @throws invalid_argument for empty fanouts, a negative fanout, a bad graph;
  /// index_out_of_range ("seeds", first bad position) before any work, or naming the layer's
  /// sampled neighbour ids when the graph holds an id outside [0, num_nodes).
  /// @tparam Offset, Index the graph's offset (and edge id) and node id types
  template <class Offset, class Index, class Sampler>
  void sample_blocks(const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds,
                     const std::vector<int>& fanouts, const Sampler& sampler,
                     cpu_blocks<Offset, Index>& out)
  {
    detail::cpu_draw const policy = detail::cpu_draw_of(sampler);
    std::lock_guard<std::mutex> lock(mutex_);
    GNNDIRECT_EXPECTS(!fanouts.empty(), "cpu_sampler::sample_blocks: at least one fanout is needed");
    for (int f : fanouts) { check_call(csr, seeds, num_seeds, sampler, f); }
    ensure_marker(csr.num_nodes);
    out.layers.resize(fanouts.size());
    try {
      for (std::size_t l = 0; l < fanouts.size(); ++l) {
        const Index* dst = l == 0 ? seeds : out.layers[l - 1].src_nodes.data();
        std::int64_t const num_dst = l == 0 ? num_seeds : out.layers[l - 1].num_src();
        sample_layer(csr, dst, num_dst, fanouts[l], static_cast<int>(l), policy, out.layers[l]);
      }
    } catch (...) {
      reset_marker_all();  // a pass stopped midway: forget every mark
      throw;
    }
    reset_marker(out.input_nodes().data(), out.layers.back().num_src());
  }

  /// Convenience overload returning fresh blocks (allocates; prefer the reusing overload).
  /// @param csr, seeds, num_seeds, fanouts, sampler as above  @return the blocks
  /// @tparam Offset, Index the graph's offset (and edge id) and node id types
  /// @tparam Sampler sampler type (a model of the sampler concept, device/samplers.hpp)
  template <class Offset, class Index, class Sampler>
  cpu_blocks<Offset, Index> sample_blocks(const csr_view<Offset, Index>& csr, const Index* seeds,
                                          std::int64_t num_seeds, const std::vector<int>& fanouts,
                                          const Sampler& sampler)
  {
    cpu_blocks<Offset, Index> out;
    sample_blocks(csr, seeds, num_seeds, fanouts, sampler, out);
    return out;
  }

  /// @return the worker pool (to share the threads with a CPU gather, see cpu_gather.hpp)
  worker_pool& pool() noexcept { return pool_; }

 private:
  template <class Offset, class Index, class Sampler>
  static void check_call(const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds,
                         const Sampler& sampler, int fanout)
  {
    validate(sampler, sampling_policy{}, csr, fanout);  // the tuning does not apply on the host
    GNNDIRECT_EXPECTS(num_seeds >= 0 && (num_seeds == 0 || seeds != nullptr),
                      "cpu_sampler: bad seed array");
  }

  /// Prefetches node v's indptr entry / first neighbour ids (v not yet range-checked: clamped).
  template <class Offset, class Index>
  static void prefetch_indptr(const csr_view<Offset, Index>& csr, Index v) noexcept
  {
    if (v >= 0 && static_cast<std::int64_t>(v) < csr.num_nodes) { detail::prefetch(csr.indptr + v); }
  }
  template <class Offset, class Index>
  static void prefetch_list(const csr_view<Offset, Index>& csr, Index v) noexcept
  {
    if (v >= 0 && static_cast<std::int64_t>(v) < csr.num_nodes) { detail::prefetch(csr.indices + csr.begin(v)); }
  }
  /// Prefetches the marker slot of node u (u not yet range-checked: clamped).
  template <class Index>
  void prefetch_marker(Index u) const noexcept
  {
    if (u >= 0 && static_cast<std::int64_t>(u) < marker_size_) { detail::prefetch(&marker_[static_cast<std::int64_t>(u)]); }
  }

  static std::int64_t chunks(std::int64_t n) noexcept
  {
    return (n + detail::cpu_chunk_nodes - 1) / detail::cpu_chunk_nodes;
  }
  static std::int64_t chunk_begin(std::int64_t c) noexcept { return c * detail::cpu_chunk_nodes; }
  static std::int64_t chunk_end(std::int64_t c, std::int64_t n) noexcept
  {
    return std::min(n, (c + 1) * detail::cpu_chunk_nodes);
  }

  /// Pass A: per-dst draw counts into offsets[d + 1], per-chunk totals into chunk_base_ (then
  /// prefix-summed); copies dst into dst_copy when given. Returns the total edge count.
  /// @throws index_out_of_range naming `what` for the first dst id outside the graph
  template <class Offset, class Index>
  std::int64_t count_pass(const csr_view<Offset, Index>& csr, const Index* dst, std::int64_t num_dst,
                          int fanout, const detail::cpu_draw& policy, std::int64_t* offsets,
                          Index* dst_copy, const std::string& what)
  {
    bool const replace = policy.replace;
    std::int64_t const n_chunks = chunks(num_dst);
    chunk_base_.assign(static_cast<std::size_t>(n_chunks) + 1, 0);
    detail::first_bad bad;
    detail::first_bad bad_list;  // a corrupt neighbour list: one range check per dst node
    pool_.run(n_chunks, [&](std::int64_t c, int) {
      std::int64_t total = 0;
      std::int64_t const end = chunk_end(c, num_dst);
      for (std::int64_t d = chunk_begin(c); d < end; ++d) {
        if (d + detail::prefetch_far < end) { prefetch_indptr(csr, dst[d + detail::prefetch_far]); }
        auto const v = static_cast<std::int64_t>(dst[d]);
        if (dst_copy != nullptr) { dst_copy[d] = dst[d]; }
        if (v < 0 || v >= csr.num_nodes) {
          bad.note(d);
          offsets[d + 1] = 0;
          continue;
        }
        auto const first = static_cast<std::int64_t>(csr.indptr[v]);
        auto const end = static_cast<std::int64_t>(csr.indptr[v + 1]);
        if (first < 0 || end < first || end > csr.num_edges) {
          bad_list.note(d);
          offsets[d + 1] = 0;
          continue;
        }
        std::int64_t const k =
          policy.weighted
            ? std::min<std::int64_t>(detail::positive_weights(csr.weights + first, end - first), fanout)
            : detail::draw_count(end - first, fanout, replace);
        offsets[d + 1] = k;
        total += k;
      }
      chunk_base_[static_cast<std::size_t>(c) + 1] = total;
    });
    if (bad.any()) {
      std::int64_t const p = bad.position.load();
      throw index_out_of_range(__FILE__, __LINE__, what, p, static_cast<std::int64_t>(dst[p]), csr.num_nodes);
    }
    if (bad_list.any()) {
      auto const v = static_cast<std::int64_t>(dst[bad_list.position.load()]);
      throw invalid_argument(__FILE__, __LINE__,
                             "cpu_sampler: corrupt graph: node " + std::to_string(v) +
                               "'s neighbour list ends at indptr[" + std::to_string(v) + " + 1] = " +
                               std::to_string(static_cast<std::int64_t>(csr.indptr[v + 1])) +
                               ", before it starts or past the edge array");
    }
    offsets[0] = 0;
    for (std::size_t c = 1; c < chunk_base_.size(); ++c) { chunk_base_[c] += chunk_base_[c - 1]; }
    return chunk_base_.back();
  }

  /// Pass B: turns counts into offsets and draws every dst node's neighbours (global ids into
  /// nbr). With `mark`, also claims marker[nbr[j]] = num_dst + j for unmarked neighbours (the
  /// dst nodes are marked already) and checks the neighbour ids.
  template <class Offset, class Index>
  void sample_pass(const csr_view<Offset, Index>& csr, const Index* dst, std::int64_t num_dst, int fanout,
                   int layer, const detail::cpu_draw& policy, std::int64_t* offsets, Index* nbr,
                   Offset* eid, bool mark)
  {
    bool const replace = policy.replace;
    detail::first_bad bad;
    pool_.run(chunks(num_dst), [&](std::int64_t c, int) {
      std::vector<detail::weighted_key<Offset>> heap;  // weighted draws only; grows once per chunk
      std::int64_t out = chunk_base_[static_cast<std::size_t>(c)];
      std::int64_t const end = chunk_end(c, num_dst);
      for (std::int64_t d = chunk_begin(c); d < end; ++d) {
        if (d + detail::prefetch_far < end) { prefetch_indptr(csr, dst[d + detail::prefetch_far]); }
        if (d + detail::prefetch_near < end) { prefetch_list(csr, dst[d + detail::prefetch_near]); }
        auto const v = static_cast<std::int64_t>(dst[d]);
        std::int64_t const k = offsets[d + 1];
        offsets[d + 1] = out + k;
        detail::splitmix64 rng = detail::node_stream(policy.seed, layer, v);
        Offset const first = csr.begin(v);
        auto const degree = static_cast<std::int64_t>(csr.degree(v));
        if (policy.weighted) {
          detail::draw_weighted(csr.weights + first, degree, k, fanout, rng, eid + out, heap);
        } else {
          detail::draw_positions(degree, k, replace, rng, eid + out);
        }
        for (std::int64_t j = out; j < out + k; ++j) {
          auto const e = static_cast<Offset>(first + eid[j]);
          Index const u = csr.indices[e];
          nbr[j] = u;
          eid[j] = csr.edge_id(e);
          if (!mark) { continue; }
          if (u < 0 || static_cast<std::int64_t>(u) >= csr.num_nodes) {
            bad.note(j);
          } else {
            detail::claim(marker_[static_cast<std::int64_t>(u)], num_dst + j);
          }
        }
        out += k;
      }
    });
    if (bad.any()) {
      std::int64_t const p = bad.position.load();
      throw index_out_of_range(__FILE__, __LINE__, "sampled neighbour ids (csr.indices) of layer " +
                               std::to_string(layer), p, static_cast<std::int64_t>(nbr[p]), csr.num_nodes);
    }
  }

  /// Samples and relabels one layer (passes A, B, then ownership count, id assignment and
  /// translation; see the file comment).
  template <class Offset, class Index>
  void sample_layer(const csr_view<Offset, Index>& csr, const Index* dst, std::int64_t num_dst, int fanout,
                    int layer, const detail::cpu_draw& policy, cpu_block<Offset, Index>& out)
  {
    detail::fresh_size(out.dst_nodes, num_dst);
    detail::fresh_size(out.offsets, num_dst + 1);
    std::int64_t const edges = count_pass(csr, dst, num_dst, fanout, policy, out.offsets.data(),
                                          out.dst_nodes.data(), layer == 0 ? "seeds" :
                                          "seeds of layer " + std::to_string(layer));
    detail::fresh_size(out.indices, edges);
    detail::fresh_size(out.edge_ids, edges);
    Index* const ids = out.indices.data();  // global ids until relabelled
    if (pool_.size() == 1 || edges < detail::cpu_sequential_relabel_edges) {
      sample_pass(csr, out.dst_nodes.data(), num_dst, fanout, layer, policy, out.offsets.data(), ids,
                  out.edge_ids.data(), false);
      relabel_sequential(csr, ids, edges, layer, out);
      return;
    }
    if (layer == 0) { mark_dst(out.dst_nodes.data(), num_dst); }  // later layers: done by the last
    sample_pass(csr, out.dst_nodes.data(), num_dst, fanout, layer, policy, out.offsets.data(), ids,
                out.edge_ids.data(), true);
    std::int64_t const new_nodes = count_owned(ids, num_dst);
    detail::fresh_size(out.src_nodes, num_dst + new_nodes);
    assign_ids(out.dst_nodes.data(), ids, num_dst, out.src_nodes.data());
    translate(ids, num_dst);
  }

  /// One-thread relabelling (one marker access per edge, no atomics): used on one core, where
  /// the parallel passes would only add work, and for small layers, where they cost more in
  /// hand-offs than they save. Same result as the parallel passes.
  template <class Offset, class Index>
  void relabel_sequential(const csr_view<Offset, Index>& csr, Index* ids, std::int64_t edges, int layer,
                          cpu_block<Offset, Index>& out)
  {
    std::int64_t const num_dst = out.num_dst();
    detail::fresh_size(out.src_nodes, num_dst + edges);
    Index* const src = out.src_nodes.data();
    std::copy(out.dst_nodes.begin(), out.dst_nodes.end(), src);
    if (layer == 0) {  // later layers: the previous layer left marker[dst[d]] <= d
      for (std::int64_t d = 0; d < num_dst; ++d) {
        auto& slot = marker_[static_cast<std::int64_t>(src[d])];
        if (slot.load(std::memory_order_relaxed) == detail::unmarked) { slot.store(d, std::memory_order_relaxed); }
      }
    }
    std::int64_t next = num_dst;
    for (std::int64_t j = 0; j < edges; ++j) {
      if (j + detail::prefetch_far < edges) { prefetch_marker(ids[j + detail::prefetch_far]); }
      auto const u = static_cast<std::int64_t>(ids[j]);
      if (u < 0 || u >= csr.num_nodes) {
        throw index_out_of_range(__FILE__, __LINE__, "sampled neighbour ids (csr.indices) of layer " +
                                 std::to_string(layer), j, u, csr.num_nodes);
      }
      auto& slot = marker_[u];
      std::int64_t local = slot.load(std::memory_order_relaxed);
      if (local == detail::unmarked) {
        local = next++;
        slot.store(local, std::memory_order_relaxed);
        src[local] = ids[j];
      }
      ids[j] = static_cast<Index>(local);
    }
    out.src_nodes.resize(static_cast<std::size_t>(next));  // shrinking keeps the storage
  }

  /// marker[dst[d]] = d (for repeated dst ids: one of their rows), before any edge claims.
  template <class Index>
  void mark_dst(const Index* dst, std::int64_t num_dst)
  {
    pool_.run(chunks(num_dst), [&](std::int64_t c, int) {
      for (std::int64_t d = chunk_begin(c); d < chunk_end(c, num_dst); ++d) {
        detail::claim(marker_[static_cast<std::int64_t>(dst[d])], d);
      }
    });
  }

  /// Edge j owns node u when its claim survived (marker[u] == num_dst + j); owned edges are
  /// flagged by storing ~u in ids[j]. Counts them per chunk into chunk_new_ (prefix-summed).
  template <class Index>
  std::int64_t count_owned(Index* ids, std::int64_t num_dst)
  {
    std::int64_t const n_chunks = chunks(num_dst);
    chunk_new_.assign(static_cast<std::size_t>(n_chunks) + 1, 0);
    pool_.run(n_chunks, [&](std::int64_t c, int) {
      std::int64_t owned = 0;
      auto const cb = static_cast<std::size_t>(c);
      std::int64_t const end = chunk_base_[cb + 1];
      for (std::int64_t j = chunk_base_[cb]; j < end; ++j) {
        if (j + detail::prefetch_far < end) { prefetch_marker(ids[j + detail::prefetch_far]); }
        auto const u = static_cast<std::int64_t>(ids[j]);
        if (marker_[u].load(std::memory_order_relaxed) == num_dst + j) {
          ids[j] = static_cast<Index>(~u);
          ++owned;
        }
      }
      chunk_new_[cb + 1] = owned;
    });
    for (std::size_t c = 1; c < chunk_new_.size(); ++c) { chunk_new_[c] += chunk_new_[c - 1]; }
    return chunk_new_.back();
  }

  /// src = dst, then each chunk's owned nodes (in edge order) at num_dst + (owned edges in
  /// earlier chunks); marker[u] = its local id; clears the ownership flags.
  template <class Index>
  void assign_ids(const Index* dst, Index* ids, std::int64_t num_dst, Index* src)
  {
    pool_.run(chunks(num_dst), [&](std::int64_t c, int) {
      auto const cb = static_cast<std::size_t>(c);
      std::copy(dst + chunk_begin(c), dst + chunk_end(c, num_dst), src + chunk_begin(c));
      std::int64_t next = num_dst + chunk_new_[cb];
      for (std::int64_t j = chunk_base_[cb]; j < chunk_base_[cb + 1]; ++j) {
        if (ids[j] >= 0) { continue; }
        Index const u = static_cast<Index>(~ids[j]);
        ids[j] = u;
        src[next] = u;
        marker_[static_cast<std::int64_t>(u)].store(next++, std::memory_order_relaxed);
      }
    });
  }

  /// ids[j] = marker[ids[j]]: global ids become local ids.
  template <class Index>
  void translate(Index* ids, std::int64_t num_dst)
  {
    pool_.run(chunks(num_dst), [&](std::int64_t c, int) {
      auto const cb = static_cast<std::size_t>(c);
      std::int64_t const end = chunk_base_[cb + 1];
      for (std::int64_t j = chunk_base_[cb]; j < end; ++j) {
        if (j + detail::prefetch_far < end) { prefetch_marker(ids[j + detail::prefetch_far]); }
        ids[j] = static_cast<Index>(marker_[static_cast<std::int64_t>(ids[j])].load(std::memory_order_relaxed));
      }
    });
  }

  /// Allocates (or grows) the marker to num_nodes entries, all unmarked.
  void ensure_marker(std::int64_t num_nodes)
  {
    if (marker_size_ >= num_nodes) { return; }
    // new[] of std::atomic<int64_t> leaves the values uninitialised (trivial default
    // constructor in C++17), so the fill below is the only pass and it runs on all cores.
    marker_.reset(new std::atomic<std::int64_t>[static_cast<std::size_t>(num_nodes)]);
    marker_size_ = num_nodes;
    reset_marker_all();
  }
  void reset_marker_all()
  {
    constexpr std::int64_t grain = std::int64_t{1} << 16;
    pool_.run((marker_size_ + grain - 1) / grain, [&](std::int64_t t, int) {
      for (std::int64_t v = t * grain; v < std::min(marker_size_, (t + 1) * grain); ++v) {
        marker_[v].store(detail::unmarked, std::memory_order_relaxed);
      }
    });
  }
  /// Unmarks exactly the nodes in ids (the last layer's src nodes hold every marked node).
  template <class Index>
  void reset_marker(const Index* ids, std::int64_t n)
  {
    constexpr std::int64_t grain = std::int64_t{1} << 14;
    pool_.run((n + grain - 1) / grain, [&](std::int64_t t, int) {
      for (std::int64_t i = t * grain; i < std::min(n, (t + 1) * grain); ++i) {
        marker_[static_cast<std::int64_t>(ids[i])].store(detail::unmarked, std::memory_order_relaxed);
      }
    });
  }

  worker_pool pool_;
  std::mutex mutex_;
  std::unique_ptr<std::atomic<std::int64_t>[]> marker_;
  std::int64_t marker_size_{0};
  std::vector<std::int64_t> chunk_base_;  ///< chunk c's first edge; back() = edge count
  std::vector<std::int64_t> chunk_new_;   ///< owned (new src) nodes before chunk c
};

}  // namespace host
GNNDIRECT_NAMESPACE_END
