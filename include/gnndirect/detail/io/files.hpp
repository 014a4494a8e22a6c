#pragma once
/// @file files.hpp
/// @brief Internals of the loaders (io/npy_array.hpp, io/edge_list.hpp): opening a file for
/// reading only when it is a regular file, so that a FIFO, a device or a directory passed as a
/// path is refused at once instead of blocking in open() or read() (not part of the API).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// What a stat mode names, for messages ("a FIFO", "a directory", ...).
inline const char* file_type_name(mode_t mode) noexcept
{
  if (S_ISFIFO(mode)) { return "a FIFO"; }
  if (S_ISDIR(mode)) { return "a directory"; }
  if (S_ISCHR(mode)) { return "a character device"; }
  if (S_ISBLK(mode)) { return "a block device"; }
  if (S_ISSOCK(mode)) { return "a socket"; }
  return "not a regular file";
}

/// Opens `path` read-only when it is a regular file, and returns the descriptor (O_CLOEXEC;
/// blocking reads, as for any regular file). The path is checked with stat() first, so that no
/// device is opened at all, and opened with O_NONBLOCK, so that a FIFO swapped in between never
/// blocks open(); the opened descriptor's own type is then checked (fstat) before it is used.
/// @param path the file  @param prefix the message's start (e.g. "npy 'x.npy': ")
/// @return an open descriptor of a regular file; the caller closes it
/// @throws invalid_argument "cannot open: <errno text>" or "is a FIFO / a directory / ...: the
/// loaders read regular files only"
inline int open_regular_file(const std::string& path, const std::string& prefix)
{
  auto refuse = [&](mode_t mode) {
    throw invalid_argument(__FILE__, __LINE__,
                           prefix + "is " + std::string(file_type_name(mode)) +
                             ", not a regular file: the loaders read regular files only");
  };
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw invalid_argument(__FILE__, __LINE__, prefix + "cannot open: " + std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) { refuse(info.st_mode); }
  int const fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) { throw invalid_argument(__FILE__, __LINE__, prefix + "cannot open: " + std::strerror(errno)); }
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    int const saved = errno;
    mode_t const mode = info.st_mode;
    ::close(fd);
    if (S_ISREG(mode)) { throw invalid_argument(__FILE__, __LINE__, prefix + "cannot stat: " + std::strerror(saved)); }
    refuse(mode);
  }
  // Regular files ignore O_NONBLOCK for reads, but clear it so that the descriptor behaves as a
  // plain blocking one.
  int const flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) { (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK); }
  return fd;
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
