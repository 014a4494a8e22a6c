/// @file memory.cpp
/// @brief Placing tensors where the GPU can read them: registration in place (cudaHostRegister,
/// RAII) and host-resident allocations (pinned, managed_host) returned as CPU tensors that own
/// their allocation.

#include "memory.hpp"

#include <gnndirect/owners/allocation.hpp>
#include <gnndirect/owners/placement.hpp>
#include <gnndirect/owners/registration.hpp>

#include <c10/cuda/CUDAGuard.h>

namespace gnndirect_torch {

/// Byte span [data_ptr, end of last element] of a 2-D-or-less strided tensor with positive
/// strides (the range a registration must cover).
static std::size_t span_bytes(const at::Tensor& t)
{
  if (t.numel() == 0) { return 0; }
  std::int64_t last = 0;
  for (std::int64_t d = 0; d < t.dim(); ++d) {
    TORCH_CHECK_VALUE(t.stride(d) >= 0, "gnndirect: negative strides are not supported");
    last += (t.size(d) - 1) * t.stride(d);
  }
  return static_cast<std::size_t>(last + 1) * t.element_size();
}

registration::registration(const at::Tensor& tensor) : tensor_(tensor)
{
  TORCH_CHECK_VALUE(!tensor.is_cuda() && tensor.device().is_cpu(),
                    "gnndirect: only CPU tensors can be registered, got ", tensor.device());
  TORCH_CHECK_VALUE(tensor.numel() > 0, "gnndirect: cannot register an empty tensor");
  std::size_t const bytes = span_bytes(tensor);
  bytes_ = bytes;
  translate_errors([&] { pin_ = std::make_unique<gnndirect::host_registration>(tensor.data_ptr(), bytes); });
}

registration::~registration() { close(); }

void registration::close() noexcept
{
  if (pin_ != nullptr) {
    // Work still in flight may read the registered pages (e.g. a gather enqueued with
    // check=False): let it finish before the pages stop being mapped.
    if (cudaDeviceSynchronize() != cudaSuccess) { (void)cudaGetLastError(); }
  }
  pin_.reset();  // cudaHostUnregister (errors reported on stderr, never thrown)
  tensor_ = at::Tensor();
}

at::Tensor allocate_host_tensor(at::IntArrayRef sizes, at::ScalarType dtype, const std::string& placement)
{
  gnndirect::memory_kind kind{};
  if (placement == "pinned") {
    kind = gnndirect::memory_kind::pinned;
  } else if (placement == "managed_host") {
    kind = gnndirect::memory_kind::managed_host;
  } else {
    TORCH_CHECK_VALUE(false, "gnndirect: allocate_host_tensor placement must be 'pinned' or "
                             "'managed_host', got '", placement, "'");
  }
  std::int64_t numel = 1;
  for (std::int64_t s : sizes) {
    TORCH_CHECK_VALUE(s >= 0, "gnndirect: negative size in ", sizes);
    numel *= s;
  }
  auto const options = at::TensorOptions().dtype(dtype).device(at::kCPU);
  if (numel == 0) { return at::empty(sizes, options); }
  std::size_t const bytes = static_cast<std::size_t>(numel) * c10::elementSize(dtype);
  auto* owner = translate_errors([&] { return new gnndirect::allocation(kind, bytes); });
  return at::from_blob(owner->host_data(), sizes, [owner](void*) { delete owner; }, options);
}

std::string auto_placement()
{
  return translate_errors([] { return std::string(gnndirect::to_string(gnndirect::choose_host_placement().kind)); });
}

std::string auto_placement_reason()
{
  return translate_errors([] { return std::string(gnndirect::choose_host_placement().reason); });
}

}  // namespace gnndirect_torch
