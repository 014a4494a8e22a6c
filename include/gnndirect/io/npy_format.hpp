#pragma once
/// @file npy_format.hpp
/// @brief NumPy .npy format's vocabulary: the element types (npy_dtype, their sizes and descrs)
/// and what a header says (npy_header). The parser and the writer are in npy_header.hpp
/// (host-compilable, no CUDA).

#include <gnndirect/core/version.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Element type of a .npy array.
enum class npy_dtype : std::uint8_t {
  bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64
};

/// Bytes per element of a dtype.  @param dtype the dtype  @return the size (0 for an unknown value)
constexpr std::size_t npy_itemsize(npy_dtype dtype) noexcept
{
  switch (dtype) {
    case npy_dtype::bool_:
    case npy_dtype::int8:
    case npy_dtype::uint8: return 1;
    case npy_dtype::int16:
    case npy_dtype::uint16:
    case npy_dtype::float16: return 2;
    case npy_dtype::int32:
    case npy_dtype::uint32:
    case npy_dtype::float32: return 4;
    case npy_dtype::int64:
    case npy_dtype::uint64:
    case npy_dtype::float64: return 8;
  }
  return 0;
}

/// NumPy's little-endian descr of a dtype.  @param dtype the dtype
/// @return e.g. "<i8", "|u1", "<f4"
constexpr std::string_view npy_descr(npy_dtype dtype) noexcept
{
  switch (dtype) {
    case npy_dtype::bool_: return "|b1";
    case npy_dtype::int8: return "|i1";
    case npy_dtype::int16: return "<i2";
    case npy_dtype::int32: return "<i4";
    case npy_dtype::int64: return "<i8";
    case npy_dtype::uint8: return "|u1";
    case npy_dtype::uint16: return "<u2";
    case npy_dtype::uint32: return "<u4";
    case npy_dtype::uint64: return "<u8";
    case npy_dtype::float16: return "<f2";
    case npy_dtype::float32: return "<f4";
    case npy_dtype::float64: return "<f8";
  }
  return "";
}

/// The npy_dtype of a C++ element type (compile error for types .npy cannot describe).
/// @tparam T the element type  @return its dtype
template <class T>
constexpr npy_dtype npy_dtype_of() noexcept
{
  if constexpr (std::is_same_v<T, bool>) { return npy_dtype::bool_; }
  else if constexpr (std::is_same_v<T, std::int8_t>) { return npy_dtype::int8; }
  else if constexpr (std::is_same_v<T, std::int16_t>) { return npy_dtype::int16; }
  else if constexpr (std::is_same_v<T, std::int32_t>) { return npy_dtype::int32; }
  else if constexpr (std::is_same_v<T, std::int64_t>) { return npy_dtype::int64; }
  else if constexpr (std::is_same_v<T, std::uint8_t>) { return npy_dtype::uint8; }
  else if constexpr (std::is_same_v<T, std::uint16_t>) { return npy_dtype::uint16; }
  else if constexpr (std::is_same_v<T, std::uint32_t>) { return npy_dtype::uint32; }
  else if constexpr (std::is_same_v<T, std::uint64_t>) { return npy_dtype::uint64; }
  else if constexpr (std::is_same_v<T, float>) { return npy_dtype::float32; }
  else {
    static_assert(std::is_same_v<T, double>, "npy_dtype_of<T>: T has no .npy dtype");
    return npy_dtype::float64;
  }
}

/// What a .npy header says: element type, shape, where the data starts and how long it is.
struct npy_header {
  npy_dtype dtype{npy_dtype::uint8};  ///< element type
  std::vector<std::int64_t> shape;    ///< dimensions, C order; empty for a 0-d (scalar) array
  std::size_t data_offset{0};         ///< byte offset of element 0 in the file
  std::int64_t element_count{1};      ///< product of shape (1 for 0-d)
  std::size_t data_bytes{0};          ///< element_count * itemsize
  int major_version{1};               ///< format version (1, 2 or 3)
};

GNNDIRECT_NAMESPACE_END
