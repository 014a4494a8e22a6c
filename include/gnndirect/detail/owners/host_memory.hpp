#pragma once
/// @file host_memory.hpp
/// @brief Internals of owners/host_memory.hpp: the parsers and the probes of /proc and sysfs
/// behind the host-memory queries (not part of the API).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/host_memory_info.hpp>

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
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

/// Text without leading and trailing white space.
inline std::string trimmed(const std::string& text)
{
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) { ++begin; }
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) { --end; }
  return text.substr(begin, end - begin);
}

/// Power-of-1024 exponent of a size unit: "", "B" -> 0; K, KB, KiB -> 1; M.. -> 2; G.. -> 3;
/// T.. -> 4; P.. -> 5 (any case). -1 for anything else.
inline int size_unit_exponent(std::string unit)
{
  for (char& c : unit) { c = static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }
  if (unit.empty() || unit == "B") { return 0; }
  static char const letters[] = "KMGTP";
  for (int e = 0; e < 5; ++e) {
    std::string const l(1, letters[e]);
    if (unit == l || unit == l + "B" || unit == l + "IB") { return e + 1; }
  }
  return -1;
}

/// Parses a size: digits, an optional fraction, an optional unit (see size_unit_exponent; units
/// are binary: 1G = 1GB = 1GiB = 2^30 bytes), surrounding blanks allowed. nullopt for text that
/// is not a size and for values that do not fit in 64 bits. A fractional byte count rounds down.
inline std::optional<std::uint64_t> parse_size(const std::string& raw)
{
  std::string const text = trimmed(raw);
  std::size_t pos = 0;
  std::uint64_t whole = 0;
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    auto const digit = static_cast<std::uint64_t>(text[pos] - '0');
    if (whole > (max - digit) / 10) { return std::nullopt; }
    whole = whole * 10 + digit;
    ++pos;
  }
  if (pos == 0) { return std::nullopt; }
  std::uint64_t fraction = 0;  // fractional digits as an integer over `denominator`
  std::uint64_t denominator = 1;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    std::size_t const first = pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      if (denominator < 1000000) {  // 6 digits are plenty, and keep the products below 2^64
        fraction = fraction * 10 + static_cast<std::uint64_t>(text[pos] - '0');
        denominator *= 10;
      }
      ++pos;
    }
    if (pos == first) { return std::nullopt; }
  }
  int const exponent = size_unit_exponent(trimmed(text.substr(pos)));
  if (exponent < 0) { return std::nullopt; }
  std::uint64_t const scale = std::uint64_t{1} << (10 * exponent);
  if (whole > max / scale) { return std::nullopt; }
  std::uint64_t const bytes = whole * scale;
  // fraction * scale could overflow (10^6 * 2^50): split the scale by the denominator instead.
  std::uint64_t const extra = scale / denominator * fraction +
                              (scale % denominator) * fraction / denominator;
  if (bytes > max - extra) { return std::nullopt; }
  return bytes + extra;
}

/// Parses a cgroup limit file's text: bytes, or 0 for "max", v1's "unlimited" sentinel
/// (anything >= 2^60) and unreadable text.
inline std::uint64_t parse_cgroup_limit(const std::string& text)
{
  std::optional<std::uint64_t> const bytes = parse_size(text);
  if (!bytes || *bytes >= (std::uint64_t{1} << 60)) { return 0; }
  return *bytes;
}

/// Backwards-compatible lenient form: the size, or 0 for "max" and text that is not a size.
inline std::uint64_t parse_size_bytes(const std::string& text) { return parse_size(text).value_or(0); }

/// Whole content of a small file; empty when it cannot be read.
inline std::string read_small_file(const std::string& path)
{
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Bytes of all memory blocks the kernel knows (online or not) under `root`: the hot-plug ceiling
/// on VMs; 0 when absent.
inline std::uint64_t sysfs_memory_block_bytes(const std::string& root = "")
{
  std::string const dir_path = root + "/sys/devices/system/memory";
  std::string const block_size_hex = read_small_file(dir_path + "/block_size_bytes");
  if (block_size_hex.empty()) { return 0; }
  std::uint64_t const block_size = std::strtoull(block_size_hex.c_str(), nullptr, 16);
  DIR* dir = opendir(dir_path.c_str());
  if (dir == nullptr) { return 0; }
  std::uint64_t blocks = 0;
  while (dirent* entry = readdir(dir)) {
    std::string const name(entry->d_name);
    if (name.rfind("memory", 0) == 0 && name.size() > 6 &&
        std::isdigit(static_cast<unsigned char>(name[6]))) {
      ++blocks;
    }
  }
  closedir(dir);
  return blocks * block_size;
}

/// The cgroup paths of this process from /proc/self/cgroup text: the v2 path ("0::/a/b") and the
/// v1 memory controller's path ("7:memory:/a/b", also in combined lists such as "4:cpu,memory:").
struct cgroup_paths {
  std::optional<std::string> v2;      ///< path inside the v2 hierarchy
  std::optional<std::string> memory;  ///< path inside the v1 memory hierarchy
};

/// Parses /proc/self/cgroup text.
inline cgroup_paths parse_proc_cgroup(const std::string& text)
{
  cgroup_paths paths;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::size_t const first = line.find(':');
    std::size_t const second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) { continue; }
    std::string const controllers = line.substr(first + 1, second - first - 1);
    std::string const path = line.substr(second + 1);
    if (line.compare(0, first, "0") == 0 && controllers.empty()) {
      paths.v2 = path;
      continue;
    }
    std::istringstream list(controllers);
    std::string name;
    while (std::getline(list, name, ',')) {
      if (name == "memory") { paths.memory = path; }
    }
  }
  return paths;
}

/// Directories from `mount + path` up to `mount` (deepest first), for limits set on ancestors.
inline std::vector<std::string> cgroup_ancestry(const std::string& mount, std::string path)
{
  std::vector<std::string> dirs;
  while (!path.empty() && path.back() == '/') { path.pop_back(); }
  while (true) {
    dirs.push_back(mount + path);
    if (path.empty()) { break; }
    path.erase(path.rfind('/') == std::string::npos ? 0 : path.rfind('/'));
  }
  return dirs;
}

/// Lowers `limit` to the finite value of each `file` in `dirs` that is below it.
inline void take_smallest_cgroup_limit(const std::vector<std::string>& dirs, const char* file,
                                       const char* version, host_memory_limit& limit)
{
  for (const std::string& dir : dirs) {
    std::string const path = dir + "/" + file;
    std::uint64_t const bytes = parse_cgroup_limit(read_small_file(path));
    if (bytes != 0 && (limit.bytes == 0 || bytes < limit.bytes)) {
      limit.bytes = bytes;
      limit.source = std::string("cgroup ") + version + " " + path;
    }
  }
}

/// The probe, reading every file below `root` ("" = the real system; tests pass a fake tree).
/// Never throws; bytes 0 when nothing could be read.
inline host_memory_limit probe_host_memory_limit(const std::string& root = "")
{
  host_memory_limit limit;
  limit.bytes = parse_meminfo_bytes(read_small_file(root + "/proc/meminfo"), "MemTotal");
  limit.source = "MemTotal of /proc/meminfo";
  std::uint64_t const blocks = sysfs_memory_block_bytes(root);
  if (blocks > limit.bytes) {
    limit.bytes = blocks;
    limit.source = "memory blocks in /sys/devices/system/memory (memory grows on demand)";
  }
  cgroup_paths const paths = parse_proc_cgroup(read_small_file(root + "/proc/self/cgroup"));
  std::string const mount = root + "/sys/fs/cgroup";
  // Also the mount point itself: inside a cgroup namespace the process's own cgroup is the root.
  // v2 is mounted at the top (unified) or at unified/ beside the v1 controllers (hybrid).
  for (const char* v2_mount : {"", "/unified"}) {
    take_smallest_cgroup_limit(cgroup_ancestry(mount + v2_mount, paths.v2.value_or("")),
                               "memory.max", "v2", limit);
  }
  take_smallest_cgroup_limit(cgroup_ancestry(mount + "/memory", paths.memory.value_or("")),
                             "memory.limit_in_bytes", "v1", limit);
  return limit;
}

/// Reads "key value" lines (cgroup memory.stat) and returns the value of `key`; 0 if absent.
inline std::uint64_t parse_stat_value(const std::string& stat_text, const std::string& key)
{
  std::istringstream in(stat_text);
  std::string name;
  std::uint64_t value = 0;
  while (in >> name) {
    if (!(in >> value)) { return 0; }
    if (name == key) { return value; }
  }
  return 0;
}

/// Headroom of one cgroup: limit - (usage - reclaimable), clamped at 0; nullopt without a finite
/// limit or a readable usage. Pure.
inline std::optional<std::uint64_t> cgroup_headroom(std::uint64_t limit, std::uint64_t usage,
                                                    std::uint64_t reclaimable) noexcept
{
  if (limit == 0) { return std::nullopt; }
  std::uint64_t const used = usage > reclaimable ? usage - reclaimable : 0;
  return limit > used ? limit - used : 0;
}

/// Lowers `out.cgroup_bytes` to the headroom of each cgroup dir in `dirs` that has a finite
/// limit (limit_file) below `machine` (the machine's memory, 0: unknown; a limit at or above it
/// limits nothing), a usage (usage_file) and reclaimable file pages (`cache_key` of memory.stat).
inline void take_smallest_cgroup_headroom(const std::vector<std::string>& dirs, const char* limit_file,
                                          const char* usage_file, const char* cache_key,
                                          const char* version, std::uint64_t machine,
                                          host_memory_available& out)
{
  for (const std::string& dir : dirs) {
    std::uint64_t const limit = parse_cgroup_limit(read_small_file(dir + "/" + limit_file));
    if (limit == 0 || (machine != 0 && limit >= machine)) { continue; }
    std::optional<std::uint64_t> const usage = parse_size(read_small_file(dir + "/" + usage_file));
    if (!usage) { continue; }  // a limit without a readable usage: the ceiling check covers it
    std::uint64_t const cache = parse_stat_value(read_small_file(dir + "/memory.stat"), cache_key);
    std::uint64_t const headroom = *cgroup_headroom(limit, *usage, cache);
    if (!out.has_cgroup_limit || headroom < out.cgroup_bytes) {
      out.cgroup_bytes = headroom;
      out.has_cgroup_limit = true;
      out.source = std::string("cgroup ") + version + " " + dir + "/" + limit_file + " minus " +
                   usage_file + " (less reclaimable file pages)";
    }
  }
}

/// Host headroom without a cgroup limit: MemAvailable plus memory blocks not yet online
/// (`blocks` - MemTotal when positive). Pure; 0 when MemAvailable is absent.
inline std::uint64_t host_headroom(std::uint64_t mem_available, std::uint64_t mem_total,
                                   std::uint64_t blocks) noexcept
{
  if (mem_available == 0) { return 0; }
  return mem_available + (blocks > mem_total ? blocks - mem_total : 0);
}

/// Applies GNNDIRECT_HOST_MEMORY_LIMIT text (`text` null: unset) over a probe.
/// @throws invalid_argument for text that is not a positive size that fits in 64 bits.
inline host_memory_limit apply_host_memory_override(const char* text, host_memory_limit probed)
{
  if (text == nullptr) { return probed; }
  std::optional<std::uint64_t> const bytes = parse_size(text);
  GNNDIRECT_EXPECTS(bytes.has_value() && *bytes > 0,
                    "GNNDIRECT_HOST_MEMORY_LIMIT='" + std::string(text) +
                      "' is not a size: use bytes or a number with K, M, G, T or P (binary "
                      "units, optional B or iB: 68719476736, 64G, 64GB, 64GiB, 1.5T) below 16 EiB");
  return {*bytes, "GNNDIRECT_HOST_MEMORY_LIMIT"};
}

/// The availability probe below `root` ("" = the real system; tests pass a fake tree): the rule
/// of the file comment. Never throws.
inline host_memory_available probe_host_memory_available(const std::string& root = "")
{
  host_memory_available out;
  std::string const meminfo = read_small_file(root + "/proc/meminfo");
  out.mem_available = parse_meminfo_bytes(meminfo, "MemAvailable");
  std::uint64_t const mem_total = parse_meminfo_bytes(meminfo, "MemTotal");
  std::uint64_t const blocks = sysfs_memory_block_bytes(root);
  std::uint64_t const machine = std::max(mem_total, blocks);
  cgroup_paths const paths = parse_proc_cgroup(read_small_file(root + "/proc/self/cgroup"));
  std::string const mount = root + "/sys/fs/cgroup";
  for (const char* v2_mount : {"", "/unified"}) {
    take_smallest_cgroup_headroom(cgroup_ancestry(mount + v2_mount, paths.v2.value_or("")),
                                  "memory.max", "memory.current", "file", "v2", machine, out);
  }
  take_smallest_cgroup_headroom(cgroup_ancestry(mount + "/memory", paths.memory.value_or("")),
                                "memory.limit_in_bytes", "memory.usage_in_bytes", "total_cache",
                                "v1", machine, out);
  if (out.has_cgroup_limit) {
    out.known = true;
    out.bytes = out.cgroup_bytes;
    return out;
  }
  std::uint64_t const host = host_headroom(out.mem_available, mem_total, blocks);
  if (host != 0) {
    out.known = true;
    out.bytes = host;
    out.source = host == out.mem_available
                   ? "MemAvailable of /proc/meminfo"
                   : "MemAvailable of /proc/meminfo plus memory blocks not yet online";
  }
  return out;
}

/// The message part of a refusal for lack of available memory: the bytes needed and available,
/// where the figure came from, and the zero-copy alternatives. Pure.
inline std::string unavailable_message(std::size_t bytes, const host_memory_available& available)
{
  std::string text = "needs " + std::to_string(bytes) + " bytes but the host can give " +
                     std::to_string(available.bytes) + " now (" + available.source;
  if (available.has_cgroup_limit) {
    text += "; cgroup headroom " + std::to_string(available.cgroup_bytes);
  }
  if (available.mem_available != 0) {
    text += "; MemAvailable " + std::to_string(available.mem_available);
  }
  return text + "); zero-copy alternatives: adopt the memory in place (registered: "
                "table::adopt_by_registration, gnndirect_torch 'registered'), fill the placement "
                "directly (table::from_npy, gnndirect_torch.empty / Table.from_npy), or free "
                "memory first; set GNNDIRECT_HOST_MEMORY_LIMIT if this probe is wrong";
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
