#pragma once
/// @file workspace.hpp
/// @brief Caller-supplied scratch memory for the bulk API: workspace_view (workspace_view.hpp,
/// included) and how the operations size and use it (host-compilable).
///
/// Bulk operations that need scratch space (sorting, error records) take a workspace_view so that
/// the hot path never allocates: size it once with the operation's *_workspace_bytes() query,
/// allocate it (e.g. a gnndirect::buffer<std::byte> in device memory) and reuse it. This also
/// makes the calls capturable in CUDA graphs.

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace_view.hpp>
#include <gnndirect/detail/core/workspace.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
