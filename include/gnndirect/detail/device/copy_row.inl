#pragma once
// Definitions of device/copy_row.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <bool Align128>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE std::int64_t line_head(const void* remote, std::size_t row_bytes) noexcept
{
  if constexpr (!Align128) {
    return 0;
  } else {
    return (remote != nullptr && row_bytes > 128)
             ? static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(remote) & 127u)
             : 0;
  }
}

template <int V, int Rows, class Tile>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE void copy_rows(
  const Tile& tile, const row_copy (&rows)[Rows], std::size_t row_bytes) noexcept
{
  static_assert(V == 16 || V == 8 || V == 4 || V == 2 || V == 1,
                "copy_rows: vector width V must be 16, 8, 4, 2 or 1 bytes");
  static_assert(Rows == 1 || Rows == 2 || Rows == 4, "copy_rows: Rows must be 1, 2 or 4");
  using vec = typename detail::vector_of<V>::type;
  detail::for_each_row_vector<V, Rows>(tile, rows, static_cast<std::int64_t>(row_bytes),
                                       [&](int r, std::int64_t offset, const vec& value) {
                                         *reinterpret_cast<vec*>(rows[r].dst + offset) = value;
                                       });
}

template <int V, bool Align128, class Tile>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE void copy_row(
  const Tile& tile, const void* src, void* dst, std::size_t row_bytes, const void* remote) noexcept
{
  row_copy const rows[1] = {row_copy{static_cast<const std::byte*>(src), static_cast<std::byte*>(dst),
                                     line_head<Align128>(remote, row_bytes)}};
  copy_rows<V, 1>(tile, rows, row_bytes);
}

GNNDIRECT_NAMESPACE_END
