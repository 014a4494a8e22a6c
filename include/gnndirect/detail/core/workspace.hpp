#pragma once
/// @file workspace.hpp
/// @brief Internals of the bulk API's workspaces (core/workspace.hpp): the alignment check and
/// the carver that hands out a workspace's slices (not part of the API).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Rounds `bytes` up to the workspace alignment.
constexpr std::size_t align_workspace(std::size_t bytes) noexcept
{
  return (bytes + workspace_alignment - 1) / workspace_alignment * workspace_alignment;
}

/// Checks that a non-null workspace start is workspace_alignment-byte aligned: a misaligned
/// error record makes the kernels fault with a sticky misaligned-address error, losing the
/// CUDA context. @throws invalid_argument naming the address and the offset.
inline void check_workspace_alignment(workspace_view ws)
{
  auto const past = reinterpret_cast<std::uintptr_t>(ws.data) % workspace_alignment;
  GNNDIRECT_EXPECTS(past == 0, "workspace data must be " + std::to_string(workspace_alignment) +
                                 "-byte aligned, but it is " + std::to_string(past) +
                                 " bytes past a boundary");
}

/// Hands out aligned slices of a workspace in order. Used identically by the size query (with a
/// null base) and by the operation, so the two never disagree.
///
/// A slice that does not fit comes back null and is remembered; used(), which every carving
/// calls last, then throws with the total the whole carving needs (not the offset where it ran
/// out), so the caller learns the size to allocate in one step.
class workspace_carver {
 public:
  /// @param ws the caller's workspace (data may be null for sizing)
  /// @throws invalid_argument when ws.data is not workspace_alignment-byte aligned
  explicit workspace_carver(workspace_view ws) : ws_(ws) { check_workspace_alignment(ws); }

  /// Next slice of `bytes` bytes as T*; null for a sizing pass or a slice that does not fit.
  template <class T>
  T* take(std::size_t bytes) noexcept
  {
    std::size_t const offset = used_;
    used_ += align_workspace(bytes);
    if (ws_.data == nullptr) { return nullptr; }
    if (used_ > ws_.bytes) {
      short_ = true;
      return nullptr;
    }
    return reinterpret_cast<T*>(static_cast<char*>(ws_.data) + offset);
  }
  /// Total bytes of the slices taken so far (the size a sizing pass reports).
  /// @throws invalid_argument "workspace too small: needs at least <total> bytes, got <size>"
  /// when a slice of a real (non-null) workspace did not fit.
  std::size_t used() const
  {
    GNNDIRECT_EXPECTS(!short_, "workspace too small: needs at least " + std::to_string(used_) +
                                 " bytes, got " + std::to_string(ws_.bytes));
    return used_;
  }

 private:
  workspace_view ws_;
  std::size_t used_{0};
  bool short_{false};
};

}  // namespace detail
GNNDIRECT_NAMESPACE_END
