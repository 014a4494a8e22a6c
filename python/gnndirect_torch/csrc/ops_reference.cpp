/// @file ops_reference.cpp
/// @brief The test oracle as private ops: the host reference sampler (reference/), which the
/// library's GPU samplers reproduce bit for bit. Not a data path (it is written for clarity, not
/// speed): the public CPU ops run host::cpu_sampler. gnndirect_torch.testing wraps these for
/// the extension's tests and for a framework that checks its own GPU path against the oracle.
///
/// Ops (namespace torch.ops.gnndirect, CPU tensors only):
/// - _reference_sample_neighbors(indptr, indices, seeds, fanout, layer=0, seed=0, replace=False,
///   weights=None, threads=0) -> (offsets, neighbors, edge_ids)
/// - _reference_sample_blocks(indptr, indices, seeds, fanouts, seed=0, replace=False,
///   weights=None, threads=0) -> Tensor[] (4 per layer: src_nodes, offsets, indices, edge_ids)

#include "common.hpp"
#include "sample_common.hpp"

#include <gnndirect/reference/sample_reference.hpp>

#include <torch/library.h>

#include <cstring>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

namespace gnndirect_torch {
namespace {

/// A new CPU tensor holding a copy of `values`.
template <class Vector>
at::Tensor tensor_from(const Vector& values, at::ScalarType dtype)
{
  at::Tensor out = at::empty({static_cast<std::int64_t>(values.size())}, at::dtype(dtype));
  if (!values.empty()) {
    std::memcpy(out.data_ptr(), values.data(), values.size() * sizeof(values[0]));
  }
  return out;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> reference_sample_neighbors(
  const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& seeds, std::int64_t fanout,
  std::int64_t layer, std::int64_t seed, bool replace, const std::optional<at::Tensor>& weights,
  std::int64_t threads)
{
  check_csr_tensors(indptr, indices, seeds, weights, false);
  check_fanout(fanout);
  int const workers = checked_threads(threads);
  at::Tensor const ids = seeds.contiguous();
  return on_host_csr(indptr, indices, weights, [&](const auto& csr) {
    using I = typename std::decay_t<decltype(csr)>::index_type;
    auto const request = make_request(seed, replace, weights.has_value(), true);
    auto const result = request.visit([&](auto sampler) {
      return gnndirect::host::sample_neighbors_reference(csr, data_as<const I>(ids), ids.size(0),
                                                         static_cast<int>(fanout),
                                                         static_cast<int>(layer), sampler, workers);
    });
    return std::make_tuple(tensor_from(result.offsets, at::kLong),
                           tensor_from(result.neighbors, indices.scalar_type()),
                           tensor_from(result.edge_ids, indptr.scalar_type()));
  });
}

std::vector<at::Tensor> reference_sample_blocks(const at::Tensor& indptr, const at::Tensor& indices,
                                                const at::Tensor& seeds, at::IntArrayRef fanouts,
                                                std::int64_t seed, bool replace,
                                                const std::optional<at::Tensor>& weights,
                                                std::int64_t threads)
{
  check_csr_tensors(indptr, indices, seeds, weights, false);
  std::vector<int> const fans = checked_fanouts(fanouts);
  int const workers = checked_threads(threads);
  at::Tensor const ids = seeds.contiguous();
  return on_host_csr(indptr, indices, weights, [&](const auto& csr) {
    using I = typename std::decay_t<decltype(csr)>::index_type;
    auto const request = make_request(seed, replace, weights.has_value(), true);
    auto blocks = request.visit([&](auto sampler) {
      return gnndirect::host::sample_blocks_reference(csr, data_as<const I>(ids), ids.size(0), fans,
                                                      sampler, workers);
    });
    return flat_blocks(blocks, indices.scalar_type(), indptr.scalar_type(),
                       [](const auto& values, at::ScalarType dtype) { return tensor_from(values, dtype); });
  });
}

}  // namespace
}  // namespace gnndirect_torch

TORCH_LIBRARY_FRAGMENT(gnndirect, m)
{
  m.def("_reference_sample_neighbors(Tensor indptr, Tensor indices, Tensor seeds, int fanout, "
        "int layer=0, int seed=0, bool replace=False, Tensor? weights=None, int threads=0) "
        "-> (Tensor, Tensor, Tensor)");
  m.def("_reference_sample_blocks(Tensor indptr, Tensor indices, Tensor seeds, int[] fanouts, "
        "int seed=0, bool replace=False, Tensor? weights=None, int threads=0) -> Tensor[]");
}

TORCH_LIBRARY_IMPL(gnndirect, CPU, m)
{
  m.impl("_reference_sample_neighbors", &gnndirect_torch::reference_sample_neighbors);
  m.impl("_reference_sample_blocks", &gnndirect_torch::reference_sample_blocks);
}
