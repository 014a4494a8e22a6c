#pragma once
// Test support: a caller's stream-ordered memory resource that counts what it serves, on top of
// the device's default pool, and a host one on top of cudaHostAlloc (the proof that a call
// allocated from the resources it was given).
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/resource.hpp>

#include <cstddef>
#include <cstdint>

namespace gnndirect::test {

struct counting_resource {
  device_pool_resource upstream;
  std::int64_t allocations{0};  ///< allocate() calls so far
  std::int64_t live_bytes{0};   ///< bytes allocated and not yet returned

  void* allocate(::cuda::stream_ref stream, std::size_t bytes, std::size_t alignment)
  {
    ++allocations;
    live_bytes += static_cast<std::int64_t>(bytes);
    return upstream.allocate(stream, bytes, alignment);
  }
  void deallocate(::cuda::stream_ref stream, void* p, std::size_t bytes, std::size_t alignment) noexcept
  {
    live_bytes -= static_cast<std::int64_t>(bytes);
    upstream.deallocate(stream, p, bytes, alignment);
  }
};

static_assert(is_stream_ordered_resource_v<counting_resource>);

/// Host resource counting what it serves (mapped pinned memory from pinned_host_resource).
struct counting_host_resource {
  pinned_host_resource upstream;
  std::int64_t allocations{0};  ///< allocate() calls so far
  std::int64_t live_bytes{0};   ///< bytes allocated and not yet returned

  void* allocate(std::size_t bytes, std::size_t alignment)
  {
    ++allocations;
    live_bytes += static_cast<std::int64_t>(bytes);
    return upstream.allocate(bytes, alignment);
  }
  void deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept
  {
    live_bytes -= static_cast<std::int64_t>(bytes);
    upstream.deallocate(p, bytes, alignment);
  }
};

static_assert(is_host_resource_v<counting_host_resource>);

}  // namespace gnndirect::test
