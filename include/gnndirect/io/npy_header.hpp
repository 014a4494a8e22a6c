#pragma once
/// @file npy_header.hpp
/// @brief NumPy .npy format: dtypes, the header parser (pure, safe on arbitrary bytes: the fuzz
/// target) and a small writer (host-compilable, no CUDA).
///
/// Supported: format versions 1.0, 2.0 and 3.0; C order; little-endian (or byte-order-free)
/// bool, int8..int64, uint8..uint64, float16, float32 and float64. Everything else (Fortran
/// order, big-endian, object, string, structured dtypes, truncated files, shapes whose byte size
/// overflows) is refused with an invalid_argument naming the file and the problem.

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
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

namespace detail {

/// Throws invalid_argument "npy 'name': problem".
[[noreturn]] inline void throw_npy_error(std::string_view name, const std::string& problem)
{
  throw invalid_argument(__FILE__, __LINE__, "npy '" + std::string(name) + "': " + problem);
}

/// Recursive-descent reader of the Python dict literal in a .npy header. Never reads past the
/// text it was given; every malformed input ends in throw_npy_error.
class npy_dict_reader {
 public:
  npy_dict_reader(std::string_view text, std::string_view name) : text_(text), name_(name) {}

  /// Parses the whole dict into `header` (dtype, shape) and returns fortran_order.
  bool read(npy_header& header)
  {
    bool seen[3] = {false, false, false};
    bool fortran = false;
    expect('{');
    while (!consume('}')) {
      std::string const key = read_string();
      expect(':');
      if (key == "descr") {
        mark(seen[0], key);
        header.dtype = parse_descr(read_descr_value());
      } else if (key == "fortran_order") {
        mark(seen[1], key);
        fortran = read_bool();
      } else if (key == "shape") {
        mark(seen[2], key);
        header.shape = read_shape();
      } else {
        fail("unexpected header key '" + key + "' (expected descr, fortran_order, shape)");
      }
      if (!consume(',')) {
        expect('}');
        break;
      }
    }
    skip_space();
    if (pos_ != text_.size()) { fail("unexpected text after the header dict"); }
    if (!seen[0] || !seen[1] || !seen[2]) {
      fail("header lacks one of the keys 'descr', 'fortran_order', 'shape'");
    }
    return fortran;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const
  {
    throw_npy_error(name_, "malformed header at character " + std::to_string(pos_) + ": " + problem);
  }
  void mark(bool& seen, const std::string& key) const
  {
    if (seen) { fail("duplicate key '" + key + "'"); }
    seen = true;
  }
  void skip_space()
  {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool consume(char c)
  {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c)
  {
    if (!consume(c)) { fail(std::string("expected '") + c + "'"); }
  }
  std::string read_string()
  {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      fail("expected a quoted string");
    }
    char const quote = text_[pos_++];
    std::size_t const end = text_.find(quote, pos_);
    if (end == std::string_view::npos) { fail("unterminated string"); }
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }
  std::string read_descr_value()
  {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == '[') {
      fail("structured dtypes (a list descr) are not supported");
    }
    return read_string();
  }
  bool read_bool()
  {
    skip_space();
    for (auto const& [word, value] : {std::pair<std::string_view, bool>{"True", true}, {"False", false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    fail("fortran_order must be True or False");
  }
  std::int64_t read_dimension()
  {
    skip_space();
    std::size_t const start = pos_;
    std::int64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      int const digit = text_[pos_] - '0';
      if (value > (std::numeric_limits<std::int64_t>::max() - digit) / 10) {
        fail("shape dimension overflows int64");
      }
      value = value * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) { fail("expected a non-negative integer in shape"); }
    if (pos_ < text_.size() && text_[pos_] == 'L') { ++pos_; }  // Python 2 long suffix
    return value;
  }
  std::vector<std::int64_t> read_shape()
  {
    constexpr std::size_t max_dims = 64;  // NumPy's own limit (NPY_MAXDIMS)
    std::vector<std::int64_t> shape;
    expect('(');
    while (!consume(')')) {
      if (shape.size() == max_dims) { fail("more than 64 dimensions"); }
      shape.push_back(read_dimension());
      if (!consume(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }
  npy_dtype parse_descr(const std::string& descr) const
  {
    if (descr.size() < 2) { fail("unsupported dtype '" + descr + "'"); }
    char const order = descr[0];
    std::string const type = descr.substr(1);
    if (order == '>' && type != "b1" && type != "i1" && type != "u1") {
      fail("big-endian dtype '" + descr + "' is not supported; convert with arr.astype('<" +
           type + "')");
    }
    if (order != '<' && order != '|' && order != '=' && order != '>') {
      fail("unsupported dtype '" + descr + "'");
    }
    for (int d = 0; d <= static_cast<int>(npy_dtype::float64); ++d) {
      auto const dtype = static_cast<npy_dtype>(d);
      if (npy_descr(dtype).substr(1) == type) { return dtype; }
    }
    if (type == "O") { fail("object arrays ('" + descr + "') are not supported"); }
    fail("unsupported dtype '" + descr + "'");
  }

  std::string_view text_;
  std::string_view name_;
  std::size_t pos_{0};
};

/// Little-endian unsigned integer of `bytes` bytes at p.
inline std::uint32_t read_le(const unsigned char* p, int bytes) noexcept
{
  std::uint32_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) { value = value << 8 | p[i]; }
  return value;
}

/// element_count and data_bytes from shape and dtype, refusing overflow.
inline void compute_npy_sizes(npy_header& header, std::string_view name)
{
  constexpr auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t count = 1;
  for (std::int64_t const dim : header.shape) {
    auto const d = static_cast<std::uint64_t>(dim);
    if (d != 0 && count > limit / d) { throw_npy_error(name, "shape's element count overflows"); }
    count *= d;
  }
  std::uint64_t const itemsize = npy_itemsize(header.dtype);
  if (count > limit / itemsize) { throw_npy_error(name, "shape's byte size overflows"); }
  header.element_count = static_cast<std::int64_t>(count);
  header.data_bytes = static_cast<std::size_t>(count * itemsize);
}

}  // namespace detail

/// Parses the header of a .npy file held in [data, data + size) (the whole file or at least its
/// header). Pure: no I/O; safe on arbitrary bytes (the fuzz target).
/// @param data, size the bytes  @param name names the source in messages (a path, or "<memory>")
/// @returns dtype, shape, data offset, element count and data size (not checked against size:
///          see check_npy_data_size)
/// @throws invalid_argument for a bad magic string, unknown version, truncated header, malformed
///         dict, Fortran order, big-endian/object/unsupported dtype, or an overflowing shape.
inline npy_header parse_npy_header(const char* data, std::size_t size,
                                   std::string_view name = "<memory>")
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

/// Checks that a file of `file_size` bytes holds all the data its header declares.
/// @param header the parsed header  @param file_size the file's size  @param name names the file
/// @throws invalid_argument naming the missing byte count.
inline void check_npy_data_size(const npy_header& header, std::size_t file_size,
                                std::string_view name)
{
  std::size_t const available = file_size > header.data_offset ? file_size - header.data_offset : 0;
  if (available < header.data_bytes) {
    detail::throw_npy_error(name, "truncated data: the header declares " +
                                    std::to_string(header.data_bytes) + " bytes, the file holds " +
                                    std::to_string(available));
  }
}

/// Writes `data` (element_count(shape) elements of `dtype`, C order) as a version 1.0 .npy file
/// whose header is padded to 64 bytes like NumPy's. Synchronous.
/// @param path the file  @param dtype, shape what `data` holds  @param data the elements
/// @throws invalid_argument when the file cannot be written.
inline void save_npy(const std::string& path, npy_dtype dtype, const std::vector<std::int64_t>& shape,
                     const void* data)
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

/// Writes a vector as a 1-D .npy file. @throws invalid_argument when it cannot be written.
/// @tparam T an element type npy_dtype_of knows  @param path the file  @param values the elements
template <class T>
void save_npy(const std::string& path, const std::vector<T>& values)
{
  save_npy(path, npy_dtype_of<T>(), {static_cast<std::int64_t>(values.size())}, values.data());
}

GNNDIRECT_NAMESPACE_END
