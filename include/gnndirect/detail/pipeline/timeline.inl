#pragma once
// Definitions of pipeline/timeline.hpp (included at its end; not part of the API).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>

#include <cstdio>

GNNDIRECT_NAMESPACE_BEGIN

inline auto pipeline_timeline::start(cudaStream_t stream) -> void
{
  std::lock_guard<std::mutex> const lock(mutex_);
  if (!origin_.get()) { origin_ = make_timing_event(); }
  GNNDIRECT_CUDA_TRY(cudaEventRecord(origin_.get(), stream));
  GNNDIRECT_CUDA_TRY(cudaEventSynchronize(origin_.get()));
  host_origin_ = std::chrono::steady_clock::now();
  used_ = 0;
  host_spans_.clear();
  started_ = true;
}

inline auto pipeline_timeline::name_stream(cudaStream_t stream, std::string name) -> void
{
  std::lock_guard<std::mutex> const lock(mutex_);
  for (auto& lane : lanes_) {
    if (lane.first == stream) {
      lane.second = std::move(name);
      return;
    }
  }
  lanes_.emplace_back(stream, std::move(name));
}

inline auto pipeline_timeline::begin(cudaStream_t stream, std::int64_t batch, const char* stage) -> token
{
  std::lock_guard<std::mutex> const lock(mutex_);
  if (!started_) { return no_span; }
  if (used_ == gpu_spans_.size()) { gpu_spans_.emplace_back(); }
  gpu_span& s = gpu_spans_[used_];
  if (!s.begin.get()) {
    s.begin = make_timing_event();
    s.end = make_timing_event();
  }
  s.lane = lane_of(stream);
  s.batch = batch;
  s.stage = stage;
  s.ended = false;
  GNNDIRECT_CUDA_TRY(cudaEventRecord(s.begin.get(), stream));
  return used_++;
}

inline auto pipeline_timeline::end(token t, cudaStream_t stream) -> void
{
  std::lock_guard<std::mutex> const lock(mutex_);
  if (t == no_span) { return; }
  GNNDIRECT_EXPECTS(t < used_ && !gpu_spans_[t].ended, "pipeline_timeline::end: no such open span");
  GNNDIRECT_CUDA_TRY(cudaEventRecord(gpu_spans_[t].end.get(), stream));
  gpu_spans_[t].ended = true;
}

inline auto pipeline_timeline::host_span(
  std::string lane, std::int64_t batch, const char* stage, std::chrono::steady_clock::time_point from,
  std::chrono::steady_clock::time_point to) -> void
{
  std::lock_guard<std::mutex> const lock(mutex_);
  if (!started_) { return; }
  auto const ms = [this](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(t - host_origin_).count();
  };
  host_spans_.push_back(timeline_span{std::move(lane), batch, stage, ms(from), ms(to), false});
}

inline auto pipeline_timeline::spans() const -> std::vector<timeline_span>
{
  std::lock_guard<std::mutex> const lock(mutex_);
  std::vector<timeline_span> out;
  out.reserve(used_ + host_spans_.size());
  for (std::size_t i = 0; i < used_; ++i) {
    gpu_span const& s = gpu_spans_[i];
    if (!s.ended) { continue; }
    GNNDIRECT_CUDA_TRY(cudaEventSynchronize(s.end.get()));
    float begin_ms = 0;
    float end_ms = 0;
    GNNDIRECT_CUDA_TRY(cudaEventElapsedTime(&begin_ms, origin_.get(), s.begin.get()));
    GNNDIRECT_CUDA_TRY(cudaEventElapsedTime(&end_ms, origin_.get(), s.end.get()));
    out.push_back(timeline_span{lanes_[s.lane].second, s.batch, s.stage, begin_ms, end_ms, true});
  }
  out.insert(out.end(), host_spans_.begin(), host_spans_.end());
  return out;
}

inline auto pipeline_timeline::to_json(const std::string& extra) const -> std::string
{
  std::vector<timeline_span> const all = spans();
  std::vector<std::string> lanes;
  for (auto const& s : all) {
    bool seen = false;
    for (auto const& l : lanes) { seen = seen || l == s.lane; }
    if (!seen) { lanes.push_back(s.lane); }
  }
  std::string text = "{\n  \"unit\": \"ms\",\n";
  if (!extra.empty()) { text += "  " + extra + ",\n"; }
  text += "  \"lanes\": [";
  for (std::size_t i = 0; i < lanes.size(); ++i) { text += (i ? ", \"" : "\"") + lanes[i] + "\""; }
  text += "],\n  \"spans\": [\n";
  char line[256];
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto const& s = all[i];
    std::snprintf(line, sizeof line,
                  "    {\"lane\": \"%s\", \"batch\": %lld, \"stage\": \"%s\", \"start\": %.4f, \"end\": %.4f, "
                  "\"gpu\": %s}%s\n",
                  s.lane.c_str(), static_cast<long long>(s.batch), s.stage.c_str(), s.start_ms, s.end_ms,
                  s.gpu ? "true" : "false", i + 1 < all.size() ? "," : "");
    text += line;
  }
  text += "  ]\n}\n";
  return text;
}

inline auto pipeline_timeline::write_json(const std::string& path, const std::string& extra) const -> bool
{
  std::string const text = to_json(extra);
  std::FILE* const f = std::fopen(path.c_str(), "w");
  if (f == nullptr) { return false; }
  bool const ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}

inline auto pipeline_timeline::make_timing_event() -> event_handle
{
  cudaEvent_t event{};
  GNNDIRECT_CUDA_TRY(cudaEventCreateWithFlags(&event, cudaEventDefault));
  return event_handle(event);
}

inline auto pipeline_timeline::lane_of(cudaStream_t stream) -> std::size_t
{
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    if (lanes_[i].first == stream) { return i; }
  }
  lanes_.emplace_back(stream, "stream " + std::to_string(lanes_.size()));
  return lanes_.size() - 1;
}

inline pipeline_timeline::token timeline_begin(
  pipeline_timeline* timeline, cudaStream_t stream, std::int64_t batch, const char* stage)
{
  return timeline == nullptr ? pipeline_timeline::no_span : timeline->begin(stream, batch, stage);
}

inline void timeline_end(pipeline_timeline* timeline, pipeline_timeline::token t, cudaStream_t stream)
{
  if (timeline != nullptr) { timeline->end(t, stream); }
}

GNNDIRECT_NAMESPACE_END
