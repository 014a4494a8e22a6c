#pragma once
/// @file npy_array.hpp
/// @brief npy_array: a .npy file memory-mapped read-only (copy-on-write), optionally pinned in
/// place for the GPU (host-compilable; the CUDA runtime is needed only by register_in_place).

#include <gnndirect/core/version.hpp>
#include <gnndirect/io/npy_header.hpp>
#include <gnndirect/owners/registration.hpp>
#include <gnndirect/detail/io/files.hpp>

#include <gnndirect/core/cuda_error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
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
/// file); the library itself never writes them. For example
/// @code
///   npy_array features("features.npy");          // maps; reads only the header
///   features.register_in_place();                 // pins the pages for the GPU
///   const float* rows = features.device_data_as<float>();  // throws unless the dtype is <f4
///   std::int64_t cols = features.header().shape.at(1);
/// @endcode
/// The device address stays valid while this npy_array, or the one it is moved into, lives.
class npy_array {
 public:
  /// Nothing mapped.
  npy_array() noexcept = default;

  /// Maps `path` and parses its header. Synchronous; no CUDA call.  @param path the file
  /// Only the header's page is read here; the elements are read from disk on first touch.
  /// @throws invalid_argument naming the file: cannot open/stat/map, not a regular file (a FIFO,
  ///         device or directory: refused before it is opened for reading, never blocking), or
  ///         any parse_npy_header / check_npy_data_size problem.
  explicit npy_array(std::string path);

  /// Takes over `other`'s mapping, leaving it empty.  @param other the source
  npy_array(npy_array&& other) noexcept { swap(other); }
  /// Unmaps this file and takes over `other`'s mapping.  @param other the source  @return *this
  npy_array& operator=(npy_array&& other) noexcept;
  npy_array(const npy_array&) = delete;
  npy_array& operator=(const npy_array&) = delete;
  /// Unpins (when registered), then unmaps the file.
  ~npy_array();

  /// Pins the whole mapping for the GPU (host_registration: mapped + portable). Idempotent.
  /// Synchronous. @throws allocation_error (e.g. the locked-memory limit), no_device_error.
  /// The pages stay pinned until the array is destroyed (it unpins, then unmaps).
  void register_in_place();
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
  const void* device_data() const noexcept;
  /// Host address of element 0 as T. @throws invalid_argument when T is not the file's dtype.
  /// @tparam T the element type  @return the address
  template <class T>
  const T* data_as() const;
  /// Device address of element 0 as T (registered arrays). @throws invalid_argument for a dtype
  /// mismatch or an unregistered array.  @tparam T the element type  @return the address
  template <class T>
  const T* device_data_as() const;

  /// Exchanges two arrays.  @param other the other one
  void swap(npy_array& other) noexcept;

 private:
  /// @throws invalid_argument naming both descrs when T (the requested element type) is not the
  /// file's dtype
  template <class T>
  void check_dtype() const;
  /// Unmaps the file (if mapped) and empties the mapping fields.
  void unmap() noexcept;

  std::string path_;             ///< the path given at construction
  char* base_{nullptr};          ///< start of the mapping (the magic string); null: none
  std::size_t mapped_bytes_{0};  ///< the file's size, all of it mapped
  npy_header header_{};          ///< the parsed header
  // Owned through a deleter that only register_in_place() creates: a program that maps and
  // reads .npy files but never registers them then references no CUDA runtime function and links
  // without libcudart (host tools, converters).
  using registration_owner = std::unique_ptr<host_registration, void (*)(host_registration*)>;
  registration_owner registration_{nullptr, nullptr};  ///< the pin; null until register_in_place()
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/io/npy_array.inl>
