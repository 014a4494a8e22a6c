/// @file memory.cpp
/// @brief Placing tensors where the GPU can read them: registration in place (cudaHostRegister,
/// RAII) and host-resident allocations (pinned, managed_host) returned as CPU tensors that own
/// their allocation.

#include "memory.hpp"

#include <gnndirect/io/npy.hpp>
#include <gnndirect/owners/allocation.hpp>
#include <gnndirect/owners/host_memory.hpp>
#include <gnndirect/owners/placement.hpp>
#include <gnndirect/owners/registration.hpp>

#include <c10/core/DeviceGuard.h>
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

std::string auto_placement_for(std::int64_t bytes)
{
  TORCH_CHECK_VALUE(bytes >= 0, "gnndirect: auto_placement_for: negative size ", bytes);
  return translate_errors([&] {
    return std::string(gnndirect::to_string(
      gnndirect::choose_host_placement(static_cast<std::size_t>(bytes)).kind));
  });
}

pybind11::dict host_memory_info()
{
  gnndirect::host_memory_available available;
  gnndirect::host_memory_limit limit;
  translate_errors([&] {
    available = gnndirect::query_host_memory_available();
    limit = gnndirect::query_host_memory_limit();
  });
  pybind11::dict info;
  info["known"] = available.known;
  info["available"] = available.bytes;
  info["source"] = available.source;
  info["cgroup_headroom"] = available.has_cgroup_limit ? pybind11::object(pybind11::int_(available.cgroup_bytes))
                                                       : pybind11::object(pybind11::none());
  info["mem_available"] = available.mem_available;
  info["limit"] = limit.bytes;
  info["limit_source"] = limit.source;
  return info;
}

pybind11::tuple npy_header(const std::string& path)
{
  return translate_errors([&] {
    gnndirect::npy_array const array(path);
    pybind11::list shape;
    for (std::int64_t extent : array.header().shape) { shape.append(extent); }
    return pybind11::make_tuple(shape, std::string(gnndirect::npy_descr(array.dtype())));
  });
}

void fill_from_npy(const at::Tensor& target, const std::string& path)
{
  TORCH_CHECK_VALUE(target.is_contiguous(), "gnndirect: fill_from_npy needs a contiguous target");
  c10::OptionalDeviceGuard guard;
  if (target.is_cuda()) { guard.reset_device(target.device()); }
  translate_errors([&] {
    gnndirect::npy_array const array(path);
    TORCH_CHECK_VALUE(array.size() == target.numel(), "gnndirect: npy '", path, "' has ",
                      array.size(), " elements, the target tensor ", target.numel());
    TORCH_CHECK_VALUE(static_cast<std::int64_t>(gnndirect::npy_itemsize(array.dtype())) ==
                        target.element_size(),
                      "gnndirect: npy '", path, "' has ", gnndirect::npy_itemsize(array.dtype()),
                      "-byte elements, the target tensor ", target.element_size());
    if (target.numel() == 0) { return; }
    // Carried as same-size unsigned integers: a plain chunked memcpy, whatever the dtype.
    auto const stream = [&](auto carrier) {
      using C = decltype(carrier);
      gnndirect::detail::stream_elements(
        array, static_cast<const C*>(array.data()),
        gnndirect::detail::npy_sink<C>{static_cast<C*>(target.data_ptr()), target.is_cuda()});
    };
    switch (target.element_size()) {
      case 1: stream(std::uint8_t{}); break;
      case 2: stream(std::uint16_t{}); break;
      case 4: stream(std::uint32_t{}); break;
      case 8: stream(std::uint64_t{}); break;
      default: TORCH_CHECK_VALUE(false, "gnndirect: unsupported element size ", target.element_size());
    }
  });
}

}  // namespace gnndirect_torch
