#pragma once
// Definitions of cache/tiered_table.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class T>
tiered_table<T>::tiered_table(table_view<const T> rows, std::size_t budget_bytes, resource_ref mr)
  : host_(checked_source(rows)),
    capacity_(capacity_for(rows, budget_bytes)),
    cache_(static_cast<std::size_t>(capacity_ * rows.cols), memory_kind::device, mr),
    slot_of_(static_cast<std::size_t>(rows.rows), memory_kind::device, mr),
    mr_(mr)
{
  clear(cudaStreamLegacy);  // nothing can use the tier yet: no device-wide wait needed
}

template <class T>
tiered_table<T>::tiered_table(table_view<const T> rows, std::size_t budget_bytes, cudaStream_t stream, resource_ref mr)
  : host_(checked_source(rows)),
    capacity_(capacity_for(rows, budget_bytes)),
    cache_(static_cast<std::size_t>(capacity_ * rows.cols), stream, mr),
    slot_of_(static_cast<std::size_t>(rows.rows), stream, mr),
    mr_(mr)
{
  clear(stream);
}

template <class T>
auto tiered_table<T>::clear(cudaStream_t stream) -> void
{
  cached_ = 0;
  clear_async(stream);
  detail::synchronize(stream);
}

template <class T>
auto tiered_table<T>::clear() -> void
{
  GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
  clear(cudaStreamLegacy);
}

template <class T>
template <class Index>
auto tiered_table<T>::rebuild(cudaStream_t stream, const Index* hot, std::int64_t count) -> void
{
  cached_ = 0;
  clear_async(stream);
  std::int64_t const n = std::clamp<std::int64_t>(count, 0, capacity_);
  if (n == 0) {
    detail::synchronize(stream);
    return;
  }
  table_view<T> const cache_rows(cache_.data(), n, host_.cols, host_.cols, memory_kind::device);
  gather(stream, host_, hot, n, cache_rows, gather_policy{}, mr_);  // checks every id before any slot is assigned
  detail::assign_slots_kernel<<<detail::grid_stride_blocks(n), detail::elementwise_block_threads, 0, stream>>>(hot, n, host_.rows, slot_of_.data());
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  detail::synchronize(stream);
  cached_ = n;
}

template <class T>
auto tiered_table<T>::write_source(table_view<T> rows) const -> tiered_write_source<T>
{
  GNNDIRECT_EXPECTS(rows.data == host_.data && rows.rows == host_.rows && rows.cols == host_.cols &&
                      rows.row_stride == host_.row_stride && rows.kind == host_.kind,
                    "tiered_table::write_source: `rows` is not the table this tier was made over");
  return {rows, tiered_cache_mirror<T>{cache_.data(), slot_of_.data(), host_.rows, host_.cols}};
}

template <class T>
auto tiered_table<T>::checked_source(const table_view<const T>& rows) -> table_view<const T>
{
  validate(rows, "rows");
  GNNDIRECT_EXPECTS(rows.kind != memory_kind::device,
                    "tiered_table: rows is a device-resident table (memory_kind::device); a tier "
                    "caches host-resident rows in HBM, and these are in HBM already: gather from "
                    "the table directly");
  return rows;
}

template <class T>
auto tiered_table<T>::capacity_for(const table_view<const T>& rows, std::size_t budget_bytes) -> std::int64_t
{
  if (rows.row_bytes() == 0) { return 0; }
  std::int64_t const capacity =
    std::min<std::int64_t>(rows.rows, static_cast<std::int64_t>(budget_bytes / rows.row_bytes()));
  GNNDIRECT_EXPECTS(capacity <= std::numeric_limits<std::int32_t>::max(),
                    "tiered_table: at most 2^31 - 1 cached rows");
  return capacity;
}

template <class T>
auto tiered_table<T>::clear_async(cudaStream_t stream) -> void
{
  if (!slot_of_.empty()) {
    GNNDIRECT_CUDA_TRY(cudaMemsetAsync(slot_of_.data(), 0xFF, slot_of_.bytes(), stream));
  }
}

template <class T, class D, class Index>
void gather_async(
  cudaStream_t stream, const tiered_view<T>& src, const Index* indices, std::int64_t count, table_view<D> dst,
  workspace_view ws, const gather_policy& policy, const std::int64_t* device_count)
{
  validate(src.host, "src.host");
  GNNDIRECT_EXPECTS(src.host.rows == 0 || src.slot_of != nullptr, "tiered_view: null slot_of");
  detail::check_device_accessible(src.host.data, 0, 1, "src.host");
  detail::check_device_accessible(src.slot_of, 0, alignof(std::int32_t), "src.slot_of");
  gather_async(stream, tiered_source<T>(src), indices, count, dst, ws, detail::tiered_policy(policy),
               device_count);
}

template <class Codec, class D, class Index>
void gather_async(
  cudaStream_t stream, const encoded_view<Codec>& src, const tiered_view<std::uint8_t>& tier, const Index* indices,
  std::int64_t count, table_view<D> dst, workspace_view ws, const gather_policy& policy,
  const std::int64_t* device_count)
{
  validate(src, "src");
  GNNDIRECT_EXPECTS(tier.host.data == src.data && tier.host.rows == src.rows && tier.host.cols == src.stride_bytes,
                    "tiered encoded gather: the tier was not made over the encoded table's bytes");
  GNNDIRECT_EXPECTS(src.rows == 0 || tier.slot_of != nullptr, "tiered_view: null slot_of");
  gather_async(stream, tiered_encoded_source<Codec>(src, tier), indices, count, dst, ws,
               detail::tiered_policy(policy), device_count);
}

template <class Codec, class D, class Index>
void gather(
  cudaStream_t stream, const encoded_view<Codec>& src, const tiered_view<std::uint8_t>& tier, const Index* indices,
  std::int64_t count, table_view<D> dst, const gather_policy& policy, resource_ref mr)
{
  validate(src, "src");
  GNNDIRECT_EXPECTS(tier.host.data == src.data && tier.host.rows == src.rows && tier.host.cols == src.stride_bytes,
                    "tiered encoded gather: the tier was not made over the encoded table's bytes");
  GNNDIRECT_EXPECTS(src.rows == 0 || tier.slot_of != nullptr, "tiered_view: null slot_of");
  gather(stream, tiered_encoded_source<Codec>(src, tier), indices, count, dst, detail::tiered_policy(policy), mr);
}

template <class T, class D, class Index>
void gather(
  cudaStream_t stream, const tiered_view<T>& src, const Index* indices, std::int64_t count, table_view<D> dst,
  const gather_policy& policy, resource_ref mr)
{
  validate(src.host, "src.host");
  GNNDIRECT_EXPECTS(src.host.rows == 0 || src.slot_of != nullptr, "tiered_view: null slot_of");
  detail::check_device_accessible(src.host.data, 0, 1, "src.host");
  detail::check_device_accessible(src.slot_of, 0, alignof(std::int32_t), "src.slot_of");
  gather(stream, tiered_source<T>(src), indices, count, dst, detail::tiered_policy(policy), mr);
}

GNNDIRECT_NAMESPACE_END
