#pragma once
// Definitions of io/npy_format.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

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

GNNDIRECT_NAMESPACE_END
