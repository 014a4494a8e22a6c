// Must NOT compile: a stream-ordered (device) resource given where a host resource is expected
// (pinned owners, the pipeline's staging): host_resource_ref's static_assert names the members.
#include <gnndirect/owners/buffer.hpp>

void use()
{
  gnndirect::device_pool_resource device_memory;
  gnndirect::buffer<int> const b(100, gnndirect::memory_kind::pinned, {}, device_memory);
}
