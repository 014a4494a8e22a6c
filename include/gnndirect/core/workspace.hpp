#pragma once
/// @file workspace.hpp
/// @brief Caller-supplied scratch memory for the bulk API: workspace_view and the alignment it
/// must have (host-compilable).
///
/// Bulk operations that need scratch space (sorting, error records) take a workspace_view so that
/// the hot path never allocates: size it once with the operation's *_workspace_bytes() query,
/// allocate it (e.g. a gnndirect::buffer<std::byte> in device memory) and reuse it. This also
/// makes the calls capturable in CUDA graphs.

#include <gnndirect/core/version.hpp>

#include <cstddef>

GNNDIRECT_NAMESPACE_BEGIN

/// Required alignment of workspace_view::data, in bytes (CUB's temporary-storage alignment; the
/// 8-byte error record at the start and every slice rely on it). Allocations from gnndirect
/// (buffer, allocation), cudaMalloc and PyTorch's allocator all satisfy it.
inline constexpr std::size_t workspace_alignment = 256;

/// Non-owning device-visible scratch range.
struct workspace_view {
  void* data{nullptr};    ///< start: device-visible and workspace_alignment (256)-byte aligned (checked)
  std::size_t bytes{0};   ///< size in bytes
};

GNNDIRECT_NAMESPACE_END
