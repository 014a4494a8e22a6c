#pragma once
// Definitions of core/cuda_exceptions.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

inline cuda_error::cuda_error(const char* file, int line, const char* call, cudaError_t code)
  : error(file, line,
          std::string("CUDA call `") + call + "` failed: " + cudaGetErrorName(code) + " (" +
            cudaGetErrorString(code) + ")"),
    code_(code)
{
}

inline no_device_error::no_device_error(const char* file, int line, const char* call, cudaError_t code)
  : cuda_error(file, line, call, code)
{
}

GNNDIRECT_NAMESPACE_END
