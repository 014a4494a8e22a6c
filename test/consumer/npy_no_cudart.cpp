// The .npy reader without the CUDA runtime: this program is linked WITHOUT libcudart (see
// test/CMakeLists.txt), so it only links while mapping, reading and writing .npy files reference
// no CUDA function (registering a mapping for the GPU does, and is not used here). It also checks
// a round trip of fresh random values.
#include <gnndirect/io/npy.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
  std::string const dir = argc > 1 ? argv[1] : ".";
  std::random_device seed_source;
  std::mt19937_64 rng(seed_source());
  std::vector<std::int64_t> values(1 + rng() % 1000);
  for (auto& v : values) { v = static_cast<std::int64_t>(rng()); }
  std::string const path = dir + "/npy_no_cudart.npy";
  gnndirect::save_npy(path, values);

  std::vector<std::int64_t> read(values.size(), -1);  // poisoned
  {
    gnndirect::npy_array const array(path);
    if (array.registered() || array.size() != static_cast<std::int64_t>(values.size())) { return 1; }
    std::copy_n(array.data_as<std::int64_t>(), values.size(), read.data());
  }
  std::remove(path.c_str());
  if (read != values) {
    std::fprintf(stderr, "npy round trip differs\n");
    return 1;
  }
  std::printf("%zu int64 values through save_npy / npy_array without libcudart\n", values.size());
  return 0;
}
