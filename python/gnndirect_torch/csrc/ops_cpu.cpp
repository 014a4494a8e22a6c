/// @file ops_cpu.cpp
/// @brief Schemas of the gnndirect custom ops (TORCH_LIBRARY) and their CPU kernels: the fast
/// all-core host/ code on every op (host::gather_rows, host::scatter_rows, host::cpu_sampler),
/// never the test oracle (the host reference is reached only through the private
/// _reference_* ops of ops_reference.cpp, which gnndirect_torch.testing wraps). The CPU samplers
/// draw from the same distributions as the GPU's with other random numbers.
///
/// Ops (namespace torch.ops.gnndirect):
/// - gather(table, index, cache=None, slot_of=None, check=True) -> Tensor: out[i] = table[index[i]]
/// - scatter_rows(table!, index, src, check=True) -> (): table[index[i]] = src[i] (in place)
/// - sample_neighbors(indptr, indices, seeds, fanout, layer=0, seed=0, replace=False,
///   weights=None, check=True, threads=0) -> (offsets, neighbors, edge_ids)
/// - sample_blocks(indptr, indices, seeds, fanouts, seed=0, replace=False, weights=None,
///   check=True, threads=0) -> Tensor[] (4 per layer: src_nodes, offsets, indices, edge_ids)
/// The CUDA kernels are registered in the .cu files; fake (meta) kernels in Python.

#include "common.hpp"
#include "sample_common.hpp"

#include <gnndirect/algorithms/validate.hpp>
#include <gnndirect/host/cpu_gather.hpp>
#include <gnndirect/host/cpu_sampler.hpp>
#include <gnndirect/core/table_view.hpp>

#include <ATen/Parallel.h>
#include <torch/library.h>

#include <unistd.h>

#include <cstring>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

namespace gnndirect_torch {
namespace {

/// The calling thread's fast sampler with `threads` workers (defined below; its worker pool also
/// runs the CPU gather).
gnndirect::host::cpu_sampler& fast_sampler(int threads);

/// CPU gather: the fast host path (host::gather_rows on this thread's worker pool, rows copied
/// with memcpy by all cores), not the reference: gathering CPU tensors is a production path.
/// The tier arguments are ignored on the CPU (a cache holds copies of the same rows).
at::Tensor gather_cpu(const at::Tensor& table, const at::Tensor& index,
                      const std::optional<at::Tensor>& /*cache*/,
                      const std::optional<at::Tensor>& /*slot_of*/, bool /*check*/)
{
  check_table_tensor(table, "table");
  check_index_tensor(index, "index");
  at::Tensor const idx = index.contiguous();
  at::Tensor out = at::empty({idx.size(0), table.size(1)}, table.options());
  if (idx.numel() == 0 || table.size(1) == 0) { return out; }
  translate_errors([&] {
    dispatch_element_size(table.element_size(), [&](auto element) {
      using T = decltype(element);
      gnndirect::table_view<const T> src(data_as<const T>(table), table.size(0), table.size(1),
                                         table.stride(0), gnndirect::memory_kind::registered);
      dispatch_index_type(idx.scalar_type(), "index", [&](auto index_tag) {
        using I = decltype(index_tag);
        gnndirect::host::gather_rows(fast_sampler(gnndirect::host::default_thread_count()).pool(), src,
                                     data_as<const I>(idx), idx.size(0), data_as<T>(out));
      });
    });
  });
  return out;
}

/// CPU scatter: host::scatter_rows on this thread's worker pool (all cores; the last duplicate
/// wins, whole row; every index is checked before any row is written).
void scatter_rows_cpu(const at::Tensor& table, const at::Tensor& index, const at::Tensor& src,
                      bool /*check*/)
{
  check_table_tensor(table, "table");
  check_index_tensor(index, "index");
  check_table_tensor(src, "src");
  TORCH_CHECK_TYPE(src.scalar_type() == table.scalar_type(), "gnndirect: src dtype ",
                   src.scalar_type(), " differs from the table's ", table.scalar_type());
  TORCH_CHECK_VALUE(src.size(0) == index.size(0) && src.size(1) == table.size(1),
                    "gnndirect: src must be ", index.size(0), " x ", table.size(1), ", got ",
                    src.sizes());
  at::Tensor const idx = index.contiguous();
  at::Tensor const rows = src.contiguous();
  if (idx.numel() == 0 || table.size(1) == 0) { return; }
  translate_errors([&] {
    dispatch_element_size(table.element_size(), [&](auto element) {
      using T = decltype(element);
      gnndirect::table_view<T> to(data_as<T>(table), table.size(0), table.size(1), table.stride(0),
                                  gnndirect::memory_kind::registered);
      dispatch_index_type(idx.scalar_type(), "index", [&](auto index_tag) {
        using I = decltype(index_tag);
        gnndirect::host::scatter_rows(fast_sampler(gnndirect::host::default_thread_count()).pool(),
                                      data_as<const T>(rows), data_as<const I>(idx), idx.size(0), to);
      });
    });
  });
}

/// The calling thread's fast sampler with `threads` workers, created on first use and kept (its
/// threads and relabelling marker are reused by every later call of this thread). Why per
/// thread: cpu_sampler serialises its calls, and a loader thread should not wait for another.
/// Why the process id: a DataLoader worker forked from a process that used the sampler inherits
/// the object but not its threads; using it would hang, and destroying it would join threads
/// that do not exist. Such an inherited sampler is dropped without destruction (leaked once per
/// fork) and a new one is made.
gnndirect::host::cpu_sampler& fast_sampler(int threads)
{
  struct slot {
    pid_t pid{0};
    std::unique_ptr<gnndirect::host::cpu_sampler> sampler;
  };
  thread_local slot mine;
  pid_t const pid = ::getpid();
  if (mine.sampler && mine.pid != pid) {
    static_cast<void>(mine.sampler.release());  // inherited through fork: its threads are gone
  }
  if (!mine.sampler || mine.sampler->threads() != threads) {
    mine.sampler.reset();  // joins this process's old threads first
    mine.sampler = std::make_unique<gnndirect::host::cpu_sampler>(threads);
    mine.pid = pid;
  }
  return *mine.sampler;
}

/// A tensor's memory as it was when last validated: its storage (held weakly, so the storage
/// object cannot be freed and its address reused by another tensor while the key lives), the
/// address and element count of the view, and torch's version counter (bumped by every in-place
/// write), so that a new or changed tensor is checked again.
struct tensor_key {
  std::optional<c10::weak_intrusive_ptr<c10::StorageImpl>> storage;
  const void* data{nullptr};
  std::int64_t numel{-1};
  std::int64_t version{-1};

  static tensor_key of(const at::Tensor& t)
  {
    return {t.storage().getWeakStorageImpl(), t.data_ptr(), t.numel(), t._version()};
  }
  /// Same live storage, view and version.
  bool same(const at::Tensor& t) const
  {
    return storage.has_value() && !storage->expired() &&
           storage->_unsafe_get_target() == t.storage().unsafeGetStorageImpl() &&
           data == t.data_ptr() && numel == t.numel() && version == t._version();
  }
};

/// Full CSR check (gnndirect::validate, all cores: indptr, ids, and weights when given) of a graph
/// this thread has not checked in its current version. The fast sampler trusts indptr to be
/// non-decreasing and indices to be in range for speed; one O(V + E) pass per graph (not per
/// batch) makes it safe on bad input. The weights are part of the key: the same lists with other
/// weights are checked again.
/// @throws gnndirect::corrupt_graph (invalid_argument) naming the array, position and value.
template <class Offset, class Index>
void validate_once(const gnndirect::csr_view<Offset, Index>& csr, const at::Tensor& indptr,
                   const at::Tensor& indices, const std::optional<at::Tensor>& weights)
{
  thread_local tensor_key checked_indptr;
  thread_local tensor_key checked_indices;
  thread_local tensor_key checked_weights;  // empty key: checked without weights
  bool const same_weights = weights.has_value() ? checked_weights.same(*weights)
                                                : !checked_weights.storage.has_value();
  if (checked_indptr.same(indptr) && checked_indices.same(indices) && same_weights) { return; }
  checked_indptr = {};  // a failed check must not leave a half-updated key behind
  gnndirect::validate(csr);
  checked_indptr = tensor_key::of(indptr);
  checked_indices = tensor_key::of(indices);
  checked_weights = weights.has_value() ? tensor_key::of(*weights) : tensor_key{};
}

/// A CPU tensor over `values`' memory, without a copy: the tensor's deleter keeps `owner` (the
/// blocks the vector belongs to) alive, so the memory lives as long as any tensor over it.
template <class Owner, class T, class Alloc>
at::Tensor adopt_tensor(const std::shared_ptr<Owner>& owner, std::vector<T, Alloc>& values,
                        at::ScalarType dtype)
{
  TORCH_INTERNAL_ASSERT(c10::CppTypeToScalarType<T>::value == dtype, "gnndirect: output type mismatch");
  auto const n = static_cast<std::int64_t>(values.size());
  if (n == 0) { return at::empty({0}, at::dtype(dtype)); }
  return at::from_blob(values.data(), {n}, [owner](void*) {}, at::dtype(dtype));
}

/// CPU sample_neighbors: host::cpu_sampler (all cores); the outputs own the sampler's arrays.
std::tuple<at::Tensor, at::Tensor, at::Tensor> sample_neighbors_cpu(
  const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& seeds, std::int64_t fanout,
  std::int64_t layer, std::int64_t seed, bool replace, const std::optional<at::Tensor>& weights,
  bool check, std::int64_t threads)
{
  check_csr_tensors(indptr, indices, seeds, weights, false);
  check_fanout(fanout);
  int const workers = checked_threads(threads);
  at::Tensor const ids = seeds.contiguous();
  return on_host_csr(indptr, indices, weights, [&](const auto& csr) {
    using O = typename std::decay_t<decltype(csr)>::offset_type;
    using I = typename std::decay_t<decltype(csr)>::index_type;
    if (check) { validate_once(csr, indptr, indices, weights); }
    auto const request = make_request(seed, replace, weights.has_value(), check);
    auto result = std::make_shared<gnndirect::host::cpu_neighbors<O, I>>();
    auto& sampler = fast_sampler(workers);
    request.visit([&](auto draw) {
      sampler.sample_neighbors(csr, data_as<const I>(ids), ids.size(0), static_cast<int>(fanout),
                               static_cast<int>(layer), draw, *result);
    });
    return std::make_tuple(adopt_tensor(result, result->offsets, at::kLong),
                           adopt_tensor(result, result->neighbors, indices.scalar_type()),
                           adopt_tensor(result, result->edge_ids, indptr.scalar_type()));
  });
}

/// CPU sample_blocks: host::cpu_sampler (all cores, relabelled). Each batch is sampled into
/// fresh blocks that the output tensors then own: the sampled arrays are not copied again (the
/// CPU-centric baseline should not pay for a copy that a fast CPU loader would not make).
std::vector<at::Tensor> sample_blocks_cpu(const at::Tensor& indptr, const at::Tensor& indices,
                                          const at::Tensor& seeds, at::IntArrayRef fanouts,
                                          std::int64_t seed, bool replace,
                                          const std::optional<at::Tensor>& weights, bool check,
                                          std::int64_t threads)
{
  check_csr_tensors(indptr, indices, seeds, weights, false);
  std::vector<int> const fans = checked_fanouts(fanouts);
  int const workers = checked_threads(threads);
  at::Tensor const ids = seeds.contiguous();
  return on_host_csr(indptr, indices, weights, [&](const auto& csr) {
    using O = typename std::decay_t<decltype(csr)>::offset_type;
    using I = typename std::decay_t<decltype(csr)>::index_type;
    if (check) { validate_once(csr, indptr, indices, weights); }
    auto const request = make_request(seed, replace, weights.has_value(), check);
    auto blocks = std::make_shared<gnndirect::host::cpu_blocks<O, I>>();
    auto& sampler = fast_sampler(workers);
    request.visit([&](auto draw) {
      sampler.sample_blocks(csr, data_as<const I>(ids), ids.size(0), fans, draw, *blocks);
    });
    return flat_blocks(*blocks, indices.scalar_type(), indptr.scalar_type(),
                       [&](auto& values, at::ScalarType dtype) { return adopt_tensor(blocks, values, dtype); });
  });
}

}  // namespace
}  // namespace gnndirect_torch

TORCH_LIBRARY(gnndirect, m)
{
  m.def("gather(Tensor table, Tensor index, Tensor? cache=None, Tensor? slot_of=None, "
        "bool check=True) -> Tensor");
  m.def("scatter_rows(Tensor(a!) table, Tensor index, Tensor src, bool check=True) -> ()");
  m.def("sample_neighbors(Tensor indptr, Tensor indices, Tensor seeds, int fanout, int layer=0, "
        "int seed=0, bool replace=False, Tensor? weights=None, bool check=True, int threads=0) "
        "-> (Tensor, Tensor, Tensor)");
  m.def("sample_blocks(Tensor indptr, Tensor indices, Tensor seeds, int[] fanouts, int seed=0, "
        "bool replace=False, Tensor? weights=None, bool check=True, int threads=0) -> Tensor[]");
}

TORCH_LIBRARY_IMPL(gnndirect, CPU, m)
{
  m.impl("gather", &gnndirect_torch::gather_cpu);
  m.impl("scatter_rows", &gnndirect_torch::scatter_rows_cpu);
  m.impl("sample_neighbors", &gnndirect_torch::sample_neighbors_cpu);
  m.impl("sample_blocks", &gnndirect_torch::sample_blocks_cpu);
}
