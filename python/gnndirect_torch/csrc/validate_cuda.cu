/// @file validate_cuda.cu
/// @brief validate_csr (validate.hpp): gnndirect's host and GPU CSR validators over tensors, and
/// the self-check of the caching-allocator adapter.

#include "validate.hpp"

#include "common.hpp"
#include "sample_common.hpp"
#include "torch_resource.cuh"

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/algorithms/validate.cuh>
#include <gnndirect/algorithms/validate.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>

#include <cstddef>
#include <vector>

namespace gnndirect_torch {
namespace {

/// Shape and dtype checks shared by both validators. @throws c10::TypeError / c10::ValueError.
void check_validate_arguments(const at::Tensor& indptr, const at::Tensor& indices,
                              const std::optional<at::Tensor>& weights)
{
  check_index_tensor(indptr, "indptr");
  check_index_tensor(indices, "indices");
  TORCH_CHECK_VALUE(indptr.numel() >= 1, "gnndirect: indptr needs num_nodes + 1 >= 1 entries");
  TORCH_CHECK_VALUE(indptr.is_contiguous() && indices.is_contiguous(),
                    "gnndirect: indptr and indices must be contiguous");
  if (weights.has_value()) {
    TORCH_CHECK_TYPE(weights->scalar_type() == at::kFloat, "gnndirect: weights must be float32, got ",
                     weights->scalar_type());
    TORCH_CHECK_VALUE(weights->dim() == 1 && weights->size(0) == indices.size(0) &&
                        weights->is_contiguous(),
                      "gnndirect: weights must be a contiguous 1-D tensor with one weight per edge (",
                      indices.size(0), "), got shape ", weights->sizes());
  }
}

std::int64_t allocated_bytes(int device)
{
  auto const stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
  // Entry 0 is StatType::AGGREGATE (all pools), whose namespace moved between torch releases.
  return stats.allocated_bytes[0].current;
}

}  // namespace

void validate_csr(const at::Tensor& indptr, const at::Tensor& indices,
                  const std::optional<at::Tensor>& weights, std::int64_t device)
{
  check_validate_arguments(indptr, indices, weights);
  dispatch_csr(indptr, indices, [&](auto offset_tag, auto index_tag) {
    using O = decltype(offset_tag);
    using I = decltype(index_tag);
    if (device < 0) {
      auto const csr = host_csr_view<O, I>(indptr, indices, weights);
      translate_errors([&] { gnndirect::validate(csr); });
      return;
    }
    c10::cuda::CUDAGuard const guard(static_cast<c10::DeviceIndex>(device));
    int const index = static_cast<int>(device);
    cudaStream_t const stream = at::cuda::getCurrentCUDAStream(index).stream();
    translate_errors([&] {
      auto const csr = detail::device_csr_view<O, I>(indptr, indices, weights, index);
      gnndirect::validate(stream, csr);
    });
  });
}

std::vector<std::int64_t> resource_self_check(std::int64_t device, std::int64_t bytes)
{
  TORCH_CHECK_VALUE(bytes >= 0, "gnndirect: bytes must be >= 0");
  int const index = static_cast<int>(device);
  c10::cuda::CUDAGuard const guard(static_cast<c10::DeviceIndex>(index));
  cudaStream_t const stream = at::cuda::getCurrentCUDAStream(index).stream();
  std::vector<std::int64_t> out{allocated_bytes(index)};
  translate_errors([&] {
    gnndirect::resource_ref const mr = torch_caching_resource::for_device(index);
    gnndirect::buffer<std::byte> const block(static_cast<std::size_t>(bytes), stream, mr);
    GNNDIRECT_CUDA_TRY(cudaMemsetAsync(block.data(), 0, block.bytes(), stream));
    out.push_back(allocated_bytes(index));
  });
  out.push_back(allocated_bytes(index));
  return out;
}

}  // namespace gnndirect_torch
