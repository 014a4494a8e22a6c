#pragma once
/// @file placement.hpp
/// @brief The `auto` placement: which host-resident kind is fastest on a device (host-compilable).

#include <gnndirect/device.hpp>
#include <gnndirect/memory/memory_kind.hpp>

#include <cuda_runtime_api.h>

namespace gnndirect {

/// The device properties that decide placement (a plain struct so the choice is testable).
struct device_capabilities {
  bool concurrent_managed_access{false};  ///< cudaDevAttrConcurrentManagedAccess
  bool can_map_host_memory{false};        ///< cudaDevAttrCanMapHostMemory
};

/// What `auto` picked and why (inspectable by callers, printed by the examples).
struct placement_decision {
  memory_kind kind;    ///< the chosen placement
  const char* reason;  ///< one-line justification
};

/// Chooses the fastest placement for a large, randomly accessed, host-resident table.
///
/// managed_host when the device has concurrent managed access (GPU maps host pages with far
/// cheaper translation: up to 10x pinned on the H200, DESIGN.md §3); otherwise pinned when the
/// device can map host memory; otherwise device, which callers must check fits. Pure, noexcept.
constexpr placement_decision choose_host_placement(const device_capabilities& caps) noexcept
{
  if (caps.concurrent_managed_access) {
    return {memory_kind::managed_host,
            "concurrent managed access: managed memory preferred on the CPU, accessed by the GPU, "
            "avoids the pinned-memory address-translation limit"};
  }
  if (caps.can_map_host_memory) {
    return {memory_kind::pinned, "no concurrent managed access: mapped pinned memory"};
  }
  return {memory_kind::device, "device cannot map host memory: the table must fit in HBM"};
}

/// Reads the placement-relevant capabilities of a device. @throws no_device_error, cuda_error.
inline device_capabilities query_capabilities(int device)
{
  device_capabilities caps;
  caps.concurrent_managed_access = device_attribute(cudaDevAttrConcurrentManagedAccess, device) != 0;
  caps.can_map_host_memory = device_attribute(cudaDevAttrCanMapHostMemory, device) != 0;
  return caps;
}

/// `auto` placement for the current device. @throws no_device_error without a GPU.
inline placement_decision choose_host_placement()
{
  return choose_host_placement(query_capabilities(require_device()));
}

}  // namespace gnndirect
