#pragma once
/// @file npy_header.hpp
/// @brief Internals of io/npy_header.hpp: the reader of the header's dict literal, its error
/// messages and the size computation (not part of the API).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/io/npy_format.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
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
GNNDIRECT_NAMESPACE_END
