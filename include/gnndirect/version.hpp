#pragma once
/// @file version.hpp
/// @brief Library version (kept equal to the CMake project version).

#define GNNDIRECT_VERSION_MAJOR 0
#define GNNDIRECT_VERSION_MINOR 1
#define GNNDIRECT_VERSION_PATCH 0

namespace gnndirect {
/// Version as a single integer: major * 10000 + minor * 100 + patch.
inline constexpr int version = GNNDIRECT_VERSION_MAJOR * 10000 + GNNDIRECT_VERSION_MINOR * 100 +
                               GNNDIRECT_VERSION_PATCH;
}  // namespace gnndirect
