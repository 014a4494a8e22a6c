#pragma once
/// @file csr_graph.hpp
/// @brief Internals of graph/csr_graph.hpp: host writes into buffers of any placement
/// (host-compilable; not part of the API).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/util/parallel.hpp>

#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Host-writable window onto a buffer: the buffer's own host memory when it has one, otherwise
/// (device buffers) a staging vector that commit() copies to the device. Lets host algorithms
/// fill any placement without a copy where none is needed.
template <class T>
class host_writer {
 public:
  explicit host_writer(const buffer<T>& target) : target_(target)
  {
    if (target.kind() == memory_kind::device) { staging_.resize(target.size()); }
  }
  /// Host address to write (null when the buffer is empty).
  T* data() noexcept
  {
    return target_.kind() == memory_kind::device ? staging_.data() : target_.host_data();
  }
  /// Makes the written bytes visible in the buffer. Synchronous. @throws cuda_error.
  void commit()
  {
    if (target_.kind() != memory_kind::device || target_.empty()) { return; }
    copy_to_device_and_wait(target_.data(), staging_.data(), target_.bytes());
  }

 private:
  const buffer<T>& target_;
  std::vector<T> staging_;
};

/// Copies `target.size()` elements from host memory into a buffer of any placement (all cores
/// for host-resident buffers, one cudaMemcpy for device). Synchronous. @throws cuda_error.
template <class T>
void copy_from_host(const buffer<T>& target, const T* source)
{
  if (target.empty()) { return; }
  GNNDIRECT_EXPECTS(source != nullptr, "csr_graph: null source array");
  if (target.kind() == memory_kind::device) {
    copy_to_device_and_wait(target.data(), source, target.bytes());
  } else {
    host::parallel_memcpy(target.host_data(), source, target.bytes());
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
