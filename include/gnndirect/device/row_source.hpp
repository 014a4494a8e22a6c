#pragma once
/// @file row_source.hpp
/// @brief The row-source concept: where the indexed rows of a gather (or the target rows of a
/// scatter) live, as a type. The bulk gather/scatter and the copy kernels are templates on it, so
/// a plain table pays nothing for the cache tier and a framework can add its own source
/// (host-compilable).
///
/// A type `S` is a row source of element type `S::element_type` when it is trivially copyable
/// (it is passed to kernels by value) and has:
/// @code
///   using element_type = T;                  // const T: read-only (gather); T: also scatter
///   std::int64_t num_rows() const;           // host: valid indices are [0, num_rows())
///   std::int64_t num_cols() const;           // host: elements per row
///   memory_kind placement() const;           // host: where rows crossing the link live
///                                            //   (the policy selector's input)
///   std::uintptr_t address_bits() const;     // host: OR of every base address and row stride
///                                            //   in bytes (bounds the vector width)
///   __device__ row_location<T> locate(std::int64_t row) const;  // row's address, and whether
///                                            //   it lies across the host link (remote)
/// @endcode
/// A writable source (non-const element_type) may also have `S2 mirror() const`: a second
/// writable source for a copy of the same rows (locate() returns null data for rows it does not
/// hold); scatter writes the source, then the mirror, in the same order (tiered_write_source: the
/// host table and its HBM copy).
///
/// A *decoding* source has, instead of element_type and locate(), a row codec
/// (device/row_codec.hpp) and the encoded rows:
/// @code
///   using codec_type = C;
///   num_rows(), num_cols() (decoded values per row), placement(), address_bits() as above
///   std::int64_t encoded_row_bytes() const;  // host: bytes loaded per row (>= the codes)
///   __device__ C codec() const;              // the codec object
///   __device__ encoded_location<C::meta_type> locate(std::int64_t row) const;
/// @endcode
/// The gather into any destination type the codec produces decodes inside the copy.
///
/// Library sources here: table_source (a table_view) and encoded_source (an encoded_view); the
/// cache tier's sources (tiered_source, tiered_write_source, tiered_encoded_source) are in
/// cache/tiered_source.hpp. See test/gpu/test_gather.cu for a user-defined source that concatenates two tables
/// (heterogeneous node types behind one index space).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/encoded_view.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/table_view.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

/// Where one row lives: its first element and whether reading it crosses the host link (then
/// accesses are aligned to 128-byte lines).
/// @tparam T element type (const for read-only sources)
template <class T>
struct row_location {
  T* data;      ///< first element of the row
  bool remote;  ///< true when the row is in host memory
};

/// True when `S` models the row-source concept (see the file comment).
/// @tparam S the type to test
template <class S, class = void>
struct is_row_source : std::false_type {};

/// The case where every member exists: S must also be trivially copyable.
/// @tparam S the type to test
template <class S>
struct is_row_source<
  S, std::void_t<typename S::element_type,
                 decltype(std::declval<const S&>().num_rows()),
                 decltype(std::declval<const S&>().num_cols()),
                 decltype(std::declval<const S&>().placement()),
                 decltype(std::declval<const S&>().address_bits()),
                 decltype(std::declval<const S&>().locate(std::int64_t{}))>>
  : std::bool_constant<std::is_trivially_copyable_v<S>> {};

/// Shorthand for is_row_source<S>::value.  @tparam S the type to test
template <class S>
inline constexpr bool is_row_source_v = is_row_source<S>::value;

/// The plain row source: every row of a table_view, in the view's placement.
/// @tparam T element type (const for a read-only source)
template <class T>
struct table_source {
  using element_type = T;  ///< element type of the rows
  table_view<T> table{};  ///< the rows (device-visible addresses)
  bool remote{false};     ///< the table is host-resident (decided once, on the host)

  /// Source over an empty table.
  table_source() = default;
  /// Source over `view`; its placement decides whether rows are remote.  @param view the table
  explicit table_source(table_view<T> view) noexcept;

  /// @return rows of the table
  std::int64_t num_rows() const noexcept { return table.rows; }
  /// @return elements per row
  std::int64_t num_cols() const noexcept { return table.cols; }
  /// @return the table's placement
  memory_kind placement() const noexcept { return table.kind; }
  /// @return base address and stride in bytes, OR-ed
  std::uintptr_t address_bits() const noexcept;
  /// Row `row` (no bounds check: the bulk layer checks indices first).
  /// @param row the row (no bounds check)  @return its location
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE row_location<T> locate(std::int64_t row) const noexcept;
};

static_assert(is_row_source_v<table_source<const float>>);

/// True when a writable source `S` has a mirror() (a second copy scatter also writes).
/// @tparam S the type to test
template <class S, class = void>
struct has_mirror : std::false_type {};
/// The case where S has a mirror().  @tparam S the type to test
template <class S>
struct has_mirror<S, std::void_t<decltype(std::declval<const S&>().mirror())>> : std::true_type {};

/// Where one encoded row lives: its first code, whether it lies across the host link, and its
/// metadata (read from HBM by row id).
/// @tparam Meta the codec's meta_type
template <class Meta>
struct encoded_location {
  const std::uint8_t* data;  ///< first code of the row
  bool remote;               ///< true when the row is in host memory
  Meta meta;                 ///< the row's metadata
};

/// True when `S` models the decoding-source concept (see the file comment).
/// @tparam S the type to test
template <class S, class = void>
struct is_decoding_source : std::false_type {};

/// The case where every member exists: S must also be trivially copyable.
/// @tparam S the type to test
template <class S>
struct is_decoding_source<
  S, std::void_t<typename S::codec_type, decltype(std::declval<const S&>().num_rows()),
                 decltype(std::declval<const S&>().num_cols()), decltype(std::declval<const S&>().placement()),
                 decltype(std::declval<const S&>().address_bits()),
                 decltype(std::declval<const S&>().encoded_row_bytes()),
                 decltype(std::declval<const S&>().codec()),
                 decltype(std::declval<const S&>().locate(std::int64_t{}))>>
  : std::bool_constant<std::is_trivially_copyable_v<S>> {};

/// Shorthand for is_decoding_source<S>::value.  @tparam S the type to test
template <class S>
inline constexpr bool is_decoding_source_v = is_decoding_source<S>::value;

/// The decoding source over an encoded table (owners/encoded_table.hpp): every row in the view's
/// placement, decoded by its codec inside the gather.
/// @tparam Codec the view's row codec
template <class Codec>
struct encoded_source {
  using codec_type = Codec;  ///< the codec
  encoded_view<Codec> table{};  ///< the encoded rows and their metadata
  bool remote{false};           ///< the rows are host-resident

  /// Source over an empty table.
  encoded_source() = default;
  /// Source over `view`; its placement decides whether rows are remote.  @param view the table
  explicit encoded_source(const encoded_view<Codec>& view) noexcept;
  /// @return rows of the table
  std::int64_t num_rows() const noexcept { return table.rows; }
  /// @return decoded values per row
  std::int64_t num_cols() const noexcept { return table.cols; }
  /// @return the table's placement
  memory_kind placement() const noexcept { return table.kind; }
  /// @return base address and stride, OR-ed
  std::uintptr_t address_bits() const noexcept;
  /// @return bytes loaded per row
  std::int64_t encoded_row_bytes() const noexcept { return table.load_bytes(); }
  /// @return the codec
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE Codec codec() const noexcept { return table.codec; }
  /// Row `row`'s codes and metadata (no bounds check).
  /// @param row the row (no bounds check)  @return its location
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE encoded_location<typename Codec::meta_type> locate(std::int64_t row) const noexcept;
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/device/row_source.inl>
