#pragma once
/// @file host_memory.hpp
/// @brief How much host RAM a host-resident table may take (host-compilable).
///
/// Host-resident allocations are refused by the library, with a clear allocation_error, when
/// they exceed what the host can ever hold, instead of letting the driver or the OOM killer fail
/// later. On virtual machines whose memory grows on demand MemTotal understates the ceiling, so
/// the limit is the largest of every ceiling the system reports; it never refuses what fits.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <dirent.h>

namespace gnndirect {
namespace detail {

/// Parses the "MemTotal:" (or another key's) value of /proc/meminfo text, in bytes; 0 if absent.
inline std::uint64_t parse_meminfo_bytes(const std::string& meminfo_text, const std::string& key)
{
  std::istringstream in(meminfo_text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) { continue; }
    std::istringstream fields(line.substr(key.size() + 1));
    std::uint64_t value = 0;
    std::string unit;
    if (!(fields >> value)) { return 0; }
    fields >> unit;
    return unit == "kB" ? value * 1024u : value;
  }
  return 0;
}

/// Parses a size such as "64G", "512M", "1024" (bytes) or "max" (returns 0 = unlimited/unknown).
/// Returns 0 for text that is not a size, so a malformed override is ignored, never trusted.
inline std::uint64_t parse_size_bytes(const std::string& text)
{
  if (text.empty() || text == "max") { return 0; }
  char* end = nullptr;
  unsigned long long const value = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str()) { return 0; }
  std::string const suffix(end);
  std::uint64_t scale = 1;
  if (suffix == "K" || suffix == "k" || suffix == "KiB") {
    scale = 1ull << 10;
  } else if (suffix == "M" || suffix == "MiB") {
    scale = 1ull << 20;
  } else if (suffix == "G" || suffix == "GiB") {
    scale = 1ull << 30;
  } else if (suffix == "T" || suffix == "TiB") {
    scale = 1ull << 40;
  } else if (!suffix.empty() && suffix != "\n") {
    return 0;
  }
  return static_cast<std::uint64_t>(value) * scale;
}

inline std::string read_small_file(const char* path)
{
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Bytes of all memory blocks the kernel knows (online or not): the hot-plug ceiling on VMs.
inline std::uint64_t sysfs_memory_block_bytes()
{
  std::string const block_size_hex = read_small_file("/sys/devices/system/memory/block_size_bytes");
  if (block_size_hex.empty()) { return 0; }
  std::uint64_t const block_size = std::strtoull(block_size_hex.c_str(), nullptr, 16);
  DIR* dir = opendir("/sys/devices/system/memory");
  if (dir == nullptr) { return 0; }
  std::uint64_t blocks = 0;
  while (dirent* entry = readdir(dir)) {
    if (std::string(entry->d_name).rfind("memory", 0) == 0 &&
        std::string(entry->d_name).size() > 6) {
      ++blocks;
    }
  }
  closedir(dir);
  return blocks * block_size;
}

}  // namespace detail

/// Largest host-resident allocation the library accepts, in bytes.
///
/// The environment variable GNNDIRECT_HOST_MEMORY_LIMIT (e.g. "96G") overrides the probe;
/// otherwise the maximum of MemTotal, the cgroup limit (when finite) and the memory-block total.
/// Never throws; returns 0 only when nothing can be read (then callers do not pre-check).
inline std::uint64_t host_memory_limit_bytes()
{
  if (char const* text = std::getenv("GNNDIRECT_HOST_MEMORY_LIMIT")) {
    if (std::uint64_t const bytes = detail::parse_size_bytes(text)) { return bytes; }
  }
  std::uint64_t limit =
    detail::parse_meminfo_bytes(detail::read_small_file("/proc/meminfo"), "MemTotal");
  std::string cgroup = detail::read_small_file("/sys/fs/cgroup/memory.max");
  while (!cgroup.empty() && (cgroup.back() == '\n' || cgroup.back() == ' ')) { cgroup.pop_back(); }
  std::uint64_t const cgroup_bytes = detail::parse_size_bytes(cgroup);
  if (cgroup_bytes > limit && cgroup_bytes < (1ull << 50)) { limit = cgroup_bytes; }
  std::uint64_t const blocks = detail::sysfs_memory_block_bytes();
  if (blocks > limit) { limit = blocks; }
  return limit;
}

}  // namespace gnndirect
