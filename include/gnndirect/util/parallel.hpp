#pragma once
/// @file parallel.hpp
/// @brief Minimal fork-join helpers for the host reference and for filling host tables.
///
/// Populating managed_host memory from one CPU thread is slow (16 GiB in 12.4 s, docs/design.md §3),
/// so owners fill and copy with several cores. How many: gnndirect::set_host_threads(n), else the
/// environment variable GNNDIRECT_NUM_THREADS, else OMP_NUM_THREADS (what PyTorch and most
/// frameworks follow; the PyTorch extension passes torch.get_num_threads() through
/// set_host_threads), else the CPUs this process may run on (its affinity mask, so a container
/// limited by cpuset is not oversubscribed), at least 1.
///
/// Threads are started per call and joined before it returns -- no persistent pool -- because
/// processes that use the library fork (PyTorch DataLoader workers): a pool's threads do not
/// survive fork, and a child that found a pool's state without its threads would hang. If the
/// system refuses a thread (pids or process limit), the call joins the threads it started and
/// throws gnndirect::error; it never terminates the process.

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/util/parallel.hpp>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Sets the number of threads the host helpers use (n >= 1), or restores the automatic choice
/// (n <= 0: GNNDIRECT_NUM_THREADS, OMP_NUM_THREADS, then the available CPUs). Process-wide,
/// thread-safe; affects calls that start afterwards.
/// @param n thread count, or <= 0 for automatic
inline void set_host_threads(int n) noexcept { detail::host_threads_setting().store(n > 0 ? n : 0); }

/// Number of threads the host helpers use now (see set_host_threads). Never throws.
/// @return the count, at least 1
inline int host_threads() noexcept;

namespace host {

/// @return number of worker threads the host helpers use by default (gnndirect::host_threads())
inline int default_thread_count() noexcept { return host_threads(); }

/// Calls body(begin, end, worker) on `threads` contiguous slices of [0, n); the calling thread
/// runs slice 0 itself, so at most threads - 1 threads are started. Blocks until all finish and
/// rethrows the first exception a worker threw. Runs inline when n or threads is 1.
/// @throws gnndirect::error when the system refuses to start a thread (after joining the ones
/// that started; slices may then be partly done), or what `body` threw.
/// @tparam Body callable as body(std::int64_t begin, std::int64_t end, int worker)
/// @param n range size  @param body the slice body  @param threads slice count (at most n)
template <class Body>
void parallel_for_ranges(std::int64_t n, Body&& body, int threads = default_thread_count());

/// memcpy with host_threads() threads (for populating host-resident tables). Blocks until done.
/// @param dst, src, bytes as memcpy's  @param threads copying threads
/// @throws as parallel_for_ranges.
inline void parallel_memcpy(void* dst, const void* src, std::size_t bytes,
                            int threads = default_thread_count());

}  // namespace host
GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/util/parallel.inl>
