#pragma once
// Test support: how many times each CUDA runtime allocation function was called in this process
// (see allocation_interposer.cpp, which defines them and forwards to libcudart).

namespace gnndirect::test {

/// The interposed allocation functions.
enum class raw_call : int {
  malloc,            ///< cudaMalloc
  malloc_async,      ///< cudaMallocAsync (the default device resource)
  malloc_from_pool,  ///< cudaMallocFromPoolAsync (the pipeline's own pool)
  malloc_managed,    ///< cudaMallocManaged
  host_alloc,        ///< cudaHostAlloc (the default host resource)
  malloc_host,       ///< cudaMallocHost
  malloc_pitch,      ///< cudaMallocPitch
  host_register,     ///< cudaHostRegister
};
inline constexpr int raw_call_count = 8;

/// Call counts, indexed by raw_call.
struct raw_counts {
  long calls[raw_call_count]{};
  long operator[](raw_call c) const noexcept { return calls[static_cast<int>(c)]; }
  raw_counts operator-(const raw_counts& before) const noexcept
  {
    raw_counts d;
    for (int i = 0; i < raw_call_count; ++i) { d.calls[i] = calls[i] - before.calls[i]; }
    return d;
  }
};

/// The counts so far (thread-safe).
raw_counts raw_allocation_counts() noexcept;

}  // namespace gnndirect::test
