#pragma once
// The median every figure of the demo and the benchmarks reports (bench/bench_common.cuh
// includes this too, so both take it the same way). Standard library only.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace gnndirect_demo {

/// Median of `values` (the mean of the middle two for an even count; 0 when empty).
inline double median_of(std::vector<double> values)
{
  if (values.empty()) { return 0; }
  std::sort(values.begin(), values.end());
  std::size_t const n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace gnndirect_demo
