#pragma once
// Decoding fuzz input bytes into graph values, shared by the CSR fuzz targets.
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace gnndirect_fuzz {

/// Reads the input one signed byte at a time; missing bytes read as 0.
struct byte_reader {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t pos;
  std::int8_t next() noexcept { return pos < size ? static_cast<std::int8_t>(data[pos++]) : 0; }
};

/// A weight from one byte: small values, and the special values (NaN, +inf, -inf) that
/// validation must reject and weighted sampling must never choose.
inline float weight_from(std::int8_t byte) noexcept
{
  switch (byte) {
    case -128: return std::nanf("");
    case -127: return INFINITY;
    case -126: return -INFINITY;
    default: return static_cast<float>(byte) / 8.0f;
  }
}

}  // namespace gnndirect_fuzz
