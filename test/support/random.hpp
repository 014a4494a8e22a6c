#pragma once
// Test support: fresh random seeds (printed on failure via CAPTURE) and filled vectors.
#include <cstdint>
#include <random>
#include <vector>

namespace gnndirect::test {

/// A fresh seed for every run; tests CAPTURE it so a failure can be replayed.
inline std::uint64_t fresh_seed()
{
  std::random_device device;
  return (std::uint64_t{device()} << 32) ^ device();
}

/// `count` uniform indices in [0, rows) (duplicates likely when count is large).
template <class Index>
std::vector<Index> random_indices(std::mt19937_64& rng, std::int64_t count, std::int64_t rows)
{
  std::vector<Index> indices(static_cast<std::size_t>(count));
  for (auto& i : indices) { i = static_cast<Index>(rng() % static_cast<std::uint64_t>(rows)); }
  return indices;
}

/// Random bytes (never a constant pattern: zeros would hide unwritten outputs).
inline std::vector<unsigned char> random_bytes(std::mt19937_64& rng, std::size_t count)
{
  std::vector<unsigned char> bytes(count);
  for (auto& b : bytes) { b = static_cast<unsigned char>(rng()); }
  return bytes;
}

}  // namespace gnndirect::test
