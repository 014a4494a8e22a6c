#pragma once
/// @file version.hpp
/// @brief Library version and the versioned inline namespace (host-compilable, no CUDA).

// These three macros are the project's one version number: CMakeLists.txt and python/setup.py
// read them from this file (test `version_consistency` checks that they agree).
/// Major version.
#define GNNDIRECT_VERSION_MAJOR 0
/// Minor version.
#define GNNDIRECT_VERSION_MINOR 1
/// Patch version. The ABI namespace below names major and minor only, so a patch release keeps
/// every mangled name of its minor release.
#define GNNDIRECT_VERSION_PATCH 0

/// v<major>_<minor> by token pasting (internal); the _EXPANDED step makes the version macros
/// expand before they are pasted.
#define GNNDIRECT_DETAIL_ABI_NAME(major, minor) v##major##_##minor
#define GNNDIRECT_DETAIL_ABI_NAME_EXPANDED(major, minor) GNNDIRECT_DETAIL_ABI_NAME(major, minor)

/// Name of the inline namespace inside `gnndirect` (v<major>_<minor>, e.g. v0_1). Two libraries
/// that embed different gnndirect versions in one process then never share a mangled symbol, and
/// a mismatch shows up as a link error rather than an ODR violation.
#define GNNDIRECT_ABI_NAMESPACE \
  GNNDIRECT_DETAIL_ABI_NAME_EXPANDED(GNNDIRECT_VERSION_MAJOR, GNNDIRECT_VERSION_MINOR)

/// Opens `namespace gnndirect { inline namespace v<major>_<minor> {`; user code still names
/// everything `gnndirect::...`. Close with GNNDIRECT_NAMESPACE_END.
#define GNNDIRECT_NAMESPACE_BEGIN \
  namespace gnndirect {           \
  inline namespace GNNDIRECT_ABI_NAMESPACE {

/// Closes what GNNDIRECT_NAMESPACE_BEGIN opened.
#define GNNDIRECT_NAMESPACE_END \
  }                             \
  }

namespace gnndirect {
/// Version as a single integer: major * 10000 + minor * 100 + patch (100 for 0.1.0), e.g.
/// `static_assert(gnndirect::version >= 100)` to require a release.
inline constexpr int version = GNNDIRECT_VERSION_MAJOR * 10000 + GNNDIRECT_VERSION_MINOR * 100 +
                               GNNDIRECT_VERSION_PATCH;
}  // namespace gnndirect
