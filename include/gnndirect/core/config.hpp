#pragma once
/// @file config.hpp
/// @brief Compiler portability macros shared by every header (host-compilable, no CUDA), and the
/// versioned namespace macros of version.hpp.

#include <gnndirect/core/version.hpp>

/// Marks functions usable from host and device code; plain inline for a host-only compiler.
#if defined(__CUDACC__)
#define GNNDIRECT_HOST_DEVICE __host__ __device__
/// Marks device-only functions; empty for a host-only compiler (which never sees their callers).
#define GNNDIRECT_DEVICE __device__
#else
#define GNNDIRECT_HOST_DEVICE
#define GNNDIRECT_DEVICE
#endif

/// Declares a kernel with hidden visibility, so that two shared libraries that both embed
/// gnndirect (e.g. a PyTorch extension and a DGL backend) never resolve to each other's kernels.
#define GNNDIRECT_KERNEL __global__ __attribute__((visibility("hidden")))

/// Kernel templates that a caller instantiates with its own types (row sources, samplers) are
/// wrapped in these: a type from an anonymous namespace gives the instance internal linkage, where
/// the hidden-visibility attribute is meaningless and nvcc would warn (#1407-D) in the user's build.
#if defined(__CUDACC__) && !defined(__clang__)
#define GNNDIRECT_USER_KERNELS_BEGIN _Pragma("nv_diagnostic push") _Pragma("nv_diag_suppress 1407")
/// Closes what GNNDIRECT_USER_KERNELS_BEGIN opened.
#define GNNDIRECT_USER_KERNELS_END _Pragma("nv_diagnostic pop")
#else
#define GNNDIRECT_USER_KERNELS_BEGIN
#define GNNDIRECT_USER_KERNELS_END
#endif

/// Forces inlining of the small device helpers that sit on the per-row hot path.
#if defined(__CUDACC__)
#define GNNDIRECT_FORCEINLINE __forceinline__
#else
#define GNNDIRECT_FORCEINLINE inline
#endif
