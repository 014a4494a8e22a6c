#pragma once
// Definitions of owners/registration.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

inline host_registration::host_registration(void* host, std::size_t bytes, std::size_t chunk_bytes)
{
  GNNDIRECT_EXPECTS(host != nullptr, "host_registration: null pointer");
  GNNDIRECT_EXPECTS(bytes > 0, "host_registration: zero-size range");
  GNNDIRECT_EXPECTS(chunk_bytes > 0, "host_registration: zero chunk size");
  // Pinning faults every page in and locks it: a range beyond the host's (or the cgroup's)
  // memory would bring the OOM killer, so it is refused like a pinned allocation.
  detail::refuse_beyond_host_limit(bytes, memory_kind::registered);
  // Below the ceiling, the pages not yet resident must still fit in what the host can give now.
  detail::refuse_registration_beyond_available(host, bytes);
  require_device();
  auto const begin = reinterpret_cast<std::uintptr_t>(host);
  detail::registration_registry::instance().add(begin, begin + bytes);
  host_ = host;
  bytes_ = bytes;
  try {
    register_chunks(chunk_bytes);
    map_device_address();
  } catch (...) {
    release();
    throw;
  }
}

inline host_registration& host_registration::operator=(host_registration&& other) noexcept
{
  host_registration(std::move(other)).swap(*this);
  return *this;
}

inline void host_registration::swap(host_registration& other) noexcept
{
  std::swap(host_, other.host_);
  std::swap(device_, other.device_);
  std::swap(bytes_, other.bytes_);
  chunks_.swap(other.chunks_);
}

inline void host_registration::register_chunks(std::size_t chunk_bytes)
{
  // Chunk boundaries fall on page boundaries so that no page is registered twice.
  auto const page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  auto const begin = reinterpret_cast<std::uintptr_t>(host_);
  auto const end = begin + bytes_;
  std::uintptr_t chunk_begin = begin;
  while (chunk_begin < end) {
    std::uintptr_t chunk_end = (chunk_begin + chunk_bytes + page - 1) / page * page;
    if (chunk_end > end || chunk_end <= chunk_begin) { chunk_end = end; }
    auto* const chunk = reinterpret_cast<void*>(chunk_begin);
    std::size_t const size = chunk_end - chunk_begin;
    cudaError_t const status =
      cudaHostRegister(chunk, size, cudaHostRegisterMapped | cudaHostRegisterPortable);
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      throw allocation_error(
        __FILE__, __LINE__, bytes_, memory_kind::registered,
        "cudaHostRegister of chunk at offset " + std::to_string(chunk_begin - begin) + " (" +
          std::to_string(size) + " bytes) returned " + cudaGetErrorName(status) +
          "; hint: the locked-memory limit (ulimit -l) is " + detail::memlock_limit_text() +
          ", and memory registered elsewhere cannot be registered again");
    }
    chunks_.push_back(chunk);
    chunk_begin = chunk_end;
  }
}

inline void host_registration::map_device_address()
{
  auto const begin = reinterpret_cast<std::uintptr_t>(host_);
  for (std::size_t i = 0; i < chunks_.size(); ++i) {
    void* device = nullptr;
    GNNDIRECT_CUDA_TRY(cudaHostGetDevicePointer(&device, chunks_[i], 0));
    auto const offset = reinterpret_cast<std::uintptr_t>(chunks_[i]) - begin;
    if (i == 0) {
      device_ = device;
    } else if (reinterpret_cast<std::uintptr_t>(device) !=
               reinterpret_cast<std::uintptr_t>(device_) + offset) {
      throw allocation_error(__FILE__, __LINE__, bytes_, memory_kind::registered,
                             "chunks map to non-contiguous device addresses; register with "
                             "chunk_bytes >= bytes");
    }
  }
}

inline void host_registration::release() noexcept
{
  for (void* chunk : chunks_) { GNNDIRECT_CUDA_TRY_NOTHROW(cudaHostUnregister(chunk)); }
  chunks_.clear();
  if (host_ != nullptr) {
    detail::registration_registry::instance().remove(reinterpret_cast<std::uintptr_t>(host_));
  }
  host_ = nullptr;
  device_ = nullptr;
  bytes_ = 0;
}

GNNDIRECT_NAMESPACE_END
