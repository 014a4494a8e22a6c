#pragma once
// Definitions of host/cpu_sampler.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

template <class Offset, class Index, class Sampler>
auto cpu_sampler::sample_neighbors(
  const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds, int fanout, int layer,
  const Sampler& sampler, cpu_neighbors<Offset, Index>& out) -> void
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

template <class Offset, class Index, class Sampler>
auto cpu_sampler::sample_blocks(
  const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds, const std::vector<int>& fanouts,
  const Sampler& sampler, cpu_blocks<Offset, Index>& out) -> void
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

template <class Offset, class Index, class Sampler>
auto cpu_sampler::sample_blocks(
  const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds, const std::vector<int>& fanouts,
  const Sampler& sampler) -> cpu_blocks<Offset, Index>
{
  cpu_blocks<Offset, Index> out;
  sample_blocks(csr, seeds, num_seeds, fanouts, sampler, out);
  return out;
}

template <class Offset, class Index, class Sampler>
auto cpu_sampler::check_call(
  const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t num_seeds, const Sampler& sampler,
  int fanout) -> void
{
  validate(sampler, sampling_policy{}, csr, fanout);  // the tuning does not apply on the host
  GNNDIRECT_EXPECTS(num_seeds >= 0 && (num_seeds == 0 || seeds != nullptr),
                    "cpu_sampler: bad seed array");
}

template <class Offset, class Index>
auto cpu_sampler::prefetch_indptr(const csr_view<Offset, Index>& csr, Index v) noexcept -> void
{
  if (v >= 0 && static_cast<std::int64_t>(v) < csr.num_nodes) { detail::prefetch(csr.indptr + v); }
}

template <class Offset, class Index>
auto cpu_sampler::prefetch_list(const csr_view<Offset, Index>& csr, Index v) noexcept -> void
{
  if (v >= 0 && static_cast<std::int64_t>(v) < csr.num_nodes) { detail::prefetch(csr.indices + csr.begin(v)); }
}

template <class Index>
auto cpu_sampler::prefetch_marker(Index u) const noexcept -> void
{
  if (u >= 0 && static_cast<std::int64_t>(u) < marker_size_) { detail::prefetch(&marker_[static_cast<std::int64_t>(u)]); }
}

inline auto cpu_sampler::chunks(std::int64_t n) noexcept -> std::int64_t
{
  return (n + detail::cpu_chunk_nodes - 1) / detail::cpu_chunk_nodes;
}

inline auto cpu_sampler::chunk_end(std::int64_t c, std::int64_t n) noexcept -> std::int64_t
{
  return std::min(n, (c + 1) * detail::cpu_chunk_nodes);
}

template <class Offset, class Index>
auto cpu_sampler::count_pass(
  const csr_view<Offset, Index>& csr, const Index* dst, std::int64_t num_dst, int fanout,
  const detail::cpu_draw& policy, std::int64_t* offsets, Index* dst_copy, const std::string& what) -> std::int64_t
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

template <class Offset, class Index>
auto cpu_sampler::sample_pass(
  const csr_view<Offset, Index>& csr, const Index* dst, std::int64_t num_dst, int fanout, int layer,
  const detail::cpu_draw& policy, std::int64_t* offsets, Index* nbr, Offset* eid, bool mark) -> void
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

template <class Offset, class Index>
auto cpu_sampler::sample_layer(
  const csr_view<Offset, Index>& csr, const Index* dst, std::int64_t num_dst, int fanout, int layer,
  const detail::cpu_draw& policy, cpu_block<Offset, Index>& out) -> void
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

template <class Offset, class Index>
auto cpu_sampler::relabel_sequential(
  const csr_view<Offset, Index>& csr, Index* ids, std::int64_t edges, int layer, cpu_block<Offset, Index>& out) -> void
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

template <class Index>
auto cpu_sampler::mark_dst(const Index* dst, std::int64_t num_dst) -> void
{
  pool_.run(chunks(num_dst), [&](std::int64_t c, int) {
    for (std::int64_t d = chunk_begin(c); d < chunk_end(c, num_dst); ++d) {
      detail::claim(marker_[static_cast<std::int64_t>(dst[d])], d);
    }
  });
}

template <class Index>
auto cpu_sampler::count_owned(Index* ids, std::int64_t num_dst) -> std::int64_t
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

template <class Index>
auto cpu_sampler::assign_ids(const Index* dst, Index* ids, std::int64_t num_dst, Index* src) -> void
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

template <class Index>
auto cpu_sampler::translate(Index* ids, std::int64_t num_dst) -> void
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

inline auto cpu_sampler::ensure_marker(std::int64_t num_nodes) -> void
{
  if (marker_size_ >= num_nodes) { return; }
  // new[] of std::atomic<int64_t> leaves the values uninitialised (trivial default
  // constructor in C++17), so the fill below is the only pass and it runs on all cores.
  marker_.reset(new std::atomic<std::int64_t>[static_cast<std::size_t>(num_nodes)]);
  marker_size_ = num_nodes;
  reset_marker_all();
}

inline auto cpu_sampler::reset_marker_all() -> void
{
  constexpr std::int64_t grain = std::int64_t{1} << 16;
  pool_.run((marker_size_ + grain - 1) / grain, [&](std::int64_t t, int) {
    for (std::int64_t v = t * grain; v < std::min(marker_size_, (t + 1) * grain); ++v) {
      marker_[v].store(detail::unmarked, std::memory_order_relaxed);
    }
  });
}

template <class Index>
auto cpu_sampler::reset_marker(const Index* ids, std::int64_t n) -> void
{
  constexpr std::int64_t grain = std::int64_t{1} << 14;
  pool_.run((n + grain - 1) / grain, [&](std::int64_t t, int) {
    for (std::int64_t i = t * grain; i < std::min(n, (t + 1) * grain); ++i) {
      marker_[static_cast<std::int64_t>(ids[i])].store(detail::unmarked, std::memory_order_relaxed);
    }
  });
}

}  // namespace host
GNNDIRECT_NAMESPACE_END
