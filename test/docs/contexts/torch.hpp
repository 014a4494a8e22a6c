// Snippet context `torch` (test/docs/check_snippets.py): what the PyTorch glue snippets of
// docs/integration.md take from the prose around them. With PyTorch's C++ headers on the include
// path (-I from torch.utils.cpp_extension.include_paths()) the real ones are used; otherwise (CI
// has no torch) a stand-in declares exactly the torch signatures the snippets call, so that the
// gnndirect side of every snippet (names, argument types, overloads) is still compiled. The
// snippets are only compiled, never linked or run, so the stand-in has declarations only.
#pragma once
#include <gnndirect/core/table_view.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#if __has_include(<torch/torch.h>) && __has_include(<ATen/cuda/CUDAContext.h>)
#include <ATen/cuda/CUDAContext.h>
#include <torch/torch.h>
#else
namespace torch {
enum class DeviceType { CPU, CUDA };
enum class ScalarType { Byte, Float, Long };
inline constexpr DeviceType kCUDA = DeviceType::CUDA;
inline constexpr ScalarType kUInt8 = ScalarType::Byte;
struct TensorOptions {
  TensorOptions device(DeviceType) const;
};
TensorOptions dtype(ScalarType);
struct Tensor {
  void* data_ptr() const;
  template <class T>
  T* data_ptr() const;
  std::size_t nbytes() const;
  std::int64_t size(std::int64_t dim) const;
  std::int64_t stride(std::int64_t dim) const;
  TensorOptions options() const;
  Tensor to(DeviceType) const;
};
Tensor empty(std::initializer_list<std::int64_t> sizes, TensorOptions options);
}  // namespace torch
namespace at::cuda {
struct CUDAStream {
  cudaStream_t stream() const;
};
CUDAStream getCurrentCUDAStream();
}  // namespace at::cuda
#endif

// The tensors the prose names: x (CPU features, float), idx (CUDA node ids, int64), rowptr / col
// (int64 CSR, col host-resident and GPU-addressable), seeds (CUDA int64), `features`, the view
// the first snippet builds over x, and `stream`, the one the gather snippet takes from torch.
extern torch::Tensor x, idx, rowptr, col, seeds;
extern gnndirect::table_view<const float> features;
extern cudaStream_t stream;
