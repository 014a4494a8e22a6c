/// @file link_cpu.cpp
/// @brief Schemas and CPU kernels of the link-prediction ops: negative sampling and temporal
/// blocks. The CPU kernels are the host form of the library's definitions, so the CUDA kernels
/// (link_cuda.cu, temporal_cuda.cu) equal them bit for bit: negatives run the library's own
/// per-draw rule (resolve_negative, host and device code); temporal blocks are written here from
/// the definitions in device/temporal_samplers.hpp and algorithms/sample_temporal_blocks_async.cuh
/// (the same Philox draws, eligibility, 'last' order and inherited query times).
///
/// Ops (namespace torch.ops.gnndirect):
/// - sample_negatives(indptr, indices, src, dst, mode, amount, seed=0, batch=0, strict=False,
///   max_attempts=8, num_dst=-1) -> (neg_src, neg_dst, unresolved): PyG 'binary' (ceil(amount *
///   P) random pairs) or 'triplet' (amount destinations per positive, negative k keeping
///   src[k / amount]); strict redraws pairs (s, d) with d in s's (sorted) neighbour list of the
///   given CSR, up to max_attempts draws; unresolved: a 0-dim int64 tensor, the strict draws kept
///   anyway. Sources are drawn from [0, num_nodes) (the CSR's rows), destinations from
///   [0, num_dst) (a typed relation: the CSR is its out-CSR) or, num_dst = -1, [0, num_nodes)
///   (the same bits as before the argument existed).
/// - sample_temporal_blocks(indptr, indices, seeds, seed_times, fanouts, times, time_form='edge',
///   strategy='uniform', seed=0, excluded=None, check=True) -> Tensor[] (4 per layer, as
///   sample_blocks): only neighbours at or before the row's query time (edge times in CSR
///   position order or node times), 'uniform' or the 'last' (most recent) ones, never an edge id
///   of `excluded` (sorted); the rows of layer l + 1 inherit the minimum query time of the rows
///   that reached them.

#include "common.hpp"
#include "link_common.hpp"
#include "sample_common.hpp"
#include "temporal_host.hpp"

#include <gnndirect/algorithms/negative_sampling.hpp>
#include <gnndirect/core/philox.hpp>

#include <ATen/Parallel.h>
#include <torch/library.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace gnndirect_torch {
namespace {

/// Raises IndexError naming `what`[i] for the first id of `ids` outside [0, bound).
template <class I>
void check_ids(const I* ids, std::int64_t n, std::int64_t bound, const char* what)
{
  for (std::int64_t i = 0; i < n; ++i) {
    auto const v = static_cast<std::int64_t>(ids[i]);
    TORCH_CHECK_INDEX(v >= 0 && v < bound, "gnndirect: ", what, "[", i, "] = ", v, " is outside [0, ", bound, ")");
  }
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> sample_negatives_cpu(
  const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& src, const at::Tensor& dst,
  c10::string_view mode_view, double amount, std::int64_t seed, std::int64_t batch, bool strict,
  std::int64_t max_attempts, std::int64_t num_dst)
{
  std::string const mode(mode_view);
  check_negative_args(indptr, indices, src, dst, mode, max_attempts, num_dst, false);
  at::Tensor const s = src.contiguous();
  at::Tensor const d = dst.contiguous();
  auto const options = negative_options_of(seed, batch, strict, max_attempts, num_dst);
  return on_host_csr(indptr, indices, std::nullopt, [&](const auto& csr) {
    using I = typename std::decay_t<decltype(csr)>::index_type;
    return visit_negative_mode(mode, amount, [&](auto negatives) {
      std::int64_t const num_pos = s.numel();
      std::int64_t const num_neg = gnndirect::negative_count(negatives, num_pos);
      std::int64_t const dst_count = gnndirect::negative_dst_count(options, csr.num_nodes);
      TORCH_CHECK_VALUE(num_neg == 0 || csr.num_nodes > 0,
                        "gnndirect: sample_negatives: the graph has no nodes to draw negatives from");
      TORCH_CHECK_VALUE(num_neg == 0 || dst_count > 0,
                        "gnndirect: sample_negatives: num_dst is 0 with negatives to draw");
      check_ids(data_as<const I>(s), num_pos, csr.num_nodes, "positive src");
      check_ids(data_as<const I>(d), num_pos, dst_count, "positive dst");
      at::Tensor out_src = at::empty({num_neg}, s.options());
      at::Tensor out_dst = at::empty({num_neg}, s.options());
      std::atomic<std::int64_t> unresolved{0};
      I* const os = data_as<I>(out_src);
      I* const od = data_as<I>(out_dst);
      const I* const positives = data_as<const I>(s);
      gnndirect::uniform_negative_sampler const sampler{};
      at::parallel_for(0, num_neg, 4096, [&](std::int64_t begin, std::int64_t end) {
        std::int64_t missed = 0;
        for (std::int64_t k = begin; k < end; ++k) {
          auto const r = gnndirect::resolve_negative(csr, positives, negatives, sampler, options, k);
          os[k] = r.pair.src;
          od[k] = r.pair.dst;
          missed += r.unresolved ? 1 : 0;
        }
        unresolved += missed;
      });
      return std::make_tuple(out_src, out_dst, at::scalar_tensor(unresolved.load(), at::dtype(at::kLong)));
    });
  });
}

std::vector<at::Tensor> sample_temporal_blocks_cpu(const at::Tensor& indptr, const at::Tensor& indices,
                                                   const at::Tensor& seeds, const at::Tensor& seed_times,
                                                   at::IntArrayRef fanouts, const at::Tensor& times,
                                                   c10::string_view time_form_view, c10::string_view strategy_view,
                                                   std::int64_t seed, const std::optional<at::Tensor>& excluded,
                                                   bool /*check: always on the host*/)
{
  std::string const time_form(time_form_view);
  std::string const strategy(strategy_view);
  check_csr_tensors(indptr, indices, seeds, std::nullopt, false);
  std::vector<int> const fans = checked_fanouts(fanouts);
  check_temporal_args(indptr, indices, seeds, seed_times, times, time_form, strategy, excluded);
  TORCH_CHECK_VALUE(!times.is_cuda() && !seed_times.is_cuda() && (!excluded.has_value() || !excluded->is_cuda()),
                    "gnndirect: sample_temporal_blocks on the CPU needs CPU times, seed_times and excluded");
  at::Tensor const ids = seeds.contiguous();
  at::Tensor const query = seed_times.contiguous();
  std::int64_t const* const excl = excluded.has_value() ? data_as<const std::int64_t>(*excluded) : nullptr;
  std::int64_t const num_excl = excluded.has_value() ? excluded->numel() : 0;
  TORCH_CHECK_VALUE(excl == nullptr || std::is_sorted(excl, excl + num_excl),
                    "gnndirect: sample_temporal_blocks: excluded edge ids must be sorted ascending");
  return on_host_csr(indptr, indices, std::nullopt, [&](const auto& csr) {
    using O = typename std::decay_t<decltype(csr)>::offset_type;
    using I = typename std::decay_t<decltype(csr)>::index_type;
    auto const index_dtype = indices.scalar_type();
    auto const offset_dtype = indptr.scalar_type();
    return visit_temporal_sampler(strategy, time_form, seed, data_as<const std::int64_t>(times), times.numel(), excl,
                                  num_excl, [&](const auto& sampler) {
      std::vector<at::Tensor> out;
      std::vector<I> dst(data_as<const I>(ids), data_as<const I>(ids) + ids.numel());
      std::vector<std::int64_t> time(data_as<const std::int64_t>(query), data_as<const std::int64_t>(query) + query.numel());
      std::vector<std::int64_t> eligible, picked;
      for (std::size_t l = 0; l < fans.size(); ++l) {
        std::string const what = "seeds of layer " + std::to_string(l);
        check_ids(dst.data(), static_cast<std::int64_t>(dst.size()), csr.num_nodes, what.c_str());
        std::vector<std::int64_t> offsets{0};
        std::vector<I> sampled;
        std::vector<O> edge_ids;
        std::vector<std::size_t> sampled_row;
        for (std::size_t r = 0; r < dst.size(); ++r) {
          auto const node = static_cast<std::int64_t>(dst[r]);
          temporal_positions(csr, sampler, node, time[r], fans[l], static_cast<int>(l), eligible, picked);
          for (std::int64_t p : picked) {
            auto const e = static_cast<std::int64_t>(csr.indptr[node]) + p;
            auto const v = static_cast<std::int64_t>(csr.indices[e]);
            TORCH_CHECK_INDEX(v >= 0 && v < csr.num_nodes, "gnndirect: sampled neighbour ids (csr.indices) of layer ",
                              l, ": indices[", e, "] = ", v, " is outside [0, ", csr.num_nodes, ")");
            sampled.push_back(csr.indices[e]);
            edge_ids.push_back(static_cast<O>(e));
            sampled_row.push_back(r);
          }
          offsets.push_back(static_cast<std::int64_t>(sampled.size()));
        }
        // Relabel: src nodes = dst rows, then new nodes by first appearance (a repeated dst id
        // maps to its first row); each src row's next query time is the minimum over its own
        // (dst rows) and the rows that sampled it.
        std::vector<I> src(dst);
        std::unordered_map<std::int64_t, I> local;
        local.reserve(dst.size() + sampled.size());
        for (std::size_t r = 0; r < dst.size(); ++r) { local.emplace(static_cast<std::int64_t>(dst[r]), static_cast<I>(r)); }
        std::vector<std::int64_t> next(time);
        std::vector<I> local_ids(sampled.size());
        for (std::size_t k = 0; k < sampled.size(); ++k) {
          auto const inserted = local.emplace(static_cast<std::int64_t>(sampled[k]), static_cast<I>(src.size()));
          if (inserted.second) {
            src.push_back(sampled[k]);
            next.push_back(std::numeric_limits<std::int64_t>::max());
          }
          auto const at_row = static_cast<std::size_t>(inserted.first->second);
          local_ids[k] = inserted.first->second;
          next[at_row] = std::min(next[at_row], time[sampled_row[k]]);
        }
        auto const tensor = [](const auto& values, at::ScalarType dtype) {
          at::Tensor t = at::empty({static_cast<std::int64_t>(values.size())}, at::dtype(dtype));
          if (!values.empty()) { std::memcpy(t.data_ptr(), values.data(), values.size() * sizeof(values[0])); }
          return t;
        };
        out.push_back(tensor(src, index_dtype));
        out.push_back(tensor(offsets, at::kLong));
        out.push_back(tensor(local_ids, index_dtype));
        out.push_back(tensor(edge_ids, offset_dtype));
        dst = std::move(src);
        time = std::move(next);
      }
      return out;
    });
  });
}

}  // namespace
}  // namespace gnndirect_torch

TORCH_LIBRARY_FRAGMENT(gnndirect, m)
{
  m.def("sample_negatives(Tensor indptr, Tensor indices, Tensor src, Tensor dst, str mode, float amount, "
        "int seed=0, int batch=0, bool strict=False, int max_attempts=8, int num_dst=-1) -> (Tensor, Tensor, Tensor)");
  m.def("sample_temporal_blocks(Tensor indptr, Tensor indices, Tensor seeds, Tensor seed_times, int[] fanouts, "
        "Tensor times, str time_form='edge', str strategy='uniform', int seed=0, Tensor? excluded=None, "
        "bool check=True) -> Tensor[]");
}

TORCH_LIBRARY_IMPL(gnndirect, CPU, m)
{
  m.impl("sample_negatives", &gnndirect_torch::sample_negatives_cpu);
  m.impl("sample_temporal_blocks", &gnndirect_torch::sample_temporal_blocks_cpu);
}
