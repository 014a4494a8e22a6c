// Host-only consumer: views and placement policy need no nvcc.
#include <gnndirect/memory/placement.hpp>
#include <gnndirect/views/table_view.hpp>
#include <gnndirect/version.hpp>

int main()
{
  gnndirect::table_view<float> const v(nullptr, 0, 4, 4, gnndirect::memory_kind::pinned);
  auto const d = gnndirect::choose_host_placement(gnndirect::device_capabilities{true, true});
  return (v.empty() && d.kind == gnndirect::memory_kind::managed_host && gnndirect::version > 0) ? 0 : 1;
}
