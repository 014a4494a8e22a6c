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

#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/philox.hpp>
#include <gnndirect/detail/host/cpu_sampler.hpp>
#include <gnndirect/host/cpu_blocks.hpp>
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
                        cpu_neighbors<Offset, Index>& out);

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
                     cpu_blocks<Offset, Index>& out);

  /// Convenience overload returning fresh blocks (allocates; prefer the reusing overload).
  /// @param csr, seeds, num_seeds, fanouts, sampler as above  @return the blocks
  /// @tparam Offset, Index the graph's offset (and edge id) and node id types
  /// @tparam Sampler sampler type (a model of the sampler concept, device/samplers.hpp)
  template <class Offset, class Index, class Sampler>
  cpu_blocks<Offset, Index> sample_blocks(const csr_view<Offset, Index>& csr, const Index* seeds,
                                          std::int64_t num_seeds, const std::vector<int>& fanouts,
                                          const Sampler& sampler);

  /// @return the worker pool (to share the threads with a CPU gather, see cpu_gather.hpp)
  worker_pool& pool() noexcept { return pool_; }

 private:
  template <class Offset, class Index, class Sampler>
  static void check_call(const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds,
                         const Sampler& sampler, int fanout);

  /// Prefetches node v's indptr entry / first neighbour ids (v not yet range-checked: clamped).
  template <class Offset, class Index>
  static void prefetch_indptr(const csr_view<Offset, Index>& csr, Index v) noexcept;
  template <class Offset, class Index>
  static void prefetch_list(const csr_view<Offset, Index>& csr, Index v) noexcept;
  /// Prefetches the marker slot of node u (u not yet range-checked: clamped).
  template <class Index>
  void prefetch_marker(Index u) const noexcept;

  static std::int64_t chunks(std::int64_t n) noexcept;
  static std::int64_t chunk_begin(std::int64_t c) noexcept { return c * detail::cpu_chunk_nodes; }
  static std::int64_t chunk_end(std::int64_t c, std::int64_t n) noexcept;

  /// Pass A: per-dst draw counts into offsets[d + 1], per-chunk totals into chunk_base_ (then
  /// prefix-summed); copies dst into dst_copy when given. Returns the total edge count.
  /// @throws index_out_of_range naming `what` for the first dst id outside the graph
  template <class Offset, class Index>
  std::int64_t count_pass(const csr_view<Offset, Index>& csr, const Index* dst, std::int64_t num_dst,
                          int fanout, const detail::cpu_draw& policy, std::int64_t* offsets,
                          Index* dst_copy, const std::string& what);

  /// Pass B: turns counts into offsets and draws every dst node's neighbours (global ids into
  /// nbr). With `mark`, also claims marker[nbr[j]] = num_dst + j for unmarked neighbours (the
  /// dst nodes are marked already) and checks the neighbour ids.
  template <class Offset, class Index>
  void sample_pass(const csr_view<Offset, Index>& csr, const Index* dst, std::int64_t num_dst, int fanout,
                   int layer, const detail::cpu_draw& policy, std::int64_t* offsets, Index* nbr,
                   Offset* eid, bool mark);

  /// Samples and relabels one layer (passes A, B, then ownership count, id assignment and
  /// translation; see the file comment).
  template <class Offset, class Index>
  void sample_layer(const csr_view<Offset, Index>& csr, const Index* dst, std::int64_t num_dst, int fanout,
                    int layer, const detail::cpu_draw& policy, cpu_block<Offset, Index>& out);

  /// One-thread relabelling (one marker access per edge, no atomics): used on one core, where
  /// the parallel passes would only add work, and for small layers, where they cost more in
  /// hand-offs than they save. Same result as the parallel passes.
  template <class Offset, class Index>
  void relabel_sequential(const csr_view<Offset, Index>& csr, Index* ids, std::int64_t edges, int layer,
                          cpu_block<Offset, Index>& out);

  /// marker[dst[d]] = d (for repeated dst ids: one of their rows), before any edge claims.
  template <class Index>
  void mark_dst(const Index* dst, std::int64_t num_dst);

  /// Edge j owns node u when its claim survived (marker[u] == num_dst + j); owned edges are
  /// flagged by storing ~u in ids[j]. Counts them per chunk into chunk_new_ (prefix-summed).
  template <class Index>
  std::int64_t count_owned(Index* ids, std::int64_t num_dst);

  /// src = dst, then each chunk's owned nodes (in edge order) at num_dst + (owned edges in
  /// earlier chunks); marker[u] = its local id; clears the ownership flags.
  template <class Index>
  void assign_ids(const Index* dst, Index* ids, std::int64_t num_dst, Index* src);

  /// ids[j] = marker[ids[j]]: global ids become local ids.
  template <class Index>
  void translate(Index* ids, std::int64_t num_dst);

  /// Allocates (or grows) the marker to num_nodes entries, all unmarked.
  void ensure_marker(std::int64_t num_nodes);
  void reset_marker_all();
  /// Unmarks exactly the nodes in ids (the last layer's src nodes hold every marked node).
  template <class Index>
  void reset_marker(const Index* ids, std::int64_t n);

  worker_pool pool_;
  std::mutex mutex_;
  std::unique_ptr<std::atomic<std::int64_t>[]> marker_;
  std::int64_t marker_size_{0};
  std::vector<std::int64_t> chunk_base_;  ///< chunk c's first edge; back() = edge count
  std::vector<std::int64_t> chunk_new_;   ///< owned (new src) nodes before chunk c
};

}  // namespace host
GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/host/cpu_sampler.inl>
