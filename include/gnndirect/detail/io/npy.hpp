#pragma once
/// @file npy.hpp
/// @brief Internals of io/npy.hpp: streaming .npy arrays into their placement in bounded chunks,
/// with range checks (not part of the API).

#include <gnndirect/algorithms/validate.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/io/npy_array.hpp>
#include <gnndirect/io/npy_header.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/util/parallel.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Checks that an array is 1-D.
inline void check_npy_1d(const npy_array& array)
{
  if (array.header().shape.size() != 1) {
    throw_npy_error(array.path(), "expected a 1-D array, found " +
                                    std::to_string(array.header().shape.size()) + " dimensions");
  }
}

/// Source bytes one streaming step reads: bounds the host memory a load adds to the placed
/// bytes (the mapped chunk, plus a staging chunk for device targets).
inline constexpr std::size_t npy_chunk_bytes = std::size_t{64} << 20;

/// Drops [data, data + bytes) of a file mapping from this process's resident set once read (the
/// pages stay in the page cache, which the kernel reclaims; an untouched private mapping just
/// faults them in again if read later), so that streaming a file larger than the free memory
/// does not hold all of it at once. Never throws; a failing madvise only costs memory.
inline void release_mapped_range(const void* data, std::size_t bytes) noexcept
{
  if (bytes == 0) { return; }
  auto const page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE) > 0 ? ::sysconf(_SC_PAGESIZE) : 4096);
  auto const begin = reinterpret_cast<std::uintptr_t>(data);
  std::uintptr_t const first = (begin + page - 1) / page * page;  // whole pages inside the range
  std::uintptr_t const last = (begin + bytes) / page * page;
  if (last > first) { (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED); }
}

/// Where streamed elements go: a host address (pinned, managed_host or plain host memory) or a
/// device address (device memory, reached through one bounded staging vector).
template <class T>
struct npy_sink {
  T* data{nullptr};              ///< element 0 of the target
  bool device{false};            ///< true: `data` is device memory, staged through the host
};

/// Streams the `n` elements of `array` (element type S) into `sink` as T, npy_chunk_bytes of the
/// source at a time, converting each chunk with all cores and releasing its mapped pages after
/// it. For integer T, values that T cannot hold are refused, naming the first. Synchronous.
/// @throws invalid_argument (a value out of range), cuda_error (device targets).
/// @param chunk_bytes source bytes per step (tests pass small values to cover chunk edges)
template <class T, class S>
void stream_elements(const npy_array& array, const S* source, npy_sink<T> sink,
                     std::size_t chunk_bytes = npy_chunk_bytes)
{
  std::int64_t const n = array.size();
  std::int64_t const per_chunk =
    std::max<std::int64_t>(1, static_cast<std::int64_t>(chunk_bytes / std::max(sizeof(S), sizeof(T))));
  std::vector<T> staging;
  if (sink.device && n > 0) { staging.resize(static_cast<std::size_t>(std::min(n, per_chunk))); }
  for (std::int64_t first = 0; first < n; first += per_chunk) {
    std::int64_t const count = std::min(per_chunk, n - first);
    const S* const from = source + first;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<S, T>) {  // same type: always fits
      static_assert(std::is_integral_v<S>, "integer targets convert from integer files only");
      auto const out_of_range = [from](std::int64_t i) {
        S const value = from[i];
        if constexpr (std::is_signed_v<S>) {
          if (value < 0) { return static_cast<std::int64_t>(value) < std::numeric_limits<T>::min(); }
        }
        return static_cast<std::uint64_t>(value) >
               static_cast<std::uint64_t>(std::numeric_limits<T>::max());
      };
      std::int64_t const bad = host_first_violation(count, out_of_range);
      if (bad != no_violation) {
        throw_npy_error(array.path(), "element " + std::to_string(first + bad) + " = " +
                                        std::to_string(from[bad]) + " does not fit the target type");
      }
    }
    T* const out = sink.device ? staging.data() : sink.data + first;
    host::parallel_for_ranges(count, [&](std::int64_t begin, std::int64_t end, int) {
      if constexpr (std::is_same_v<S, T>) {
        std::memcpy(out + begin, from + begin, static_cast<std::size_t>(end - begin) * sizeof(T));
      } else {
        for (std::int64_t i = begin; i < end; ++i) { out[i] = static_cast<T>(from[i]); }
      }
    });
    if (sink.device) {
      copy_to_device_and_wait(sink.data + first, staging.data(), static_cast<std::size_t>(count) * sizeof(T));
    }
    release_mapped_range(from, static_cast<std::size_t>(count) * sizeof(S));
  }
}

/// Host-memory form of stream_elements (no CUDA call).
template <class T, class S>
void convert_elements(const npy_array& array, const S* source, T* out)
{
  stream_elements(array, source, npy_sink<T>{out, false});
}

/// Streams a 1-D integer array (any integer dtype) into `sink` as T, refusing values out of range.
/// @throws invalid_argument for a non-integer dtype or a value T cannot hold; cuda_error.
template <class T>
void stream_npy_integers(const npy_array& array, npy_sink<T> sink)
{
  check_npy_1d(array);
  switch (array.dtype()) {
    case npy_dtype::int8: return stream_elements(array, array.data_as<std::int8_t>(), sink);
    case npy_dtype::int16: return stream_elements(array, array.data_as<std::int16_t>(), sink);
    case npy_dtype::int32: return stream_elements(array, array.data_as<std::int32_t>(), sink);
    case npy_dtype::int64: return stream_elements(array, array.data_as<std::int64_t>(), sink);
    case npy_dtype::uint8: return stream_elements(array, array.data_as<std::uint8_t>(), sink);
    case npy_dtype::uint16: return stream_elements(array, array.data_as<std::uint16_t>(), sink);
    case npy_dtype::uint32: return stream_elements(array, array.data_as<std::uint32_t>(), sink);
    case npy_dtype::uint64: return stream_elements(array, array.data_as<std::uint64_t>(), sink);
    default:
      throw_npy_error(array.path(), "expected an integer dtype, found " +
                                      std::string(npy_descr(array.dtype())));
  }
}

/// Copies a 1-D integer array (any integer dtype) into host memory `out` as T.
/// @throws as stream_npy_integers.
template <class T>
void read_npy_integers(const npy_array& array, T* out)
{
  stream_npy_integers(array, npy_sink<T>{out, false});
}

/// Streams a 1-D float32 or float64 array into `sink` as float.
/// @throws invalid_argument for another dtype; cuda_error.
inline void stream_npy_floats(const npy_array& array, npy_sink<float> sink)
{
  check_npy_1d(array);
  switch (array.dtype()) {
    case npy_dtype::float32: return stream_elements(array, array.data_as<float>(), sink);
    case npy_dtype::float64: return stream_elements(array, array.data_as<double>(), sink);
    default:
      throw_npy_error(array.path(), "expected a float32 or float64 dtype, found " +
                                      std::string(npy_descr(array.dtype())));
  }
}

/// Copies a 1-D float32 or float64 array into host memory `out` as float.
inline void read_npy_floats(const npy_array& array, float* out)
{
  stream_npy_floats(array, npy_sink<float>{out, false});
}

/// The sink of a buffer: its host address, or its device address for device buffers.
template <class T>
npy_sink<T> sink_of(const buffer<T>& target) noexcept
{
  bool const device = target.kind() == memory_kind::device;
  return {device ? target.data() : target.host_data(), device};
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
