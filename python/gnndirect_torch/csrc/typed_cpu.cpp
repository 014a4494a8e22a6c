/// @file typed_cpu.cpp
/// @brief Schemas of the typed (heterogeneous) ops and their CPU kernels.
///
/// Ops (namespace torch.ops.gnndirect):
/// - sample_typed_blocks(indptrs, indices, src_types, dst_types, num_nodes, seed_type, seeds,
///   fanouts, max_degrees, seed=0, replace=False, check=True, threads=0) -> Tensor[]: typed
///   multi-layer sampling (docs/heterogeneous.md "Semantics"); one CSC per relation (indptr
///   over its dst type's nodes, indices = src-type ids), fanouts flat [relation][layer] (-1 all,
///   0 none), max_degrees per relation (-1: computed where a fanout -1 needs it). Output: see
///   typed_common.hpp (counts, node list per type, offsets/indices/edge_ids per layer x
///   relation). The CPU kernel is the host reference host::sample_typed_blocks_reference (the
///   library has no faster typed CPU sampler), which the CUDA kernel (typed_cuda.cpp) equals
///   bit for bit.
/// - sample_typed_blocks_multi(indptrs, indices, src_types, dst_types, num_nodes, seeds, fanouts,
///   max_degrees, seed=0, replace=False, check=True, threads=0) -> Tensor[]: the same with seeds
///   per node type (one tensor per type, empty where none: link seeds of two endpoint types,
///   pyg-lib's seed dict); every type's list starts with its seeds, its frontier at layer 0
///   (the library's typed_seeds_view form). The same flat output.
/// - validate_typed(indptrs, indices, src_types, dst_types, num_nodes) -> (): validate_typed on
///   CPU tensors (validate()'s rules per relation, neighbour ids bounded by the src type).

#include "common.hpp"
#include "typed_common.hpp"

#include <gnndirect/algorithms/validate_typed.hpp>
#include <gnndirect/reference/sample_typed_reference.hpp>

#include <torch/library.h>

#include <cstring>
#include <vector>

namespace gnndirect_torch {
namespace {

/// @throws c10::ValueError unless every tensor is a CPU tensor.
void require_cpu(const typed_args& a, const char* op)
{
  for (std::size_t r = 0; r < a.indptrs.size(); ++r) {
    TORCH_CHECK_VALUE(!a.indptrs[r].is_cuda() && !a.indices[r].is_cuda(), "gnndirect: ", op, ": relation ", r,
                      " has CUDA tensors; the CPU kernel needs CPU tensors (pass CUDA seeds for the GPU)");
  }
}

/// The CPU kernel over checked arguments (either op): the host reference with a.seeds per type.
std::vector<at::Tensor> sample_typed_blocks_cpu_args(const typed_args& a, std::int64_t seed, bool replace,
                                                     std::int64_t threads)
{
  require_cpu(a, "sample_typed_blocks");
  int const workers = checked_threads(threads);
  at::ScalarType const index_dtype = a.indices[0].scalar_type();
  at::ScalarType const offset_dtype = a.indptrs[0].scalar_type();
  return translate_errors([&] {
    return dispatch_csr(a.indptrs[0], a.indices[0], [&](auto offset_tag, auto index_tag) {
      using O = decltype(offset_tag);
      using I = decltype(index_tag);
      auto const graph = typed_view<O, I>(a, -1);
      // The reference checks the seeds (and the sampled ids) always: `check` has nothing to skip.
      // The one-type op's seeds sit at its seed type: the one-type reference is this form.
      auto const blocks = visit_typed_sampler(seed, replace, [&](auto sampler) {
        return gnndirect::host::sample_typed_blocks_reference(graph, a.seeds_view<I>(), a.fanouts, sampler, workers);
      });
      std::vector<std::vector<std::int64_t>> counts;
      for (auto const& t : blocks.node_types) { counts.push_back(t.counts); }
      std::vector<at::Tensor> out{typed_counts_tensor(counts)};
      for (auto const& t : blocks.node_types) { out.push_back(typed_tensor_from(t.nodes, index_dtype)); }
      for (auto const& layer : blocks.layers) {
        for (auto const& b : layer) {
          out.push_back(typed_tensor_from(b.offsets, at::kLong));
          out.push_back(typed_tensor_from(b.indices, index_dtype));
          out.push_back(typed_tensor_from(b.edge_ids, offset_dtype));
        }
      }
      return out;
    });
  });
}

std::vector<at::Tensor> sample_typed_blocks_cpu(const std::vector<at::Tensor>& indptrs,
                                                const std::vector<at::Tensor>& indices, at::IntArrayRef src_types,
                                                at::IntArrayRef dst_types, at::IntArrayRef num_nodes,
                                                std::int64_t seed_type, const at::Tensor& seeds,
                                                at::IntArrayRef fanouts, at::IntArrayRef max_degrees,
                                                std::int64_t seed, bool replace, bool /*check*/, std::int64_t threads)
{
  typed_args const a = check_typed_args(indptrs, indices, src_types, dst_types, num_nodes, seed_type, seeds,
                                        fanouts, max_degrees, false);
  return sample_typed_blocks_cpu_args(a, seed, replace, threads);
}

std::vector<at::Tensor> sample_typed_blocks_multi_cpu(const std::vector<at::Tensor>& indptrs,
                                                      const std::vector<at::Tensor>& indices,
                                                      at::IntArrayRef src_types, at::IntArrayRef dst_types,
                                                      at::IntArrayRef num_nodes, const std::vector<at::Tensor>& seeds,
                                                      at::IntArrayRef fanouts, at::IntArrayRef max_degrees,
                                                      std::int64_t seed, bool replace, bool /*check*/,
                                                      std::int64_t threads)
{
  typed_args const a = check_typed_args_multi(indptrs, indices, src_types, dst_types, num_nodes, seeds, fanouts,
                                              max_degrees, false);
  return sample_typed_blocks_cpu_args(a, seed, replace, threads);
}

void validate_typed_cpu(const std::vector<at::Tensor>& indptrs, const std::vector<at::Tensor>& indices,
                        at::IntArrayRef src_types, at::IntArrayRef dst_types, at::IntArrayRef num_nodes)
{
  typed_args a = check_typed_graph(indptrs, indices, src_types, dst_types, num_nodes);
  require_cpu(a, "validate_typed");
  a.max_degrees.assign(a.indptrs.size(), -1);
  translate_errors([&] {
    dispatch_csr(a.indptrs[0], a.indices[0], [&](auto offset_tag, auto index_tag) {
      gnndirect::validate_typed(typed_view<decltype(offset_tag), decltype(index_tag)>(a, -1));
    });
  });
}

}  // namespace
}  // namespace gnndirect_torch

TORCH_LIBRARY_FRAGMENT(gnndirect, m)
{
  m.def("sample_typed_blocks(Tensor[] indptrs, Tensor[] indices, int[] src_types, int[] dst_types, "
        "int[] num_nodes, int seed_type, Tensor seeds, int[] fanouts, int[] max_degrees, int seed=0, "
        "bool replace=False, bool check=True, int threads=0) -> Tensor[]");
  m.def("sample_typed_blocks_multi(Tensor[] indptrs, Tensor[] indices, int[] src_types, int[] dst_types, "
        "int[] num_nodes, Tensor[] seeds, int[] fanouts, int[] max_degrees, int seed=0, "
        "bool replace=False, bool check=True, int threads=0) -> Tensor[]");
  m.def("validate_typed(Tensor[] indptrs, Tensor[] indices, int[] src_types, int[] dst_types, "
        "int[] num_nodes) -> ()");
}

TORCH_LIBRARY_IMPL(gnndirect, CPU, m)
{
  m.impl("sample_typed_blocks", &gnndirect_torch::sample_typed_blocks_cpu);
  m.impl("sample_typed_blocks_multi", &gnndirect_torch::sample_typed_blocks_multi_cpu);
  m.impl("validate_typed", &gnndirect_torch::validate_typed_cpu);
}
