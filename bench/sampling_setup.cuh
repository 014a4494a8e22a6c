#pragma once
// Set-up shared by the sampling benchmarks (bench_sample, bench_temporal): sizes from the
// environment, host arrays placed in a memory kind, the placements of indptr/indices they sweep,
// and a CSR view pointed at placed arrays.
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/util/parallel.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
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
/// Writes a 1-D integer array as int64 .npy (format 1.0, little endian), for the pyg-lib scripts.
/// @param path the file  @param values the array (widened to int64)
/// @throws gnndirect::invalid_argument when the file cannot be written.
template <class T>
void write_npy(const std::string& path, const std::vector<T>& values)
{
  std::string header = "{'descr': '<i8', 'fortran_order': False, 'shape': (" + std::to_string(values.size()) + ",), }";
  while ((10 + header.size() + 1) % 64 != 0) { header += ' '; }
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  auto const length = static_cast<std::uint16_t>(header.size());
  out.put(static_cast<char>(length & 0xFF));
  out.put(static_cast<char>(length >> 8));
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  for (T const v : values) {
    auto const wide = static_cast<std::int64_t>(v);
    out.write(reinterpret_cast<const char*>(&wide), 8);
  }
  GNNDIRECT_EXPECTS(out.good(), "cannot write " + path);
}

inline bool has_device(const char* program)
{
  if (gnndirect::device_count() > 0) { return true; }
  std::printf("SKIPPED: %s needs a CUDA device\n", program);
  return false;
}

}  // namespace gnndirect::bench
