#pragma once
/// @file workspace.hpp
/// @brief Caller-supplied scratch memory for the bulk API (host-compilable).
///
/// Bulk operations that need scratch space (sorting, error records) take a workspace_view so that
/// the hot path never allocates: size it once with the operation's *_workspace_bytes() query,
/// allocate it (e.g. a gnndirect::buffer<std::byte> in device memory) and reuse it. This also
/// makes the calls capturable in CUDA graphs.

#include <gnndirect/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace gnndirect {

/// Non-owning device-visible scratch range.
struct workspace_view {
  void* data{nullptr};    ///< start (device-visible, 256-byte aligned for best results)
  std::size_t bytes{0};   ///< size in bytes
};

namespace detail {

/// Alignment of every slice carved from a workspace (CUB's temporary storage alignment).
inline constexpr std::size_t workspace_alignment = 256;

/// Rounds `bytes` up to the workspace alignment.
constexpr std::size_t align_workspace(std::size_t bytes) noexcept
{
  return (bytes + workspace_alignment - 1) / workspace_alignment * workspace_alignment;
}

/// Hands out aligned slices of a workspace in order; throws if it runs out. Used identically
/// by the size query (with a null base) and by the operation, so the two never disagree.
class workspace_carver {
 public:
  /// @param ws the caller's workspace (data may be null for sizing)
  explicit workspace_carver(workspace_view ws) noexcept : ws_(ws) {}

  /// Next slice of `bytes` bytes as T*; null base gives null slices (sizing pass).
  template <class T>
  T* take(std::size_t bytes)
  {
    std::size_t const offset = used_;
    used_ += align_workspace(bytes);
    if (ws_.data == nullptr) { return nullptr; }
    GNNDIRECT_EXPECTS(used_ <= ws_.bytes, "workspace too small: needs at least " +
                                             std::to_string(used_) + " bytes, got " +
                                             std::to_string(ws_.bytes));
    return reinterpret_cast<T*>(static_cast<char*>(ws_.data) + offset);
  }
  /// Bytes handed out so far (the size a sizing pass reports).
  std::size_t used() const noexcept { return used_; }

 private:
  workspace_view ws_;
  std::size_t used_{0};
};

}  // namespace detail
}  // namespace gnndirect
