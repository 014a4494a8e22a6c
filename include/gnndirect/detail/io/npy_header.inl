#pragma once
// Definitions of io/npy_header.hpp (included at its end; not part of the API).

#include <gnndirect/core/error.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

inline npy_header parse_npy_header(const char* data, std::size_t size, std::string_view name)
{
  constexpr std::string_view magic{"\x93NUMPY", 6};
  if (data == nullptr || size < 10) {
    detail::throw_npy_error(name, "too small to be a .npy file (" + std::to_string(size) + " bytes)");
  }
  if (std::string_view(data, magic.size()) != magic) {
    detail::throw_npy_error(name, "not a .npy file (bad magic string)");
  }
  auto const* const bytes = reinterpret_cast<const unsigned char*>(data);
  npy_header header;
  header.major_version = bytes[6];
  if (header.major_version < 1 || header.major_version > 3 || bytes[7] != 0) {
    detail::throw_npy_error(name, "unsupported format version " + std::to_string(bytes[6]) + "." +
                                    std::to_string(bytes[7]) + " (1.0, 2.0 and 3.0 are read)");
  }
  int const length_bytes = header.major_version == 1 ? 2 : 4;
  std::size_t const text_start = 8 + static_cast<std::size_t>(length_bytes);
  if (size < text_start) { detail::throw_npy_error(name, "truncated header length"); }
  std::size_t const text_length = detail::read_le(bytes + 8, length_bytes);
  if (text_length > size - text_start) {
    detail::throw_npy_error(name, "truncated header: it declares " + std::to_string(text_length) +
                                    " bytes, the file has " + std::to_string(size - text_start));
  }
  header.data_offset = text_start + text_length;
  bool const fortran =
    detail::npy_dict_reader(std::string_view(data + text_start, text_length), name).read(header);
  if (fortran && header.shape.size() > 1) {
    detail::throw_npy_error(name, "Fortran-order arrays are not supported; save with "
                                  "np.ascontiguousarray(arr)");
  }
  detail::compute_npy_sizes(header, name);
  return header;
}

inline void check_npy_data_size(const npy_header& header, std::size_t file_size, std::string_view name)
{
  std::size_t const available = file_size > header.data_offset ? file_size - header.data_offset : 0;
  if (available < header.data_bytes) {
    detail::throw_npy_error(name, "truncated data: the header declares " +
                                    std::to_string(header.data_bytes) + " bytes, the file holds " +
                                    std::to_string(available));
  }
}

inline void save_npy(const std::string& path, npy_dtype dtype, const std::vector<std::int64_t>& shape, const void* data)
{
  std::string dims;
  std::int64_t count = 1;
  for (std::int64_t const d : shape) {
    dims += std::to_string(d) + ", ";
    count *= d;
  }
  if (shape.size() > 1) { dims.erase(dims.size() - 2); }  // "(3, 4)" but "(5,)" and "()"
  if (shape.size() == 1) { dims.pop_back(); }
  std::string text = "{'descr': '" + std::string(npy_descr(dtype)) +
                     "', 'fortran_order': False, 'shape': (" + dims + "), }";
  std::size_t const unpadded = 10 + text.size() + 1;
  text.append((64 - unpadded % 64) % 64, ' ');
  text.push_back('\n');
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  auto const length = static_cast<std::uint16_t>(text.size());
  char const preamble[10] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0,
                             static_cast<char>(length & 0xff), static_cast<char>(length >> 8)};
  out.write(preamble, sizeof preamble);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.write(static_cast<const char*>(data),
            static_cast<std::streamsize>(static_cast<std::size_t>(count) * npy_itemsize(dtype)));
  if (!out) { detail::throw_npy_error(path, "cannot write"); }
}

template <class T>
void save_npy(const std::string& path, const std::vector<T>& values)
{
  save_npy(path, npy_dtype_of<T>(), {static_cast<std::int64_t>(values.size())}, values.data());
}

GNNDIRECT_NAMESPACE_END
