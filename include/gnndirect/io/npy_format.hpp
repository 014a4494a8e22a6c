#pragma once
/// @file npy_format.hpp
/// @brief NumPy .npy format's vocabulary: the element types (npy_dtype, their sizes and descrs)
/// and what a header says (npy_header). The parser and the writer are in npy_header.hpp
/// (host-compilable, no CUDA).
///
/// A .npy file is the magic string "\x93NUMPY", a version byte pair, the header length, a
/// Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)} padded with spaces
/// to a multiple of 64 bytes, then the raw elements in C order. npy_header is that dict parsed;
/// npy_descr spells the 'descr' field of a dtype.

#include <gnndirect/core/version.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Element type of a .npy array. npy_dtype_of<T>() maps bool, the fixed-width integers of cstdint,
/// float and double onto it; float16 has no C++ type here (its elements are 2 raw bytes each).
enum class npy_dtype : std::uint8_t {
  bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64
};

/// Bytes per element of a dtype.  @param dtype the dtype  @return the size (0 for an unknown value)
constexpr std::size_t npy_itemsize(npy_dtype dtype) noexcept;

/// NumPy's little-endian descr of a dtype.  @param dtype the dtype
/// @return e.g. "<i8", "|u1", "<f4": '|' for the one-byte types, which have no byte order, '<'
/// (little-endian) for the others; "" for a value outside the enumeration
constexpr std::string_view npy_descr(npy_dtype dtype) noexcept;

/// The npy_dtype of a C++ element type (compile error for types .npy cannot describe). The
/// typed readers (npy_array.hpp) refuse a file whose dtype is not this; save_npy writes it.
/// @tparam T the element type  @return its dtype
template <class T>
constexpr npy_dtype npy_dtype_of() noexcept;

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

#include <gnndirect/detail/io/npy_format.inl>
