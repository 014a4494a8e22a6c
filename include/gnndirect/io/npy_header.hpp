#pragma once
/// @file npy_header.hpp
/// @brief NumPy .npy format: the header parser (pure, safe on arbitrary bytes: the fuzz target)
/// and a small writer (host-compilable, no CUDA). The dtypes and the header's fields are in
/// npy_format.hpp (included).
///
/// Supported: format versions 1.0, 2.0 and 3.0; C order; little-endian (or byte-order-free)
/// bool, int8..int64, uint8..uint64, float16, float32 and float64. Everything else (Fortran
/// order, big-endian, object, string, structured dtypes, truncated files, shapes whose byte size
/// overflows) is refused with an invalid_argument naming the file and the problem.

#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/io/npy_header.hpp>
#include <gnndirect/io/npy_format.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Parses the header of a .npy file held in [data, data + size) (the whole file or at least its
/// header). Pure: no I/O; safe on arbitrary bytes (the fuzz target).
/// @param data, size the bytes  @param name names the source in messages (a path, or "<memory>")
/// @returns dtype, shape, data offset, element count and data size (not checked against size:
///          see check_npy_data_size)
/// @throws invalid_argument for a bad magic string, unknown version, truncated header, malformed
///         dict, Fortran order, big-endian/object/unsupported dtype, or an overflowing shape.
inline npy_header parse_npy_header(const char* data, std::size_t size,
                                   std::string_view name = "<memory>");

/// Checks that a file of `file_size` bytes holds all the data its header declares.
/// @param header the parsed header  @param file_size the file's size  @param name names the file
/// @throws invalid_argument naming the missing byte count.
inline void check_npy_data_size(const npy_header& header, std::size_t file_size,
                                std::string_view name);

/// Writes `data` (element_count(shape) elements of `dtype`, C order) as a version 1.0 .npy file
/// whose header is padded to 64 bytes like NumPy's. Synchronous.
/// @param path the file  @param dtype, shape what `data` holds  @param data the elements
/// @throws invalid_argument when the file cannot be written.
inline void save_npy(const std::string& path, npy_dtype dtype, const std::vector<std::int64_t>& shape,
                     const void* data);

/// Writes a vector as a 1-D .npy file. @throws invalid_argument when it cannot be written.
/// @tparam T an element type npy_dtype_of knows  @param path the file  @param values the elements
template <class T>
void save_npy(const std::string& path, const std::vector<T>& values);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/io/npy_header.inl>
