#pragma once
/// @file sample_common.hpp
/// @brief Argument checks, type dispatch and policy construction shared by the CPU and CUDA
/// sampling ops (host-compilable).

#include "common.hpp"

#include <gnndirect/algorithms/sampler_choice.hpp>
#include <gnndirect/core/config.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/util/parallel.hpp>

#include <ATen/ATen.h>

#include <climits>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace gnndirect_torch {

/// Checks optional edge weights against `indices`: 1-D float32, contiguous, one per edge.
/// @param weights the weights or none  @param indices the graph's neighbour ids
/// @throws c10::TypeError (dtype), c10::ValueError (shape, contiguity).
inline void check_weights(const std::optional<at::Tensor>& weights, const at::Tensor& indices)
{
  if (!weights.has_value()) { return; }
  TORCH_CHECK_TYPE(weights->scalar_type() == at::kFloat, "gnndirect: weights must be float32, got ",
                   weights->scalar_type());
  TORCH_CHECK_VALUE(weights->dim() == 1 && weights->size(0) == indices.size(0) && weights->is_contiguous(),
                    "gnndirect: weights must be a contiguous 1-D tensor with one weight per edge (",
                    indices.size(0), "), got shape ", weights->sizes());
}

/// Checks the CSR tensors of a sampling op: indptr and indices 1-D int32/int64 and contiguous,
/// indptr non-empty and ending at the edge count (check_indptr_end), seeds 1-D with the dtype
/// of indices, weights (when given) 1-D float32 with
/// one weight per edge. `cuda`: seeds must be a CUDA tensor (the CUDA kernels).
/// @throws c10::TypeError (dtypes), c10::ValueError (shapes, contiguity, devices).
inline void check_csr_tensors(const at::Tensor& indptr, const at::Tensor& indices,
                              const at::Tensor& seeds, const std::optional<at::Tensor>& weights,
                              bool cuda)
{
  check_index_tensor(indptr, "indptr");
  check_index_tensor(indices, "indices");
  check_index_tensor(seeds, "seeds");
  TORCH_CHECK_VALUE(indptr.numel() >= 1, "gnndirect: indptr needs num_nodes + 1 >= 1 entries");
  TORCH_CHECK_VALUE(indptr.is_contiguous() && indices.is_contiguous(),
                    "gnndirect: indptr and indices must be contiguous");
  TORCH_CHECK_TYPE(seeds.scalar_type() == indices.scalar_type(), "gnndirect: seeds (",
                   seeds.scalar_type(), ") must have the dtype of indices (", indices.scalar_type(),
                   ")");
  check_weights(weights, indices);
  check_indptr_end(indptr, indices);
  if (cuda) {
    TORCH_CHECK_VALUE(seeds.is_cuda(), "gnndirect: seeds must be a CUDA tensor for GPU sampling "
                                       "(or pass CPU tensors everywhere for the host reference)");
  }
}

/// @throws c10::ValueError unless 0 <= fanout <= INT_MAX.
inline void check_fanout(std::int64_t fanout)
{
  TORCH_CHECK_VALUE(fanout >= 0 && fanout <= INT_MAX, "gnndirect: fanout must be in [0, 2^31), got ",
                    fanout);
}

/// Fanouts as ints. @throws c10::ValueError for an empty list or a bad fanout.
inline std::vector<int> checked_fanouts(at::IntArrayRef fanouts)
{
  TORCH_CHECK_VALUE(!fanouts.empty(), "gnndirect: sample_blocks needs at least one fanout");
  std::vector<int> out;
  for (std::int64_t f : fanouts) {
    check_fanout(f);
    out.push_back(static_cast<int>(f));
  }
  return out;
}

/// Calls body(offset_tag, index_tag) for indptr's and indices' dtypes (int32/int64 each).
template <class Body>
decltype(auto) dispatch_csr(const at::Tensor& indptr, const at::Tensor& indices, Body&& body)
{
  return dispatch_index_type(indptr.scalar_type(), "indptr", [&](auto offset_tag) {
    return dispatch_index_type(indices.scalar_type(), "indices", [&](auto index_tag) {
      return body(offset_tag, index_tag);
    });
  });
}

/// Worker threads of a CPU sampling op: `threads`, or all cores for 0.
/// @throws c10::ValueError unless 0 <= threads <= 4096.
inline int checked_threads(std::int64_t threads)
{
  TORCH_CHECK_VALUE(threads >= 0 && threads <= 4096, "gnndirect: threads must be in [0, 4096], got ",
                    threads);
  return threads > 0 ? static_cast<int>(threads) : gnndirect::host::default_thread_count();
}

/// The sampling ops' flat output of host blocks (cpu_blocks or reference_blocks): per layer,
/// src_nodes, offsets (int64), local indices and edge ids, each made a tensor by
/// `to_tensor(vector, dtype)` (a copy, or a tensor that owns the vector's memory).
template <class Blocks, class ToTensor>
std::vector<at::Tensor> flat_blocks(Blocks& blocks, at::ScalarType index_dtype, at::ScalarType offset_dtype,
                                    ToTensor&& to_tensor)
{
  std::vector<at::Tensor> out;
  out.reserve(4 * blocks.layers.size());
  for (auto& layer : blocks.layers) {
    out.push_back(to_tensor(layer.src_nodes, index_dtype));
    out.push_back(to_tensor(layer.offsets, at::kLong));
    out.push_back(to_tensor(layer.indices, index_dtype));
    out.push_back(to_tensor(layer.edge_ids, offset_dtype));
  }
  return out;
}

#if defined(__CUDACC__)
// visit_sampler_kind calls host lambdas (the ops) and device lambdas (the pipeline's sampler):
// without this, nvcc warns about each host call from the host-device template.
#define GNNDIRECT_TORCH_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#define GNNDIRECT_TORCH_EXEC_CHECK_DISABLE
#endif

/// The extension's one run-time sampler table: calls `f(sampler)` with the library sampler that
/// `kind` names, keyed by `seed` (sampling_kind is the library's name of each sampler,
/// algorithms/sampler_choice.hpp). Every entry point maps its sampler choice through here: the
/// CUDA, CPU and reference sampling ops (sampling_request::visit) and the loader's pipeline
/// (chosen_sampler, pipeline_impl.cuh, in device code); a sampler added to the binding is added
/// here and in make_request, nowhere else. Host and device: unlike gnndirect::visit_sampler it
/// cannot throw, so a value outside the enum (make_request never makes one) draws uniformly.
/// @tparam F callable taking any library sampler (every instantiation returns the same type)
/// @param kind which sampler  @param seed its Philox key  @param f the callable
/// @return what `f` returns
GNNDIRECT_TORCH_EXEC_CHECK_DISABLE
template <class F>
GNNDIRECT_HOST_DEVICE decltype(auto) visit_sampler_kind(gnndirect::sampling_kind kind, std::uint64_t seed, F&& f)
{
  switch (kind) {
    case gnndirect::sampling_kind::uniform_with_replacement:
      return f(gnndirect::uniform_with_replacement_sampler{seed});
    case gnndirect::sampling_kind::weighted_without_replacement: return f(gnndirect::weighted_sampler{seed});
    case gnndirect::sampling_kind::uniform_without_replacement:
    default: return f(gnndirect::uniform_sampler{seed});
  }
}

/// What the ops' arguments ask for: one of the library's samplers, chosen at run time (the
/// binding is a run-time boundary: visit_sampler_kind maps the choice onto a sampler type), and
/// the tuning.
struct sampling_request {
  gnndirect::sampling_kind kind{gnndirect::sampling_kind::uniform_without_replacement};
  std::uint64_t seed{0};              ///< the sampler's Philox key
  gnndirect::sampling_policy tuning;  ///< tile, budget, seed checks

  /// Calls f(sampler) with the sampler the request names (visit_sampler_kind).
  /// @param f callable taking any library sampler  @return what `f` returns
  template <class F>
  decltype(auto) visit(F&& f) const
  {
    return visit_sampler_kind(kind, seed, std::forward<F>(f));
  }
};

/// The sampler the binding's arguments name, for every entry point (the ops and the loader's
/// pipeline): weighted when edge weights are given (no replacement), otherwise uniform with or
/// without replacement. @param seed the Philox key  @param replace with replacement
/// @param weighted edge weights are given  @param check check the seeds (tuning.check_indices)
/// @return the request  @throws c10::ValueError for weighted + replace.
inline sampling_request make_request(std::int64_t seed, bool replace, bool weighted, bool check)
{
  TORCH_CHECK_VALUE(!(weighted && replace),
                    "gnndirect: weighted sampling with replacement is not supported (pass "
                    "replace=False, or no weights for uniform sampling with replacement)");
  sampling_request request;
  request.kind = weighted ? gnndirect::sampling_kind::weighted_without_replacement
                          : (replace ? gnndirect::sampling_kind::uniform_with_replacement
                                     : gnndirect::sampling_kind::uniform_without_replacement);
  request.seed = static_cast<std::uint64_t>(seed);
  request.tuning.check_indices = check;
  return request;
}

/// csr_view over CPU tensors (host addresses), for the host reference.
template <class Offset, class Index>
gnndirect::csr_view<Offset, Index> host_csr_view(const at::Tensor& indptr, const at::Tensor& indices,
                                                 const std::optional<at::Tensor>& weights)
{
  TORCH_CHECK_VALUE(!indptr.is_cuda() && !indices.is_cuda() &&
                      (!weights.has_value() || !weights->is_cuda()),
                    "gnndirect: the host reference needs CPU tensors");
  gnndirect::csr_view<Offset, Index> csr;
  csr.indptr = data_as<const Offset>(indptr);
  csr.indices = data_as<const Index>(indices);
  csr.weights = weights.has_value() ? data_as<const float>(*weights) : nullptr;
  csr.num_nodes = indptr.size(0) - 1;
  csr.num_edges = indices.size(0);
  csr.indptr_kind = gnndirect::memory_kind::registered;
  csr.indices_kind = gnndirect::memory_kind::registered;
  return csr;
}

namespace detail {

/// csr_view over device-visible tensors (any placement, detected per array).
template <class Offset, class Index>
gnndirect::csr_view<Offset, Index> device_csr_view(const at::Tensor& indptr, const at::Tensor& indices,
                                                   const std::optional<at::Tensor>& weights, int device)
{
  placed_pointer const ptr = placement_of(indptr, "indptr", device);
  placed_pointer const idx = placement_of(indices, "indices", device);
  gnndirect::csr_view<Offset, Index> csr;
  csr.indptr = static_cast<const Offset*>(ptr.device);
  csr.indices = static_cast<const Index*>(idx.device);
  if (weights.has_value()) {
    csr.weights = static_cast<const float*>(placement_of(*weights, "weights", device).device);
  }
  csr.num_nodes = indptr.size(0) - 1;
  csr.num_edges = indices.size(0);
  csr.indptr_kind = ptr.kind;
  csr.indices_kind = idx.kind;
  return csr;
}

}  // namespace detail
/// Runs body(csr) with the csr_view over CPU tensors (host_csr_view) for indptr's and indices'
/// dtypes, the library's errors translated (translate_errors). The CPU sampling ops' common frame.
template <class Body>
decltype(auto) on_host_csr(const at::Tensor& indptr, const at::Tensor& indices,
                           const std::optional<at::Tensor>& weights, Body&& body)
{
  return translate_errors([&] {
    return dispatch_csr(indptr, indices, [&](auto offset_tag, auto index_tag) {
      return body(host_csr_view<decltype(offset_tag), decltype(index_tag)>(indptr, indices, weights));
    });
  });
}

}  // namespace gnndirect_torch
