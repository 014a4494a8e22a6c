#pragma once
/// @file cpu_sampler.hpp
/// @brief Internals of host/cpu_sampler.hpp: the draw a sampler type selects (the outputs'
/// allocator is in detail/host/cpu_blocks.hpp), and the random streams, draws and marker helpers of the CPU sampler's passes
/// (host-compilable; not part of the API).

#include <gnndirect/core/philox.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/host/cpu_blocks.hpp>
#include <gnndirect/detail/host/first_bad.hpp>
#include <gnndirect/device/samplers.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace host {
namespace detail {

/// What the CPU sampler draws, taken from a sampler type (see cpu_draw_of).
struct cpu_draw {
  std::uint64_t seed{0};  ///< the sampler's seed
  bool replace{false};    ///< uniform with replacement
  bool weighted{false};   ///< weighted without replacement (reads csr.weights)
};

/// The draw of one of the library's three samplers, which the CPU sampler implements; any other
/// type fails to compile with a message naming them.
template <class Sampler>
constexpr cpu_draw cpu_draw_of(const Sampler& sampler) noexcept
{
  constexpr bool with = std::is_same_v<Sampler, uniform_with_replacement_sampler>;
  constexpr bool weighted = std::is_same_v<Sampler, weighted_sampler>;
  static_assert(with || weighted || std::is_same_v<Sampler, uniform_sampler>,
                "host::cpu_sampler runs the library's samplers only (gnndirect::uniform_sampler, "
                "uniform_with_replacement_sampler, weighted_sampler); user-written samplers run "
                "on the GPU");
  return cpu_draw{sampler.seed, with, weighted};
}

/// Dst nodes per task: large enough to amortise the task hand-out, small enough to balance.
constexpr std::int64_t cpu_chunk_nodes = 512;

/// Layers with fewer sampled edges are relabelled on the calling thread.
constexpr std::int64_t cpu_sequential_relabel_edges = 16384;

/// Marker value of a node no layer has touched.
constexpr std::int64_t unmarked = std::numeric_limits<std::int64_t>::max();

/// splitmix64 (Steele, Lea, Flood 2014): one add and a multiply-xorshift finaliser per draw.
struct splitmix64 {
  std::uint64_t state;

  static std::uint64_t mix(std::uint64_t z) noexcept
  {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t next() noexcept { return mix(state += 0x9E3779B97F4A7C15ull); }

  /// Unbiased uniform integer in [0, n), n >= 1 (Lemire's multiply-shift with rejection).
  std::uint64_t below(std::uint64_t n) noexcept
  {
    std::uint64_t bits = next();
    std::uint64_t low = bits * n;
    if (low < n) {
      std::uint64_t const threshold = (0 - n) % n;
      while (low < threshold) {
        bits = next();
        low = bits * n;
      }
    }
    return mulhi64(bits, n);
  }
};

/// The random stream of one node in one layer (two multiply-xorshift rounds to seed it).
inline splitmix64 node_stream(std::uint64_t seed, int layer, std::int64_t node) noexcept
{
  std::uint64_t const key = (static_cast<std::uint64_t>(layer) << 56) ^ static_cast<std::uint64_t>(node);
  return splitmix64{splitmix64::mix(seed ^ splitmix64::mix(key + 0x632BE59BD9B4E019ull))};
}

/// Writes value into an unmarked slot. Racing writers leave exactly one of their values (the
/// owner). Plain loads and stores, not a compare-exchange: a locked instruction per sampled edge
/// would stop the core from overlapping the cache misses that sampling is made of.
inline void claim(std::atomic<std::int64_t>& slot, std::int64_t value) noexcept
{
  if (slot.load(std::memory_order_relaxed) == unmarked) { slot.store(value, std::memory_order_relaxed); }
}

/// Asks the cache for the line holding p (no-op without the GCC/Clang builtin). The sampler's
/// loads are random and each waits on the one before (dst id -> indptr -> neighbour), so the core
/// alone overlaps few of them; fetching a few nodes ahead does.
inline void prefetch(const void* p) noexcept
{
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

/// How far ahead (in dst nodes or edges) the passes prefetch.
constexpr std::int64_t prefetch_far = 16;   ///< indptr entries, marker slots
constexpr std::int64_t prefetch_near = 4;   ///< neighbour lists (needs indptr, fetched earlier)

/// Number of edges drawn for a node of `degree`.
inline std::int64_t draw_count(std::int64_t degree, int fanout, bool replace) noexcept
{
  if (replace) { return degree > 0 ? fanout : 0; }
  return std::min<std::int64_t>(degree, fanout);
}

/// Edges of a list that weighted sampling can pick: weight > 0 (NaN and negative weights never).
/// @param w the list's weights  @param degree its length  @return the count
inline std::int64_t positive_weights(const float* w, std::int64_t degree) noexcept
{
  std::int64_t n = 0;
  for (std::int64_t p = 0; p < degree; ++p) { n += w[p] > 0.0f ? 1 : 0; }
  return n;
}

/// Uniform double in (0, 1] from the top 53 bits of one draw (never 0: its log is finite).
inline double open_unit(splitmix64& rng) noexcept
{
  return static_cast<double>((rng.next() >> 11) + 1) * 0x1p-53;
}

/// A (key, position) pair of weighted sampling; the smallest keys win.
template <class Offset>
using weighted_key = std::pair<double, Offset>;

/// Picks `count` = min(fanout, positive weights) positions of a list by weight, without
/// replacement, into pos[0..count) in increasing (stored) order. Every positive edge when there
/// are at most `fanout` of them; otherwise Efraimidis-Spirakis: edge p gets the key -ln(u_p) /
/// w_p (u_p one draw, in stored order over the positive edges) and the `count` smallest keys
/// win, kept in a max-heap (`heap`: the caller's scratch, reused across nodes).
template <class Offset>
void draw_weighted(const float* w, std::int64_t degree, std::int64_t count, int fanout,
                   splitmix64& rng, Offset* pos, std::vector<weighted_key<Offset>>& heap)
{
  if (count == 0) { return; }  // fanout 0, or no positive weight
  if (count < fanout || degree <= fanout) {  // no more positive edges than fanout: all of them
    std::int64_t j = 0;
    for (std::int64_t p = 0; p < degree && j < count; ++p) {
      if (w[p] > 0.0f) { pos[j++] = static_cast<Offset>(p); }
    }
    return;
  }
  heap.clear();
  for (std::int64_t p = 0; p < degree; ++p) {
    if (!(w[p] > 0.0f)) { continue; }
    weighted_key<Offset> const candidate{-std::log(open_unit(rng)) / static_cast<double>(w[p]),
                                         static_cast<Offset>(p)};
    if (static_cast<std::int64_t>(heap.size()) < count) {
      heap.push_back(candidate);
      std::push_heap(heap.begin(), heap.end());
    } else if (candidate < heap.front()) {
      std::pop_heap(heap.begin(), heap.end());
      heap.back() = candidate;
      std::push_heap(heap.begin(), heap.end());
    }
  }
  for (std::int64_t j = 0; j < count; ++j) { pos[j] = heap[static_cast<std::size_t>(j)].second; }
  std::sort(pos, pos + count);
}

/// Picks `count` positions of node v's list into pos[0..count) (uniform; see file comment).
template <class Offset>
void draw_positions(std::int64_t degree, std::int64_t count, bool replace, splitmix64& rng,
                    Offset* pos) noexcept
{
  auto const udeg = static_cast<std::uint64_t>(degree);
  if (replace) {
    for (std::int64_t j = 0; j < count; ++j) { pos[j] = static_cast<Offset>(rng.below(udeg)); }
    return;
  }
  if (degree <= count) {
    for (std::int64_t j = 0; j < count; ++j) { pos[j] = static_cast<Offset>(j); }
    return;
  }
  // Floyd: for j = degree - count .. degree - 1, t uniform in [0, j]; take t unless already
  // taken, else j. Linear search: fanouts are small (O(fanout^2) compares, no allocation).
  std::int64_t taken = 0;
  for (std::int64_t j = degree - count; j < degree; ++j) {
    auto t = static_cast<Offset>(rng.below(static_cast<std::uint64_t>(j) + 1));
    for (std::int64_t i = 0; i < taken; ++i) {
      if (pos[i] == t) {
        t = static_cast<Offset>(j);
        break;
      }
    }
    pos[taken++] = t;
  }
}

/// Resizes without keeping old contents (no copy on growth, no fill).
template <class V>
void fresh_size(V& v, std::int64_t n)
{
  v.clear();
  v.resize(static_cast<std::size_t>(n));
}

}  // namespace detail
}  // namespace host
GNNDIRECT_NAMESPACE_END
