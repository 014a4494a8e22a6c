#pragma once
// Definitions of algorithms/gather.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Index>
std::size_t gather_workspace_bytes(
  std::int64_t count, std::int64_t table_rows, memory_kind table_kind, std::size_t row_bytes,
  const gather_policy& policy)
{
  detail::check_index_type<Index>();
  return detail::scratch_bytes<detail::move_direction::gather, Index>(count, table_rows, table_kind,
                                                                      row_bytes, policy);
}

template <class Index>
std::size_t scatter_workspace_bytes(
  std::int64_t count, std::int64_t table_rows, memory_kind table_kind, std::size_t row_bytes,
  const gather_policy& policy)
{
  detail::check_index_type<Index>();
  return detail::scratch_bytes<detail::move_direction::scatter, Index>(count, table_rows, table_kind,
                                                                       row_bytes, policy);
}

template <class Source, class D, class Index>
void gather_async(
  cudaStream_t stream, const Source& src, const Index* indices, std::int64_t count, table_view<D> dst,
  workspace_view ws, const gather_policy& policy, const std::int64_t* device_count)
{
  detail::check_gather_source<Source, D>();
  detail::check_index_type<Index>();
  if constexpr (detail::gather_source_fits<Source, D>()) {
    if (device_count != nullptr) { detail::check_device_accessible(device_count, 8, 8, "device_count"); }
    detail::move_rows_async<detail::move_direction::gather>(stream, src, indices, count, dst, ws, policy,
                                                            device_count);
  }
}

template <class S, class D, class Index>
void gather_async(
  cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count, table_view<D> dst,
  workspace_view ws, const gather_policy& policy, const std::int64_t* device_count)
{
  validate(src, "src");
  detail::check_device_accessible(src.data, 0, 1, "src");
  gather_async(stream, table_source<const S>(src), indices, count, dst, ws, policy, device_count);
}

template <class S, class D, class Index>
void scatter_async(
  cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count, table_view<D> dst,
  workspace_view ws, const gather_policy& policy)
{
  detail::check_index_type<Index>();
  detail::check_element_types<S, D>();
  detail::check_writable_source<table_source<D>>();
  validate(dst, "dst");
  detail::check_device_accessible(dst.data, 0, 1, "dst");
  detail::move_rows_async<detail::move_direction::scatter>(stream, table_source<D>(dst), indices, count,
                                                           src, ws, policy);
}

template <class S, class Target, class Index>
void scatter_async(
  cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count, const Target& dst,
  workspace_view ws, const gather_policy& policy)
{
  detail::check_writable_source<Target>();
  detail::check_index_type<Index>();
  detail::check_element_types<S, typename Target::element_type>();
  detail::move_rows_async<detail::move_direction::scatter>(stream, dst, indices, count, src, ws, policy);
}

inline void gather_check(cudaStream_t stream, workspace_view ws, std::int64_t table_rows)
{
  detail::raise_rows_flag(stream, ws, table_rows, "gather_check");
}

inline void scatter_check(cudaStream_t stream, workspace_view ws, std::int64_t table_rows)
{
  detail::raise_rows_flag(stream, ws, table_rows, "scatter_check");
}

template <class Source, class D, class Index>
void gather(
  cudaStream_t stream, const Source& src, const Index* indices, std::int64_t count, table_view<D> dst,
  const gather_policy& policy, resource_ref mr)
{
  detail::check_gather_source<Source, D>();
  detail::check_index_type<Index>();
  if constexpr (detail::gather_source_fits<Source, D>()) {
    detail::move_rows_sync<detail::move_direction::gather>(stream, src, indices, count, dst, policy, mr);
  }
}

template <class S, class D, class Index>
void gather(
  cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count, table_view<D> dst,
  const gather_policy& policy, resource_ref mr)
{
  validate(src, "src");
  detail::check_device_accessible(src.data, 0, 1, "src");
  gather(stream, table_source<const S>(src), indices, count, dst, policy, mr);
}

template <class Codec>
void validate(const encoded_view<Codec>& view, const char* name)
{
  std::string const prefix = std::string("encoded_view '") + name + "': ";
  GNNDIRECT_EXPECTS(view.rows >= 0 && view.cols >= 0, prefix + "negative shape");
  GNNDIRECT_EXPECTS(view.rows == 0 || view.stride_bytes >= view.payload_bytes(),
                    prefix + "stride_bytes " + std::to_string(view.stride_bytes) + " < the " +
                      std::to_string(view.payload_bytes()) + " bytes of codes per row");
  GNNDIRECT_EXPECTS(view.empty() || view.data != nullptr, prefix + "null data with non-zero size");
  if constexpr (!std::is_empty_v<typename Codec::meta_type>) {
    GNNDIRECT_EXPECTS(view.rows == 0 || view.meta != nullptr, prefix + "null per-row metadata");
    if (view.rows > 0) { detail::check_device_accessible(view.meta, 0, alignof(typename Codec::meta_type), "src.meta"); }
  }
  if (!view.empty()) { detail::check_device_accessible(view.data, 0, 1, name); }
}

template <class Codec, class D, class Index>
void gather_async(
  cudaStream_t stream, const encoded_view<Codec>& src, const Index* indices, std::int64_t count, table_view<D> dst,
  workspace_view ws, const gather_policy& policy, const std::int64_t* device_count)
{
  validate(src, "src");
  gather_async(stream, encoded_source<Codec>(src), indices, count, dst, ws, policy, device_count);
}

template <class Codec, class D, class Index>
void gather(
  cudaStream_t stream, const encoded_view<Codec>& src, const Index* indices, std::int64_t count, table_view<D> dst,
  const gather_policy& policy, resource_ref mr)
{
  validate(src, "src");
  gather(stream, encoded_source<Codec>(src), indices, count, dst, policy, mr);
}

template <class S, class D, class Index>
void scatter(
  cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count, table_view<D> dst,
  const gather_policy& policy, resource_ref mr)
{
  detail::check_index_type<Index>();
  detail::check_element_types<S, D>();
  detail::check_writable_source<table_source<D>>();
  validate(dst, "dst");
  detail::check_device_accessible(dst.data, 0, 1, "dst");
  detail::move_rows_sync<detail::move_direction::scatter>(stream, table_source<D>(dst), indices, count,
                                                          src, policy, mr);
}

template <class S, class Target, class Index>
void scatter(
  cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count, const Target& dst,
  const gather_policy& policy, resource_ref mr)
{
  detail::check_writable_source<Target>();
  detail::check_index_type<Index>();
  detail::check_element_types<S, typename Target::element_type>();
  detail::move_rows_sync<detail::move_direction::scatter>(stream, dst, indices, count, src, policy, mr);
}

GNNDIRECT_NAMESPACE_END
