#pragma once
/// @file config.hpp
/// @brief Compiler portability macros shared by every header (host-compilable, no CUDA), and the
/// versioned namespace macros of version.hpp.

#include <gnndirect/version.hpp>

/// Marks functions usable from host and device code; plain inline for a host-only compiler.
#if defined(__CUDACC__)
#define GNNDIRECT_HOST_DEVICE __host__ __device__
#define GNNDIRECT_DEVICE __device__
#else
#define GNNDIRECT_HOST_DEVICE
#define GNNDIRECT_DEVICE
#endif

/// Declares a kernel with hidden visibility, so that two shared libraries that both embed
/// gnndirect (e.g. a PyTorch extension and a DGL backend) never resolve to each other's kernels.
#define GNNDIRECT_KERNEL __global__ __attribute__((visibility("hidden")))

/// Forces inlining of the small device helpers that sit on the per-row hot path.
#if defined(__CUDACC__)
#define GNNDIRECT_FORCEINLINE __forceinline__
#else
#define GNNDIRECT_FORCEINLINE inline
#endif
