#pragma once
/// @file negative_sampling.hpp
/// @brief Negative sampling for link prediction, the host-compilable part: the two modes of PyG's
/// `NegativeSampling` ('binary', 'triplet') as types, the options, the negative-sampler concept
/// with the library's uniform_negative_sampler, and negative_count. The GPU bulk call is
/// sample_negatives_async (algorithms/negative_sampling.cuh); resolve_negative (the per-draw
/// rule it runs) is host and device code, so the tests also run it on the host.
///
/// Semantics (what sample_negatives_async writes for `num_pos` positive edges):
/// - binary_negatives{amount}: negative_count = ceil(amount * num_pos) pairs, each a random
///   (src, dst) pair of nodes (PyG 'binary'; labels 0 for them, 1 for the positives, where the
///   link-prediction batch builds edge_label).
/// - triplet_negatives{amount}: amount (integer) random destinations per positive, negative k
///   keeping the source of positive k / amount (PyG 'triplet': dst_neg of shape
///   [num_pos, amount], flattened row-major).
/// - Random numbers: negative k's attempt a draws philox4x32_10(counter {k low, k high, batch
///   low 32 bits, a}, key seed) (core/philox.hpp); the uniform sampler takes words 0-1 for the
///   source, mapped to [0, num_src) by uniform_below, and 2-3 for the destination, mapped to
///   [0, num_dst). So the result depends only on (seed, batch, k), never on the launch
///   configuration.
/// - Two ranges (typed, bipartite relations): num_src = csr.num_nodes (the relation's out-CSR:
///   one row per source node, sorted destination ids) and num_dst =
///   negative_options::num_dst_nodes, or csr.num_nodes when that is -1 (homogeneous graphs; the
///   bits are then those of the one-range form).
/// - strict (negative_options::strict): a draw that is an existing edge (dst found by binary
///   search in src's neighbour list, which must be sorted ascending: graph/coo_to_csr sorts)
///   is drawn again, up to max_attempts attempts in all; after the last one that draw is kept
///   and counted as unresolved (never a hang: a node connected to every node gets its
///   max_attempts draws, then the last). The count is written to the caller's device scalar.
///
/// A *negative sampler* is a trivially copyable type with
/// @code
///   template <class Index>
///   GNNDIRECT_HOST_DEVICE negative_pair<Index> draw(std::uint64_t seed, std::int64_t batch,
///                                                   std::int64_t k, std::uint32_t attempt,
///                                                   std::int64_t num_nodes, Index fixed_src) const;
/// @endcode
/// returning nodes in [0, num_nodes) (checked: a pair outside is recorded as an error, never
/// written), with fixed_src >= 0 in triplet mode (return it as the source) and -1 in binary
/// mode. It may also have the two-range form
/// @code
///   template <class Index>
///   GNNDIRECT_HOST_DEVICE negative_pair<Index> draw(std::uint64_t seed, std::int64_t batch,
///                                                   std::int64_t k, std::uint32_t attempt,
///                                                   std::int64_t num_src, std::int64_t num_dst,
///                                                   Index fixed_src) const;
/// @endcode
/// returning a source in [0, num_src) and a destination in [0, num_dst); resolve_negative calls
/// it when present (negative_sampler_has_two_ranges), else the one-range form, and
/// sample_negatives_async refuses num_dst != num_src for a sampler without it. A framework's own
/// distribution (degree-biased, type-constrained) is such a type: the kernel is instantiated for
/// it alone, and strictness and retries apply to it unchanged.

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/philox.hpp>
#include <gnndirect/detail/algorithms/negative_sampling.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// PyG 'binary' negatives: ceil(amount * num_pos) random (src, dst) pairs.
struct binary_negatives {
  double amount{1.0};  ///< negatives per positive (> 0; fractional allowed)
};

/// PyG 'triplet' negatives: `amount` random destinations per positive, same source.
struct triplet_negatives {
  std::int64_t amount{1};  ///< destinations per positive (>= 1)
};

/// Tuning and behaviour values of one negative-sampling call.
struct negative_options {
  std::uint64_t seed{0};    ///< Philox key
  std::int64_t batch{0};    ///< batch index (counter word; low 32 bits), so batches differ
  bool strict{false};       ///< redraw existing edges (needs sorted neighbour lists)
  int max_attempts{8};      ///< draws per negative when strict (>= 1); the last is kept
  /// Destination range [0, num_dst_nodes) of a typed (bipartite) relation, whose csr is the
  /// relation's out-CSR (csr.num_nodes source rows); -1 (default): csr.num_nodes, one range.
  std::int64_t num_dst_nodes{-1};
};

/// The destination count of a negative-sampling call: options.num_dst_nodes, or num_src (the
/// csr's row count) when it is negative. Host and device code.
/// @param options the call's options  @param num_src the csr's num_nodes  @return the count
GNNDIRECT_HOST_DEVICE constexpr std::int64_t negative_dst_count(const negative_options& options,
                                                                std::int64_t num_src) noexcept;

/// One negative edge.  @tparam Index node id type
template <class Index>
struct negative_pair {
  Index src;  ///< source node
  Index dst;  ///< destination node
};

/// The library's negative sampler: uniform source (binary) over [0, num_src) and destination over
/// [0, num_dst) (one range: both over all nodes).
struct uniform_negative_sampler {
  /// The two-range draw (file comment): Philox words 0-1 give the source in [0, num_src) (unless
  /// fixed_src >= 0), words 2-3 the destination in [0, num_dst). @tparam Index node id type
  /// @param seed Philox key  @param batch batch index  @param k negative index
  /// @param attempt attempt index  @param num_src source count (>= 1)
  /// @param num_dst destination count (>= 1)
  /// @param fixed_src the source in triplet mode, else -1  @return the pair
  template <class Index>
  GNNDIRECT_HOST_DEVICE negative_pair<Index> draw(std::uint64_t seed, std::int64_t batch, std::int64_t k,
                                                  std::uint32_t attempt, std::int64_t num_src, std::int64_t num_dst,
                                                  Index fixed_src) const noexcept;

  /// The one-range draw (file comment): the two-range draw with num_src = num_dst = num_nodes
  /// (so the same bits). @tparam Index node id type
  /// @param seed Philox key  @param batch batch index  @param k negative index
  /// @param attempt attempt index  @param num_nodes node count (>= 1)
  /// @param fixed_src the source in triplet mode, else -1  @return the pair
  template <class Index>
  GNNDIRECT_HOST_DEVICE negative_pair<Index> draw(std::uint64_t seed, std::int64_t batch, std::int64_t k,
                                                  std::uint32_t attempt, std::int64_t num_nodes,
                                                  Index fixed_src) const noexcept;
};

/// True when Sampler has the two-range draw (file comment) for node id type Index.
/// @tparam Sampler a negative sampler  @tparam Index node id type
template <class Sampler, class Index>
inline constexpr bool negative_sampler_has_two_ranges = detail::has_two_range_draw<Sampler, Index>::value;

/// Number of negatives a mode draws for `num_pos` positives. Host.
/// @param mode binary_negatives or triplet_negatives  @param num_pos positives (>= 0)
/// @return ceil(amount * num_pos) (binary) or amount * num_pos (triplet)
/// @throws invalid_argument for num_pos < 0, an amount <= 0 (or NaN), or a count beyond int64.
/// @tparam Mode binary_negatives or triplet_negatives
template <class Mode>
std::int64_t negative_count(const Mode& mode, std::int64_t num_pos);

/// Negative k's pair and whether it stayed unresolved (strict: every attempt was an edge).
/// @tparam Index node id type
template <class Index>
struct resolved_negative {
  negative_pair<Index> pair;  ///< the pair kept
  bool unresolved;            ///< strict and still an existing edge after max_attempts
};

/// The per-draw rule of sample_negatives_async (file comment), host and device code. Sources
/// range over [0, csr.num_nodes), destinations over [0, negative_dst_count(options,
/// csr.num_nodes)); a sampler without the two-range draw gets the one-range one with
/// csr.num_nodes (callers refuse a different destination count for it, as
/// sample_negatives_async does). Throws nothing, never synchronises.
/// @tparam Mode binary_negatives or triplet_negatives  @tparam Sampler a negative sampler
/// @tparam Offset, Index the graph's types
/// @param csr the graph, or a typed relation's out-CSR (read only when strict)
/// @param src positives' sources  @param mode the mode  @param sampler the sampler
/// @param options seed, batch, strictness, destination count  @param k the negative's index
/// @return the pair and its status
template <class Mode, class Sampler, class Offset, class Index>
GNNDIRECT_HOST_DEVICE resolved_negative<Index> resolve_negative(const csr_view<Offset, Index>& csr, const Index* src,
                                                                const Mode& mode, const Sampler& sampler,
                                                                const negative_options& options, std::int64_t k);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/negative_sampling_host.inl>
