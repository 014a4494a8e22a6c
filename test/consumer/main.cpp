// Host-only consumer: views and placement policy need no nvcc. Built as C++20 (the project's
// choice, which gnndirect's cxx_std_17 compile feature must not override).
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/placement.hpp>

#include <string_view>

static_assert(__cplusplus >= 202002L, "the consumer's CMAKE_CXX_STANDARD 20 was overridden");

// The versioned inline namespace: entities declared between the macros are gnndirect::name and
// gnndirect::v<major>_<minor>::name at once, with the version of the package found.
GNNDIRECT_NAMESPACE_BEGIN
inline constexpr int consumer_probe = 7;
GNNDIRECT_NAMESPACE_END
static_assert(&gnndirect::consumer_probe == &gnndirect::CONSUMER_EXPECTED_ABI::consumer_probe);
static_assert(&gnndirect::consumer_probe == &gnndirect::GNNDIRECT_ABI_NAMESPACE::consumer_probe);

int main()
{
  gnndirect::table_view<float> const v(nullptr, 0, 4, 4, gnndirect::memory_kind::pinned);
  auto const d = gnndirect::choose_host_placement(gnndirect::device_capabilities{true, true});
  return (v.empty() && d.kind == gnndirect::memory_kind::managed_host && gnndirect::version > 0) ? 0 : 1;
}
