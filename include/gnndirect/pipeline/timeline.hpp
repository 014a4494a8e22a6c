#pragma once
/// @file timeline.hpp
/// @brief An epoch timeline: when each stage of each batch ran on which stream, measured with
/// CUDA timing events (no profiler needed), plus host spans, written as JSON
/// (host-compilable with the CUDA Toolkit's headers).
///
/// A pipeline records into a timeline only when one is given (pipeline_options::timeline,
/// scheduler_options::timeline); with none, nothing is recorded and no event is created, so the
/// timeline costs nothing when off. Recording one span costs two cudaEventRecord calls (and an
/// event creation the first time a span slot is used); read the spans back with spans() once the
/// recorded work is done. scripts/results.py timeline draws the JSON as lanes per stream.

#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/cuda_handles.hpp>

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// One interval of a timeline, in milliseconds since the timeline's start().
struct timeline_span {
  std::string lane;        ///< the stream's (or host thread's) name
  std::int64_t batch{-1};  ///< batch index in the epoch (-1: none)
  std::string stage;       ///< what ran (e.g. "sample", "features", "held")
  double start_ms{0};      ///< begin, ms after start()
  double end_ms{0};        ///< end, ms after start()
  bool gpu{true};          ///< measured with CUDA events (false: host clock)
};

/// Records spans of GPU work (timing events around work enqueued on a stream) and of host work
/// (steady_clock) against one time origin. Thread-safe: workers and the consumer record
/// concurrently. Not copyable (it owns events).
class pipeline_timeline {
 public:
  /// A span's handle, from begin() to end().
  using token = std::size_t;
  /// The token of a span not recorded (begun before start()); end() ignores it.
  static constexpr token no_span = static_cast<token>(-1);

  /// An empty timeline; call start() before recording.
  pipeline_timeline() = default;
  pipeline_timeline(const pipeline_timeline&) = delete;
  pipeline_timeline& operator=(const pipeline_timeline&) = delete;

  /// Sets the time origin: records an event on `stream`, waits for it (host) and drops the spans
  /// recorded so far (their events are reused). Call with no recorded work in flight.
  /// @param stream a stream with no pending work worth waiting for (e.g. a fresh one)
  /// @throws cuda_error.
  void start(cudaStream_t stream);

  /// Names the lane of `stream` (spans on an unnamed stream get "stream N", in order of first
  /// use).  @param stream the stream  @param name its lane's name
  void name_stream(cudaStream_t stream, std::string name);

  /// Opens a span: records its begin event on `stream` (after the work enqueued so far).
  /// @param stream where the span's work is enqueued  @param batch its batch (-1: none)
  /// @param stage what it is (a string literal: it is kept by pointer)
  /// @return its token for end(); no_span before start() (nothing is recorded)
  /// @throws cuda_error.
  token begin(cudaStream_t stream, std::int64_t batch, const char* stage);

  /// Closes a span: records its end event on `stream` (after the work enqueued so far; may be
  /// another stream than begin's, e.g. "held" from next() to release()).
  /// @param t the span's token (no_span: nothing happens)  @param stream the stream
  /// @throws invalid_argument for a token not open (ended already, or from before the last
  /// start()); cuda_error.
  void end(token t, cudaStream_t stream);

  /// Adds a host span (e.g. a worker enqueueing or waiting); nothing before start().
  /// @param lane its lane  @param batch its batch  @param stage what it is
  /// @param from, to its host times (steady_clock)
  void host_span(std::string lane, std::int64_t batch, const char* stage,
                 std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to);

  /// Every closed span so far, GPU spans first (in the order begun), then host spans. Waits (host)
  /// for each GPU span's end event, so call it once the recorded work is done.
  /// @return the spans  @throws cuda_error.
  std::vector<timeline_span> spans() const;

  /// The spans as JSON: {"unit": "ms", "lanes": [...], "spans": [{"lane", "batch", "stage",
  /// "start", "end", "gpu"}, ...]} plus `extra` (pre-formatted JSON members, e.g.
  /// "\"path\": \"gnndirect\"", or empty).  @param extra members to add  @return the text
  /// @throws cuda_error (see spans()).
  std::string to_json(const std::string& extra = {}) const;

  /// Writes to_json(extra) to `path`.  @param path the file  @param extra see to_json
  /// @return false when the file cannot be written  @throws cuda_error (see spans()).
  bool write_json(const std::string& path, const std::string& extra = {}) const;

 private:
  /// A GPU span: its two timing events, lane, batch and stage, and whether end() closed it.
  struct gpu_span {
    event_handle begin;
    event_handle end;
    std::size_t lane{0};
    std::int64_t batch{-1};
    const char* stage{""};
    bool ended{false};
  };

  /// A timing event (cudaEventDefault: timing enabled).  @throws cuda_error.
  static event_handle make_timing_event();

  /// The lane of `stream`, named "stream N" on first use. Under the mutex.
  std::size_t lane_of(cudaStream_t stream);

  mutable std::mutex mutex_;
  event_handle origin_;
  std::chrono::steady_clock::time_point host_origin_{};
  bool started_{false};
  std::vector<gpu_span> gpu_spans_;  // [0, used_) recorded since start(); the rest kept for reuse
  std::size_t used_{0};
  std::vector<std::pair<cudaStream_t, std::string>> lanes_;
  std::vector<timeline_span> host_spans_;
};

/// Opens a span on `timeline` when there is one (else does nothing and returns 0): the form the
/// pipeline uses, so that a null timeline costs one branch.
/// @param timeline the timeline or null  @param stream, batch, stage see pipeline_timeline::begin
/// @return the token (pipeline_timeline::no_span without a timeline)
inline pipeline_timeline::token timeline_begin(pipeline_timeline* timeline, cudaStream_t stream, std::int64_t batch,
                                               const char* stage);

/// Closes a span opened with timeline_begin (nothing without a timeline).
/// @param timeline the timeline or null  @param t the token  @param stream the stream
inline void timeline_end(pipeline_timeline* timeline, pipeline_timeline::token t, cudaStream_t stream);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/pipeline/timeline.inl>
