#pragma once
/// @file error.hpp
/// @brief Exception hierarchy and precondition checks (needs only a C++17 compiler; the CUDA
/// error types and GNNDIRECT_CUDA_TRY are in cuda_error.hpp).
///
/// Every exception derives from gnndirect::error and its what() starts with "file:line: ".
/// Device code never throws: kernels that meet bad input set a device-side flag that the host
/// API converts into one of these exceptions (see detail/core/error_flag.cuh).
///
/// The hierarchy (catch the most specific type you handle):
/// @code
///   std::runtime_error
///   └─ error
///      ├─ invalid_argument         an argument the library cannot use
///      │  ├─ index_out_of_range    a bad index, with its position and value
///      │  └─ corrupt_graph         a CSR view that is no graph (algorithms/corrupt_graph.hpp)
///      ├─ allocation_error         memory refused or exhausted, with the bytes and the kind
///      └─ cuda_error               a failed CUDA call, with its code (cuda_exceptions.hpp)
///         └─ no_device_error       no GPU or no driver
/// @endcode

#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN

/// Base of all gnndirect exceptions; carries the source location of the failed check.
class error : public std::runtime_error {
 public:
  /// Message "file:line: message".
  /// @param file source file of the failed check  @param line its line  @param message what failed
  error(const char* file, int line, const std::string& message);
};

/// A caller passed an argument the library cannot use (shape, size, pointer, policy, index).
class invalid_argument : public error {
 public:
  using error::error;
};

/// An index read by a checked kernel was negative or >= the number of rows/nodes.
/// position() is the first offending position in the index array, value() the bad index.
class index_out_of_range : public invalid_argument {
 public:
  /// Message "what[position] = value is out of range [0, bound)".
  /// @param file, line source location of the check
  /// @param what names the array  @param position first bad position  @param value its value
  /// @param bound the exclusive upper bound the index had to respect
  index_out_of_range(const char* file, int line, const std::string& what, std::int64_t position,
                     std::int64_t value, std::int64_t bound);
  /// @return first position in the index array holding a bad value
  std::int64_t position() const noexcept { return position_; }
  /// @return the bad value found there
  std::int64_t value() const noexcept { return value_; }

 private:
  std::int64_t position_;  ///< see position()
  std::int64_t value_;     ///< see value()
};

/// An allocation or registration was refused or failed; names the size, the kind and a hint.
/// For kind() device the GPU's memory (or the resource) is exhausted; for pinned and registered
/// memory the usual limit is free RAM and the locked-memory limit (ulimit -l).
class allocation_error : public error {
 public:
  /// Message naming the bytes, the kind and the reason.
  /// @param file, line source location of the check
  /// @param bytes requested size  @param kind requested placement  @param reason what went wrong
  allocation_error(const char* file, int line, std::size_t bytes, memory_kind kind,
                   const std::string& reason);
  /// @return requested size in bytes
  std::size_t bytes() const noexcept { return bytes_; }
  /// @return requested placement
  memory_kind kind() const noexcept { return kind_; }

 private:
  std::size_t bytes_;  ///< see bytes()
  memory_kind kind_;   ///< see kind()
};

GNNDIRECT_NAMESPACE_END

/// Checks a precondition on caller input; throws gnndirect::invalid_argument with the message
/// (a std::string expression) and file:line when it does not hold. `message` is evaluated only
/// when the check fails, so building it may cost; the failed condition's text is appended.
#define GNNDIRECT_EXPECTS(condition, message)                                         \
  do {                                                                                \
    if (!(condition)) {                                                               \
      throw ::gnndirect::invalid_argument(__FILE__, __LINE__,                         \
                                          std::string(message) + " (" #condition ")"); \
    }                                                                                 \
  } while (0)

#include <gnndirect/detail/core/error.inl>
