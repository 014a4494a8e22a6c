#pragma once
// Set-up shared by the sampling benchmarks (bench_sample, bench_temporal): sizes from the
// environment, host arrays placed in a memory kind, the placements of indptr/indices they sweep,
// and a CSR view pointed at placed arrays.
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/util/parallel.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace gnndirect::bench {

/// The integer in environment variable `name`, or `fallback` when it is unset or empty.
inline std::int64_t env_int(const char* name, std::int64_t fallback)
{
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::atoll(value) : fallback;
}

/// A copy of `host` in a new buffer of `kind` (on all cores for host-resident kinds; a device copy
/// has landed before any stream reads it). @throws gnndirect::cuda_error on a CUDA failure
template <class T>
gnndirect::buffer<T> place(const std::vector<T>& host, memory_kind kind)
{
  gnndirect::buffer<T> b(host.size(), kind);
  if (kind == memory_kind::device) {
    GNNDIRECT_CUDA_TRY(cudaMemcpy(b.data(), host.data(), b.bytes(), cudaMemcpyHostToDevice));
    GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
  } else {
    gnndirect::host::parallel_memcpy(b.host_data(), host.data(), b.bytes());
  }
  return b;
}

/// Where a benchmark's graph arrays live: indptr and indices (with what lies beside them).
struct placement {
  memory_kind indptr;   ///< kind of the indptr array
  memory_kind indices;  ///< kind of the indices array (and edge weights or times)
  /// "<indptr kind>/<indices kind>": the benchmark name's placement part.
  std::string name() const
  {
    return std::string(gnndirect::to_string(indptr)) + "/" + std::string(gnndirect::to_string(indices));
  }
};

/// `view` with its indptr and indices pointed at placed copies in the kinds of `where`.
template <class Offset, class Index>
gnndirect::csr_view<Offset, Index> placed_view(gnndirect::csr_view<Offset, Index> view, const Offset* indptr,
                                               const Index* indices, placement where)
{
  view.indptr = indptr;
  view.indices = indices;
  view.indptr_kind = where.indptr;
  view.indices_kind = where.indices;
  return view;
}

/// Whether a CUDA device is present; prints "SKIPPED: <program> needs a CUDA device" when not.
inline bool has_device(const char* program)
{
  if (gnndirect::device_count() > 0) { return true; }
  std::printf("SKIPPED: %s needs a CUDA device\n", program);
  return false;
}

}  // namespace gnndirect::bench
