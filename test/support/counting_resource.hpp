#pragma once
// Test support: a caller's stream-ordered memory resource that counts what it serves, on top of
// the device's default pool (the proof that a call allocated from the resource it was given).
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

}  // namespace gnndirect::test
