#pragma once
/// @file npy_array.hpp
/// @brief npy_array: a .npy file memory-mapped read-only (copy-on-write), optionally pinned in
/// place for the GPU (host-compilable; the CUDA runtime is needed only by register_in_place).

#include <gnndirect/core/version.hpp>
#include <gnndirect/io/npy_header.hpp>
#include <gnndirect/owners/registration.hpp>
#include <gnndirect/detail/io/files.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gnndirect/core/cuda_error.hpp>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// A .npy file mapped into memory (copy-on-write private mapping: the file is never modified,
/// pages come from the page cache, nothing is read until touched). Move-only.
///
/// register_in_place() pins the mapping with host_registration so kernels read the file's pages
/// without a copy (device_data()). The mapping is private and writable for that reason: CUDA
/// refuses to pin a read-only mapping unless cudaHostRegisterReadOnly is passed, which
/// host_registration does not. Pinning may privatise the pages (anonymous memory as large as the
/// file); the library itself never writes them.
class npy_array {
 public:
  /// Nothing mapped.
  npy_array() noexcept = default;

  /// Maps `path` and parses its header. Synchronous; no CUDA call.  @param path the file
  /// @throws invalid_argument naming the file: cannot open/stat/map, not a regular file (a FIFO,
  ///         device or directory: refused before it is opened for reading, never blocking), or
  ///         any parse_npy_header / check_npy_data_size problem.
  explicit npy_array(std::string path) : path_(std::move(path))
  {
    // A FIFO, device or directory is refused before it is opened for reading (no hang in open()).
    int const fd = detail::open_regular_file(path_, "npy '" + path_ + "': ");
    struct stat info {};
    if (::fstat(fd, &info) != 0 || info.st_size < 10) {
      ::close(fd);
      detail::throw_npy_error(path_, "cannot stat, or too small to be a .npy file");
    }
    mapped_bytes_ = static_cast<std::size_t>(info.st_size);
    void* const base = ::mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    ::close(fd);  // the mapping keeps the file alive
    if (base == MAP_FAILED) {
      mapped_bytes_ = 0;
      detail::throw_npy_error(path_, std::string("cannot mmap: ") + std::strerror(errno));
    }
    base_ = static_cast<char*>(base);
    try {
      header_ = parse_npy_header(base_, mapped_bytes_, path_);
      check_npy_data_size(header_, mapped_bytes_, path_);
    } catch (...) {
      unmap();
      throw;
    }
  }

  /// Takes over `other`'s mapping, leaving it empty.  @param other the source
  npy_array(npy_array&& other) noexcept { swap(other); }
  /// Unmaps this file and takes over `other`'s mapping.  @param other the source  @return *this
  npy_array& operator=(npy_array&& other) noexcept
  {
    npy_array(std::move(other)).swap(*this);
    return *this;
  }
  npy_array(const npy_array&) = delete;
  npy_array& operator=(const npy_array&) = delete;
  /// Unpins (when registered), then unmaps the file.
  ~npy_array()
  {
    registration_.reset();  // unpin before unmapping
    unmap();
  }

  /// Pins the whole mapping for the GPU (host_registration: mapped + portable). Idempotent.
  /// Synchronous. @throws allocation_error (e.g. the locked-memory limit), no_device_error.
  void register_in_place()
  {
    if (!registration_) {
      registration_ = registration_owner(new host_registration(base_, mapped_bytes_),
                                         [](host_registration* r) { delete r; });
    }
  }
  /// @return true after register_in_place()
  bool registered() const noexcept { return registration_ != nullptr; }

  /// @return path given at construction
  const std::string& path() const noexcept { return path_; }
  /// @return the parsed header
  const npy_header& header() const noexcept { return header_; }
  /// @return element type
  npy_dtype dtype() const noexcept { return header_.dtype; }
  /// @return number of elements
  std::int64_t size() const noexcept { return header_.element_count; }
  /// @return host address of element 0
  const void* data() const noexcept { return base_ + header_.data_offset; }
  /// @return device-visible address of element 0; nullptr until register_in_place()
  const void* device_data() const noexcept
  {
    return registered() ? static_cast<const char*>(registration_->device_data()) + header_.data_offset
                        : nullptr;
  }
  /// Host address of element 0 as T. @throws invalid_argument when T is not the file's dtype.
  /// @tparam T the element type  @return the address
  template <class T>
  const T* data_as() const
  {
    check_dtype<T>();
    return static_cast<const T*>(data());
  }
  /// Device address of element 0 as T (registered arrays). @throws invalid_argument for a dtype
  /// mismatch or an unregistered array.  @tparam T the element type  @return the address
  template <class T>
  const T* device_data_as() const
  {
    check_dtype<T>();
    if (!registered()) { detail::throw_npy_error(path_, "not registered: call register_in_place()"); }
    return static_cast<const T*>(device_data());
  }

  /// Exchanges two arrays.  @param other the other one
  void swap(npy_array& other) noexcept
  {
    path_.swap(other.path_);
    std::swap(base_, other.base_);
    std::swap(mapped_bytes_, other.mapped_bytes_);
    std::swap(header_, other.header_);
    registration_.swap(other.registration_);
  }

 private:
  template <class T>
  void check_dtype() const
  {
    if (header_.dtype != npy_dtype_of<T>()) {
      detail::throw_npy_error(path_, "dtype " + std::string(npy_descr(header_.dtype)) +
                                       " does not match the requested " +
                                       std::string(npy_descr(npy_dtype_of<T>())));
    }
  }
  void unmap() noexcept
  {
    if (base_ != nullptr) { ::munmap(base_, mapped_bytes_); }
    base_ = nullptr;
    mapped_bytes_ = 0;
  }

  std::string path_;
  char* base_{nullptr};
  std::size_t mapped_bytes_{0};
  npy_header header_{};
  // Owned through a deleter that only register_in_place() creates: a program that maps and
  // reads .npy files but never registers them then references no CUDA runtime function and links
  // without libcudart (host tools, converters).
  using registration_owner = std::unique_ptr<host_registration, void (*)(host_registration*)>;
  registration_owner registration_{nullptr, nullptr};
};

GNNDIRECT_NAMESPACE_END
