#pragma once
/// @file emulated_tile.hpp
/// @brief A tile of N lanes emulated on the host by N std::threads (test support), so that the
/// library's device primitives (samplers, copy_rows, decode_rows: templates over a Tile) run
/// unchanged on a machine without a GPU and can be compared with the host references.
///
/// Every lane is a thread running the same function; the tile's collectives (shfl, ballot, sync)
/// are barriers, so the lanes meet there in lockstep as a warp's lanes do at *_sync intrinsics,
/// and between two collectives they run freely (as under independent thread scheduling). A
/// barrier also orders memory: what a lane wrote before it is visible to every lane after it (the
/// guarantee of __syncwarp / tile.sync()). Misuse that a GPU would silently miscompute or hang on
/// is reported instead: lanes that reach different collectives, or a lane that returns while
/// others wait at one, make run_tile throw std::logic_error.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace gnndirect::test {

namespace detail {

/// Largest value emulated_tile::shfl exchanges.
inline constexpr std::size_t slot_bytes = 16;

/// One lane's contribution to a collective.
struct slot {
  char kind{0};  ///< 's' shfl, 'b' ballot, 'y' sync
  alignas(16) unsigned char value[slot_bytes]{};
};

/// Thrown in the lanes still waiting when another lane failed (run_tile reports that failure).
struct tile_aborted {};

/// What the lanes of an emulated tile share: the barrier (mutex, condition variable, generation
/// counter), one exchange slot per lane in two sets used alternately (a lane can only be one
/// collective ahead of the slowest, so one barrier per collective suffices) and the failure state.
class tile_state {
 public:
  explicit tile_state(int lanes) : lanes_(lanes), slots_(2 * static_cast<std::size_t>(lanes)) {}

  /// Lanes of the tile.
  int lanes() const noexcept { return lanes_; }

  /// Publishes this lane's value (`bytes` <= slot_bytes) and the kind of collective it is at,
  /// waits for all lanes and returns this round's slots (`lanes` entries; valid until the lane's
  /// next collective). `round` is the lane's collective counter. Throws std::logic_error when the
  /// lanes are at different kinds of collective or one has returned; tile_aborted when another
  /// lane failed.
  const slot* exchange(int rank, std::uint64_t& round, char kind, const void* value, std::size_t bytes)
  {
    slot* const set = slots_.data() + (round % 2) * static_cast<std::size_t>(lanes_);
    ++round;
    set[rank].kind = kind;
    if (bytes > 0) { std::memcpy(set[rank].value, value, bytes); }
    std::unique_lock<std::mutex> lock(mutex_);
    if (failed_) { throw tile_aborted{}; }
    if (done_ > 0) { throw diverged(rank, "reached a collective after another lane returned"); }
    std::uint64_t const generation = generation_;
    if (++arrived_ == lanes_) {
      arrived_ = 0;
      ++generation_;
      wake_.notify_all();
    } else {
      wake_.wait(lock, [&] { return generation_ != generation || failed_ || done_ > 0; });
      if (generation_ == generation) {
        if (failed_) { throw tile_aborted{}; }
        throw diverged(rank, "waits at a collective that another lane returned without reaching");
      }
    }
    lock.unlock();
    for (int r = 0; r < lanes_; ++r) {
      if (set[r].kind != kind) {
        throw diverged(rank, std::string("is at collective '") + kind + "', lane " + std::to_string(r) +
                               " at '" + set[r].kind + "'");
      }
    }
    return set;
  }

  /// Marks the calling lane as returned, keeping `error` (null: it returned normally) when it is
  /// the first failure; wakes waiting lanes.
  void lane_done(std::exception_ptr error) noexcept
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    if (error && !failed_) { first_error_ = error; }
    failed_ = failed_ || static_cast<bool>(error);
    wake_.notify_all();
  }

  /// The first failure of a lane, or null.
  std::exception_ptr first_error() const noexcept { return first_error_; }

 private:
  static std::logic_error diverged(int rank, const std::string& what)
  {
    return std::logic_error("emulated tile: lanes diverged: lane " + std::to_string(rank) + " " + what);
  }

  int lanes_;
  std::vector<slot> slots_;
  std::mutex mutex_;
  std::condition_variable wake_;
  int arrived_{0};
  std::uint64_t generation_{0};
  int done_{0};
  bool failed_{false};
  std::exception_ptr first_error_;
};

}  // namespace detail

/// The tile one lane sees: the members of cooperative_groups::thread_block_tile<N> and
/// gnndirect::dynamic_tile that the device primitives use. Made by run_tile only; valid during it.
class emulated_tile {
 public:
  emulated_tile(detail::tile_state& state, int rank) noexcept : state_(&state), rank_(rank) {}

  /// Rank of this lane, 0..num_threads()-1.
  unsigned thread_rank() const noexcept { return static_cast<unsigned>(rank_); }
  /// Lanes in the tile.
  unsigned num_threads() const noexcept { return static_cast<unsigned>(state_->lanes()); }

  /// The `value` that lane `source` passed (source taken modulo the tile size, as __shfl_sync
  /// with width = size). All lanes call it together. @tparam T trivially copyable, <= 16 bytes
  template <class T>
  T shfl(T value, int source) const
  {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= detail::slot_bytes,
                  "emulated_tile::shfl: T must be trivially copyable and at most 16 bytes");
    const detail::slot* const set = state_->exchange(rank_, round_, 's', &value, sizeof(T));
    T result;
    std::memcpy(&result, set[source & (state_->lanes() - 1)].value, sizeof(T));
    return result;
  }

  /// Bit r set when lane r's predicate holds (bits at and above the tile size clear). All lanes
  /// call it together.
  unsigned ballot(bool predicate) const
  {
    unsigned char const mine = predicate ? 1 : 0;
    const detail::slot* const set = state_->exchange(rank_, round_, 'b', &mine, 1);
    unsigned bits = 0;
    for (int r = 0; r < state_->lanes(); ++r) { bits |= static_cast<unsigned>(set[r].value[0]) << r; }
    return bits;
  }

  /// Bits of the ranks below this lane's rank (dynamic_tile::lower_ranks).
  unsigned lower_ranks() const noexcept { return (1u << rank_) - 1u; }

  /// Barrier and memory fence among the lanes.
  void sync() const { state_->exchange(rank_, round_, 'y', nullptr, 0); }

 private:
  detail::tile_state* state_;
  int rank_;
  mutable std::uint64_t round_{0};  ///< collectives this lane has passed (selects the slot set)
};

/// Runs `fn(tile)` on every lane of an emulated tile of `lanes` threads (a power of two,
/// 1..32) and returns when all have returned (lane 0 runs on the calling thread). Blocking.
/// Rethrows the first exception a lane threw (lanes waiting at a collective then stop); throws
/// std::invalid_argument for a bad lane count and std::logic_error when the lanes diverge at
/// collectives (see the file comment). Do not use doctest assertions inside `fn` (not
/// thread-safe): record results per lane and check them after run_tile returns.
/// @tparam Fn callable as fn(const emulated_tile&)
template <class Fn>
void run_tile(int lanes, Fn&& fn)
{
  if (lanes < 1 || lanes > 32 || (lanes & (lanes - 1)) != 0) {
    throw std::invalid_argument("run_tile: lanes must be a power of two in 1..32, got " + std::to_string(lanes));
  }
  detail::tile_state state(lanes);
  auto lane = [&](int rank) {
    std::exception_ptr error;
    try {
      emulated_tile const tile(state, rank);
      fn(tile);
    } catch (const detail::tile_aborted&) {
      error = std::make_exception_ptr(std::logic_error("emulated tile: aborted"));  // not the first
    } catch (...) {
      error = std::current_exception();
    }
    state.lane_done(error);
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(lanes) - 1);
  for (int rank = 1; rank < lanes; ++rank) { threads.emplace_back(lane, rank); }
  lane(0);
  for (auto& t : threads) { t.join(); }
  if (std::exception_ptr const error = state.first_error()) { std::rethrow_exception(error); }
}

}  // namespace gnndirect::test
