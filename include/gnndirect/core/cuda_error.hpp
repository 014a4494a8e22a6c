#pragma once
/// @file cuda_error.hpp
/// @brief CUDA failures as exceptions: the GNNDIRECT_CUDA_TRY macros, which throw cuda_error or
/// no_device_error (cuda_exceptions.hpp, included). Host-compilable; needs the CUDA toolkit's
/// cuda_runtime_api.h.

#include <gnndirect/core/cuda_exceptions.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/core/cuda_error.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

/// Evaluates a CUDA runtime call; on failure throws cuda_error (no_device_error when there is no
/// device) naming the call, its error and file:line.
#define GNNDIRECT_CUDA_TRY(call)                                                        \
  do {                                                                                  \
    cudaError_t const gnndirect_status_ = (call);                                       \
    if (gnndirect_status_ != cudaSuccess) {                                             \
      ::gnndirect::detail::throw_cuda_error(__FILE__, __LINE__, #call, gnndirect_status_); \
    }                                                                                   \
  } while (0)

/// Like GNNDIRECT_CUDA_TRY but never throws: reports to stderr. For destructors and cleanup.
#define GNNDIRECT_CUDA_TRY_NOTHROW(call)                                                     \
  do {                                                                                       \
    cudaError_t const gnndirect_status_ = (call);                                            \
    if (gnndirect_status_ != cudaSuccess) {                                                  \
      (void)cudaGetLastError();                                                              \
      std::fprintf(stderr, "gnndirect: %s:%d: CUDA call `%s` failed in cleanup: %s\n", __FILE__, \
                   __LINE__, #call, cudaGetErrorName(gnndirect_status_));                    \
    }                                                                                        \
  } while (0)
