#pragma once
// Definitions of io/npy_array.hpp (included at its end; not part of the API).

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

GNNDIRECT_NAMESPACE_BEGIN

inline npy_array::npy_array(std::string path) : path_(std::move(path))
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

inline npy_array& npy_array::operator=(npy_array&& other) noexcept
{
  npy_array(std::move(other)).swap(*this);
  return *this;
}

inline npy_array::~npy_array()
{
  registration_.reset();  // unpin before unmapping
  unmap();
}

inline void npy_array::register_in_place()
{
  if (!registration_) {
    registration_ = registration_owner(new host_registration(base_, mapped_bytes_),
                                       [](host_registration* r) { delete r; });
  }
}

inline const void* npy_array::device_data() const noexcept
{
  return registered() ? static_cast<const char*>(registration_->device_data()) + header_.data_offset
                      : nullptr;
}

template <class T>
const T* npy_array::data_as() const
{
  check_dtype<T>();
  return static_cast<const T*>(data());
}

template <class T>
const T* npy_array::device_data_as() const
{
  check_dtype<T>();
  if (!registered()) { detail::throw_npy_error(path_, "not registered: call register_in_place()"); }
  return static_cast<const T*>(device_data());
}

inline void npy_array::swap(npy_array& other) noexcept
{
  path_.swap(other.path_);
  std::swap(base_, other.base_);
  std::swap(mapped_bytes_, other.mapped_bytes_);
  std::swap(header_, other.header_);
  registration_.swap(other.registration_);
}

template <class T>
void npy_array::check_dtype() const
{
  if (header_.dtype != npy_dtype_of<T>()) {
    detail::throw_npy_error(path_, "dtype " + std::string(npy_descr(header_.dtype)) +
                                     " does not match the requested " +
                                     std::string(npy_descr(npy_dtype_of<T>())));
  }
}

inline void npy_array::unmap() noexcept
{
  if (base_ != nullptr) { ::munmap(base_, mapped_bytes_); }
  base_ = nullptr;
  mapped_bytes_ = 0;
}

GNNDIRECT_NAMESPACE_END
