#pragma once
/// @file allocation.hpp
/// @brief Internals of owners/allocation.hpp: the capacity checks before an allocation and its
/// failure messages (not part of the API).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/owners/host_capacity.hpp>
#include <gnndirect/owners/host_memory.hpp>
#include <gnndirect/util/parallel.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Refuses host-resident requests larger than the host can ever hold, then larger than it can
/// give now (see host_memory.hpp): committing them would end in the OOM killer, not an error.
inline void check_host_capacity(std::size_t bytes, memory_kind kind)
{
  std::uint64_t const limit = host_memory_limit_bytes();
  if (limit != 0 && bytes > limit) {
    throw allocation_error(__FILE__, __LINE__, bytes, kind,
                           "exceeds the host's memory (" + std::to_string(limit) +
                             " bytes); set GNNDIRECT_HOST_MEMORY_LIMIT if this probe is wrong; "
                             "zero-copy alternatives: adopt the memory in place (registered) or "
                             "fill the placement directly (from_npy, gnndirect_torch.empty)");
  }
  refuse_beyond_host_available(bytes, kind);
}

/// Bytes committed between two availability checks by commit_host_pages.
inline constexpr std::size_t commit_chunk_bytes = std::size_t{1} << 30;

/// Commits host pages of [data, data + bytes) that the kernel would otherwise commit lazily
/// (managed memory: on first touch) by writing one byte per 4 KiB page with all cores, one
/// `commit_chunk_bytes` chunk at a time, checking before each chunk that the host can still give
/// the rest. Memory taken meanwhile by someone else then ends in an allocation_error (the caller
/// frees the allocation), not in the OOM killer. Contents stay unspecified. Synchronous.
/// @throws allocation_error as refuse_beyond_host_available.
inline void commit_host_pages(void* data, std::size_t bytes, memory_kind kind)
{
  constexpr std::size_t page = 4096;
  auto* const base = static_cast<volatile unsigned char*>(data);
  for (std::size_t done = 0; done < bytes; done += commit_chunk_bytes) {
    std::size_t const chunk = std::min(commit_chunk_bytes, bytes - done);
    if (done != 0) { refuse_beyond_host_available(bytes - done, kind); }
    auto const pages = static_cast<std::int64_t>((chunk + page - 1) / page);
    host::parallel_for_ranges(pages, [&](std::int64_t begin, std::int64_t end, int) {
      for (std::int64_t p = begin; p < end; ++p) { base[done + static_cast<std::size_t>(p) * page] = 0; }
    });
  }
}

/// Refuses requests larger than the device has free. For managed memory this is a safety rule:
/// on shared machines, asking the driver for more managed memory than the GPU has free can hang
/// the card, so the library never forwards such a request.
inline void check_device_free(std::size_t bytes, memory_kind kind)
{
  device_memory_info const info = device_memory();
  if (bytes > info.free_bytes) {
    std::string const hint = kind == memory_kind::managed_host
                               ? "managed memory is never requested beyond the GPU's free memory "
                                 "(safety rule for shared GPUs); use pinned placement instead"
                               : "reduce the size or use a host-resident placement";
    throw allocation_error(__FILE__, __LINE__, bytes, kind,
                           "exceeds the device's free memory (" + std::to_string(info.free_bytes) +
                             " bytes); " + hint);
  }
}

/// Throws allocation_error for a failed allocation call, clearing the non-sticky error first.
[[noreturn]] inline void throw_allocation_failure(const char* file, int line, std::size_t bytes,
                                                  memory_kind kind, const char* call,
                                                  cudaError_t code, const char* hint)
{
  (void)cudaGetLastError();
  if (is_no_device_code(code)) { throw no_device_error(file, line, call, code); }
  throw allocation_error(file, line, bytes, kind,
                         std::string(call) + " returned " + cudaGetErrorName(code) + "; " + hint);
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
