#pragma once
// Definitions of owners/placement.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

constexpr bool managed_fits(std::size_t table_bytes, std::size_t free_device_bytes) noexcept
{
  return table_bytes <= free_device_bytes - free_device_bytes / 8;
}

constexpr placement_decision choose_host_placement(const device_capabilities& caps,
                                                   std::size_t table_bytes,
                                                   std::size_t free_device_bytes) noexcept
{
  bool const managed_ok = managed_fits(table_bytes, free_device_bytes);
  if (caps.concurrent_managed_access && managed_ok) {
    return {memory_kind::managed_host,
            "concurrent managed access: managed memory preferred on the CPU, accessed by the GPU, "
            "avoids the pinned-memory address-translation limit"};
  }
  if (caps.can_map_host_memory) {
    if (caps.concurrent_managed_access) {
      return {memory_kind::pinned,
              "table larger than 7/8 of the GPU's free memory: managed memory is never requested "
              "beyond it (safety rule for shared GPUs), so mapped pinned memory (or "
              "adopt_by_registration); random reads are translation-bound, the locality sort of "
              "host-resident gathers recovers much of it"};
    }
    return {memory_kind::pinned, "no concurrent managed access: mapped pinned memory"};
  }
  return {memory_kind::device, "device cannot map host memory: the table must fit in HBM"};
}

constexpr placement_decision choose_host_placement(const device_capabilities& caps) noexcept
{
  return choose_host_placement(caps, 0, 0);
}

inline device_capabilities query_capabilities(int device)
{
  device_capabilities caps;
  caps.concurrent_managed_access = device_attribute(cudaDevAttrConcurrentManagedAccess, device) != 0;
  caps.can_map_host_memory = device_attribute(cudaDevAttrCanMapHostMemory, device) != 0;
  return caps;
}

inline placement_decision choose_host_placement(std::size_t table_bytes)
{
  device_capabilities const caps = query_capabilities(require_device());
  return choose_host_placement(caps, table_bytes, device_memory().free_bytes);
}

inline placement_decision choose_host_placement()
{
  return choose_host_placement(query_capabilities(require_device()));
}

GNNDIRECT_NAMESPACE_END
