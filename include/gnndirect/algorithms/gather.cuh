#pragma once
/// @file gather.cuh
/// @brief Bulk gather and scatter of table rows selected by an index list, from/to any placement,
/// at the speed of the host link, with no CPU work.
///
/// - `gather(stream, src, indices, count, dst)`: dst row i = src row indices[i].
/// - `scatter(stream, src, indices, count, dst)`: dst row indices[i] = src row i (e.g. sparse
///   embedding updates written back into a host-resident table). With duplicate indices the
///   LAST occurrence wins, whole row, on every placement and policy.
/// The indexed side is a row source (device/row_source.hpp): a table_view, a tiered_view
/// (cache/tiered_table.cuh) or a caller's own type; the kernels are templates on it. Scatter
/// writes any writable row source (a tiered_write_source writes through both tiers). A decoding
/// source (encoded_source over owners/encoded_table.hpp, or a caller's own) is gathered into any
/// destination type its codec produces, decoding inside the copy (device/decode_row.cuh).
/// Each comes as `*_async` (enqueue only, caller workspace, capturable in a CUDA graph) and a
/// synchronous form. Indices are int32 or int64, device-visible. Checked by default: a negative or
/// too large index raises index_out_of_range naming the first bad position and its value; nothing
/// is read or written out of bounds (rejected gather rows are zero-filled).

#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/algorithms/move_rows.cuh>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/core/encoded_view.hpp>
#include <gnndirect/device/row_codec.hpp>
#include <gnndirect/device/row_source.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

template <class Index>
constexpr void check_index_type()
{
  static_assert(std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t>,
                "gnndirect gather/scatter: indices must be int32_t or int64_t");
}

template <class S, class D>
constexpr void check_element_types()
{
  static_assert(std::is_same_v<std::remove_const_t<S>, std::remove_const_t<D>>,
                "gnndirect gather/scatter: source and destination element types differ");
}

template <class Source>
constexpr void check_row_source()
{
  static_assert(is_row_source_v<Source>,
                "gnndirect gather: the source must model the row-source concept "
                "(device/row_source.hpp): element_type, num_rows, num_cols, placement, "
                "address_bits, locate, trivially copyable");
}

template <class Source>
constexpr void check_writable_source()
{
  static_assert(!is_decoding_source_v<Source>,
                "gnndirect scatter: the target is a decoding (encoded) source, which is read-only; "
                "re-encode the rows on the host (owners/encoded_table.hpp)");
  check_row_source<Source>();
  static_assert(!std::is_const_v<typename Source::element_type>,
                "gnndirect scatter: the target row source is read-only (a tiered_source / "
                "tiered_view or a table_view<const T>); scatter into a tier through "
                "tiered_table::write_source(), which writes the host row and its HBM copy");
}

/// The gather's source checks: a row source of the destination's element type, or a decoding
/// source whose codec produces it.
template <class Source, class D>
constexpr void check_gather_source()
{
  if constexpr (is_decoding_source_v<Source>) {
    static_assert(codec_decodes_to_v<typename Source::codec_type, D>,
                  "gnndirect gather: the source's codec cannot produce this destination element type "
                  "(the library's codecs decode to float, __half or __nv_bfloat16; codecs::identity<T> "
                  "only to T)");
  } else {
    check_row_source<Source>();
    check_element_types<typename Source::element_type, D>();
  }
}

/// True when a decoding source's codec produces D (plain sources: checked by check_gather_source);
/// the bulk calls instantiate nothing more when it is false, so the static_assert stands alone.
template <class Source, class D>
constexpr bool gather_source_fits()
{
  if constexpr (is_decoding_source_v<Source>) {
    return codec_decodes_to_v<typename Source::codec_type, D>;
  } else {
    return true;
  }
}

/// Bytes loaded per row of `source` (its encoded row for a decoding source, else the batch's).
template <class Source, class B>
std::size_t source_row_bytes(const Source& source, const table_view<B>& batch)
{
  if constexpr (is_decoding_source_v<Source>) {
    return static_cast<std::size_t>(source.encoded_row_bytes());
  } else {
    return batch.row_bytes();
  }
}

/// Slices of a gather workspace; the same carving sizes and fills it.
template <class Index>
struct gather_scratch {
  error_record* record{nullptr};
  Index* sorted_indices{nullptr};
  std::int64_t* positions_in{nullptr};
  std::int64_t* positions_out{nullptr};
  void* sort_temp{nullptr};
  std::size_t sort_temp_bytes{0};
  std::size_t total{0};
};

/// The error record always sits at the start of a gather workspace.
inline error_flag_ref gather_flag(workspace_view ws) noexcept
{
  return error_flag_ref{static_cast<error_record*>(ws.data)};
}

/// gather_check / scatter_check: synchronise and raise the record at the workspace's start.
inline void raise_rows_flag(cudaStream_t stream, workspace_view ws, std::int64_t table_rows, const char* call)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, std::string(call) + ": null workspace");
  check_device_accessible(ws.data, 0, workspace_alignment, "workspace");
  gather_flag(ws).throw_if_set(stream, "indices", table_rows);
}

/// Key bits the locality sort looks at: the indexed table's significant bits, or every bit when
/// checked scatter must also keep out-of-range indices apart from the valid ones (duplicate
/// detection compares neighbours of the sorted order).
template <class Index>
int sort_bits(std::int64_t rows, bool all_bits) noexcept
{
  return all_bits ? static_cast<int>(sizeof(Index) * 8) : significant_bits(rows);
}

template <class Index>
gather_scratch<Index> carve_gather_scratch(workspace_view ws, std::int64_t count, int key_bits,
                                           bool sorted)
{
  workspace_carver carver(ws);
  gather_scratch<Index> s;
  s.record = carver.take<error_record>(sizeof(error_record));
  if (sorted && count > 0) {
    auto const n = static_cast<std::size_t>(count);
    s.sorted_indices = carver.take<Index>(n * sizeof(Index));
    s.positions_in = carver.take<std::int64_t>(n * sizeof(std::int64_t));
    s.positions_out = carver.take<std::int64_t>(n * sizeof(std::int64_t));
    GNNDIRECT_CUDA_TRY(::cub::DeviceRadixSort::SortPairs(
      nullptr, s.sort_temp_bytes, static_cast<const Index*>(nullptr), static_cast<Index*>(nullptr),
      static_cast<const std::int64_t*>(nullptr), static_cast<std::int64_t*>(nullptr), count, 0,
      key_bits));
    s.sort_temp = carver.take<void>(s.sort_temp_bytes);
  }
  s.total = carver.used();
  return s;
}

/// How a move visits the indices, decided on the host from the resolved policy.
struct move_plan {
  gather_policy policy;  ///< resolved tuning
  bool sorted;           ///< visit in sorted (index, position) order
  bool all_key_bits;     ///< sort on every key bit
};

/// Resolves the policy and the visiting order. Scatter sorts unless the caller promises unique
/// indices: the stable sort puts the occurrences of an index in caller order, so only the last
/// one writes (no torn rows from concurrent writers).
template <move_direction Dir>
move_plan plan_move(const gather_policy& policy, memory_kind remote_kind, std::size_t row_bytes,
                    std::int64_t count)
{
  move_plan plan{select_gather_policy(policy, remote_kind, row_bytes, count), false, false};
  bool const wants_sort = plan.policy.order == locality_order::sorted ||
                          (Dir == move_direction::scatter && !plan.policy.unique_indices);
  plan.sorted = wants_sort && count > 1;
  plan.all_key_bits = Dir == move_direction::scatter && plan.policy.check_indices;
  return plan;
}

/// Shape checks shared by gather and scatter (before any launch). `batch` is the side with one
/// row per index.
template <move_direction Dir, class Source, class B>
void check_move_shapes(const Source& source, const table_view<B>& batch, const void* indices,
                       std::int64_t count)
{
  bool const gather = Dir == move_direction::gather;
  validate(batch, gather ? "dst" : "src");
  GNNDIRECT_EXPECTS(source.num_rows() >= 0 && source.num_cols() >= 0,
                    std::string(gather ? "src" : "dst") + ": negative shape");
  GNNDIRECT_EXPECTS(count >= 0, "negative index count " + std::to_string(count));
  GNNDIRECT_EXPECTS(count == 0 || indices != nullptr, "null indices with count > 0");
  std::int64_t const src_cols = gather ? source.num_cols() : batch.cols;
  std::int64_t const dst_cols = gather ? batch.cols : source.num_cols();
  GNNDIRECT_EXPECTS(src_cols == dst_cols, "src has " + std::to_string(src_cols) +
                                            " columns but dst has " + std::to_string(dst_cols));
  GNNDIRECT_EXPECTS(batch.rows == count, std::string(gather ? "dst" : "src") + " has " +
                                           std::to_string(batch.rows) + " rows but " +
                                           std::to_string(count) + " indices were given");
}

/// Where the index and batch arrays live and how they are aligned, once per call on the host
/// (a pageable or misaligned array would otherwise fault in the kernel and lose the context).
template <move_direction Dir, class Index, class B>
void check_move_pointers(const Index* indices, std::int64_t count, const table_view<B>& batch)
{
  check_device_accessible(indices, static_cast<std::size_t>(count) * sizeof(Index), alignof(Index), "indices");
  check_device_accessible(batch.data, 0, 1, Dir == move_direction::gather ? "dst" : "src");
}

/// Enqueues one gather or scatter into a workspace already checked (or owned: the synchronous
/// form), with the inputs already checked by the caller (check_move_shapes, check_move_pointers).
template <move_direction Dir, class Source, class Index, class B>
void enqueue_move(cudaStream_t stream, const Source& source, const Index* indices, std::int64_t count,
                  table_view<B> batch, workspace_view ws, const move_plan& plan,
                  const std::int64_t* device_count)
{
  std::int64_t const bound = source.num_rows();
  int const key_bits = sort_bits<Index>(bound, plan.all_key_bits);
  gather_scratch<Index> const scratch = carve_gather_scratch<Index>(ws, count, key_bits, plan.sorted);
  error_flag_ref const flag{scratch.record};
  flag.reset_async(stream);
  if (count == 0 || batch.row_bytes() == 0) { return; }

  move_rows_args<Index> args{};
  args.batch = batch_rows{reinterpret_cast<std::byte*>(const_cast<std::remove_const_t<B>*>(batch.data)),
                          static_cast<std::int64_t>(batch.stride_bytes())};
  args.indices = indices;
  args.count = count;
  args.bound = bound;
  args.row_bytes = batch.row_bytes();
  args.source_row_bytes = source_row_bytes(source, batch);
  args.checked = plan.policy.check_indices;
  args.flag = flag;
  args.device_count = device_count;
  if (plan.sorted) {
    iota_async(stream, scratch.positions_in, count);
    std::size_t temp_bytes = scratch.sort_temp_bytes;
    GNNDIRECT_CUDA_TRY(::cub::DeviceRadixSort::SortPairs(
      scratch.sort_temp, temp_bytes, indices, scratch.sorted_indices, scratch.positions_in,
      scratch.positions_out, count, 0, key_bits, stream));
    args.indices = scratch.sorted_indices;
    args.positions = scratch.positions_out;
    args.skip_superseded = Dir == move_direction::scatter;
  }
  if constexpr (is_decoding_source_v<Source>) {
    static_assert(Dir == move_direction::gather, "decoding sources are read-only");
    enqueue_decode_rows<Source, std::remove_const_t<B>>(stream, source, args, plan.policy);
  } else {
    enqueue_move_rows<Dir>(stream, source, args, plan.policy);
    if constexpr (Dir == move_direction::scatter && has_mirror<Source>::value) {
      // The second copy (a tier's HBM rows), in the same order: the last occurrence wins there too.
      enqueue_move_rows<Dir>(stream, source.mirror(), args, plan.policy);
    }
  }
  if (plan.policy.check_indices) { flag.capture_value_async(stream, indices); }
}

/// Checks one gather or scatter between `source` (indexed) and `batch` (one row per index) and
/// the caller's workspace, then enqueues it.
template <move_direction Dir, class Source, class Index, class B>
void move_rows_async(cudaStream_t stream, const Source& source, const Index* indices,
                     std::int64_t count, table_view<B> batch, workspace_view ws,
                     const gather_policy& policy, const std::int64_t* device_count = nullptr)
{
  check_move_shapes<Dir>(source, batch, indices, count);
  check_move_pointers<Dir>(indices, count, batch);
  move_plan const plan = plan_move<Dir>(policy, source.placement(), source_row_bytes(source, batch), count);
  GNNDIRECT_EXPECTS(ws.data != nullptr, "gather/scatter: null workspace (size it with "
                                        "gather_workspace_bytes or scatter_workspace_bytes)");
  check_device_accessible(ws.data, ws.bytes, workspace_alignment, "workspace");
  enqueue_move<Dir>(stream, source, indices, count, batch, ws, plan, device_count);
}

/// Workspace bytes of one gather/scatter (see gather_workspace_bytes).
template <move_direction Dir, class Index>
std::size_t scratch_bytes(std::int64_t count, std::int64_t table_rows, memory_kind table_kind,
                          std::size_t row_bytes, const gather_policy& policy)
{
  move_plan const plan = plan_move<Dir>(policy, table_kind, row_bytes, count);
  return carve_gather_scratch<Index>(workspace_view{}, count,
                                     sort_bits<Index>(table_rows, plan.all_key_bits), plan.sorted)
    .total;
}

/// Synchronous form: the inputs checked once, scratch from `mr` (stream-ordered, returned on
/// scope exit), then the index check (which synchronises) or a plain synchronisation.
template <move_direction Dir, class Source, class Index, class B>
void move_rows_sync(cudaStream_t stream, const Source& source, const Index* indices,
                    std::int64_t count, table_view<B> batch, const gather_policy& policy,
                    resource_ref mr)
{
  check_move_shapes<Dir>(source, batch, indices, count);
  check_move_pointers<Dir>(indices, count, batch);
  move_plan const plan = plan_move<Dir>(policy, source.placement(), source_row_bytes(source, batch), count);
  buffer<std::byte> const scratch(
    carve_gather_scratch<Index>(workspace_view{}, count, sort_bits<Index>(source.num_rows(), plan.all_key_bits),
                                plan.sorted)
      .total,
    stream, mr);
  workspace_view const ws{scratch.data(), scratch.bytes()};  // its own scratch: nothing to check
  enqueue_move<Dir>(stream, source, indices, count, batch, ws, plan, nullptr);
  if (policy.check_indices) {
    gather_flag(ws).throw_if_set(stream, "indices", source.num_rows());
  } else {
    detail::synchronize(stream);
  }
}

}  // namespace detail

/// Workspace bytes gather_async needs for `count` indices into a table of `table_rows` rows held
/// in `table_kind`, with `row_bytes` bytes per row and this policy. Pure host computation apart
/// from CUB's sort sizing. @throws invalid_argument (policy), cuda_error.
/// @param count, table_rows, table_kind, row_bytes, policy as described  @return the bytes
/// @tparam Index int32 or int64 row index type
template <class Index>
std::size_t gather_workspace_bytes(std::int64_t count, std::int64_t table_rows, memory_kind table_kind,
                                   std::size_t row_bytes, const gather_policy& policy = {})
{
  detail::check_index_type<Index>();
  return detail::scratch_bytes<detail::move_direction::gather, Index>(count, table_rows, table_kind,
                                                                      row_bytes, policy);
}

/// Workspace bytes scatter_async needs (as gather_workspace_bytes; scatter also sorts to apply
/// the last-occurrence rule unless policy.unique_indices). @throws invalid_argument, cuda_error.
/// @param count, table_rows, table_kind, row_bytes, policy as gather_workspace_bytes
/// @return the bytes
/// @tparam Index int32 or int64 row index type
template <class Index>
std::size_t scatter_workspace_bytes(std::int64_t count, std::int64_t table_rows, memory_kind table_kind,
                                    std::size_t row_bytes, const gather_policy& policy = {})
{
  detail::check_index_type<Index>();
  return detail::scratch_bytes<detail::move_direction::scatter, Index>(count, table_rows, table_kind,
                                                                       row_bytes, policy);
}

/// Enqueues dst.row(i) = src.row(indices[i]) for i in [0, count) on `stream`; returns at once.
///
/// @tparam Source the row source type  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream stream to enqueue on  @param count number of indices (rows of dst)
/// @param src a row source: any type modelling device/row_source.hpp (the table_view overload
///        below wraps a plain table)  @param indices device-visible int32/int64 array
/// @param dst count x src.num_cols() table, any device-visible placement (normally device memory)
/// @param ws scratch of at least gather_workspace_bytes(...) bytes; reused across calls
/// @param policy tuning; defaults chosen by select_gather_policy from src.placement() and row size
/// @param device_count optional device-visible count read by the kernel: only indices
///        [0, *device_count) are gathered (*device_count <= count), rows of dst past it are not
///        written. `count` is then the bound that sizes dst, the workspace and the launch, so a
///        batch whose size is only known on the device (sampled input nodes) needs no host read.
///
/// With checking on, call gather_check(stream, ws, src.num_rows()) after the gather to raise the
/// error. Capturable in a CUDA graph. @throws invalid_argument (shapes, workspace) before any launch.
template <class Source, class D, class Index>
void gather_async(cudaStream_t stream, const Source& src, const Index* indices, std::int64_t count,
                  table_view<D> dst, workspace_view ws, const gather_policy& policy = {},
                  const std::int64_t* device_count = nullptr)
{
  detail::check_gather_source<Source, D>();
  detail::check_index_type<Index>();
  if constexpr (detail::gather_source_fits<Source, D>()) {
    if (device_count != nullptr) { detail::check_device_accessible(device_count, 8, 8, "device_count"); }
    detail::move_rows_async<detail::move_direction::gather>(stream, src, indices, count, dst, ws, policy,
                                                            device_count);
  }
}

/// gather_async from a plain table (any placement). As above.
/// @tparam S source element type (may be const)  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, ws, policy, device_count as above
template <class S, class D, class Index>
void gather_async(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
                  table_view<D> dst, workspace_view ws, const gather_policy& policy = {},
                  const std::int64_t* device_count = nullptr)
{
  validate(src, "src");
  detail::check_device_accessible(src.data, 0, 1, "src");
  gather_async(stream, table_source<const S>(src), indices, count, dst, ws, policy, device_count);
}

/// Enqueues dst.row(indices[i]) = src.row(i) for i in [0, count); returns at once. With duplicate
/// indices the last occurrence wins, whole row (a stable sort puts the occurrences in caller
/// order and only the last writes; policy.unique_indices skips that sort for callers who know
/// their indices are unique). Parameters as gather_async with the roles exchanged: src has count
/// rows, dst is the indexed table (any placement); size `ws` with scatter_workspace_bytes and call
/// scatter_check(stream, ws, dst.rows) afterwards when checking. Capturable.
/// @tparam S source element type (may be const)  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, ws, policy as described
template <class S, class D, class Index>
void scatter_async(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
                   table_view<D> dst, workspace_view ws, const gather_policy& policy = {})
{
  detail::check_index_type<Index>();
  detail::check_element_types<S, D>();
  detail::check_writable_source<table_source<D>>();
  validate(dst, "dst");
  detail::check_device_accessible(dst.data, 0, 1, "dst");
  detail::move_rows_async<detail::move_direction::scatter>(stream, table_source<D>(dst), indices, count,
                                                           src, ws, policy);
}

/// Enqueues scatter into any writable row source `dst` (non-const element_type; e.g.
/// tiered_table::write_source(), which writes the host row and, when the row is cached, its HBM
/// copy; or a caller's own). As the table_view overload above; a source with a mirror() is written
/// twice, in the same order. static_assert when `dst` is read-only.
/// @tparam S source element type  @tparam Target the writable row source type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, ws, policy as above
template <class S, class Target, class Index>
void scatter_async(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
                   const Target& dst, workspace_view ws, const gather_policy& policy = {})
{
  detail::check_writable_source<Target>();
  detail::check_index_type<Index>();
  detail::check_element_types<S, typename Target::element_type>();
  detail::move_rows_async<detail::move_direction::scatter>(stream, dst, indices, count, src, ws, policy);
}

/// Synchronises `stream` and raises the index error recorded in `ws` by the last checked
/// gather_async (any source, decoding ones too) that used it.
/// @param stream the stream it ran on  @param ws the workspace it used
/// @param table_rows the indexed table's rows (for the message)
/// @throws index_out_of_range naming indices[position] = value; invalid_argument (null or
/// misaligned workspace); cuda_error. Not capturable.
inline void gather_check(cudaStream_t stream, workspace_view ws, std::int64_t table_rows)
{
  detail::raise_rows_flag(stream, ws, table_rows, "gather_check");
}

/// Synchronises `stream` and raises the index error recorded in `ws` by the last checked
/// scatter_async that used it. Parameters and throws as gather_check.
/// @param stream the stream it ran on  @param ws the workspace it used
/// @param table_rows the indexed (target) table's rows (for the message)
inline void scatter_check(cudaStream_t stream, workspace_view ws, std::int64_t table_rows)
{
  detail::raise_rows_flag(stream, ws, table_rows, "scatter_check");
}

/// Gathers and synchronises: dst.row(i) = src.row(indices[i]) from any row source. Scratch comes
/// stream-ordered from `mr` (default: the device's default pool); use gather_async with a
/// workspace on hot paths. @throws invalid_argument (shapes), index_out_of_range (bad index; no
/// out-of-bounds access happened and the CUDA context stays usable), allocation_error (scratch),
/// cuda_error.
/// @tparam Source the row source type  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, policy as gather_async  @param mr scratch resource
template <class Source, class D, class Index>
void gather(cudaStream_t stream, const Source& src, const Index* indices, std::int64_t count,
            table_view<D> dst, const gather_policy& policy = {}, resource_ref mr = {})
{
  detail::check_gather_source<Source, D>();
  detail::check_index_type<Index>();
  if constexpr (detail::gather_source_fits<Source, D>()) {
    detail::move_rows_sync<detail::move_direction::gather>(stream, src, indices, count, dst, policy, mr);
  }
}

/// gather() from a plain table (any placement). As above.
/// @tparam S source element type (may be const)  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, policy, mr as above
template <class S, class D, class Index>
void gather(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
            table_view<D> dst, const gather_policy& policy = {}, resource_ref mr = {})
{
  validate(src, "src");
  detail::check_device_accessible(src.data, 0, 1, "src");
  gather(stream, table_source<const S>(src), indices, count, dst, policy, mr);
}

/// Checks an encoded view before any launch: non-negative shape, a stride that holds a row's
/// codes, non-null data and metadata when non-empty, both device-visible. Host only;
/// asks the driver where the pointers live, launches nothing.
/// @tparam Codec the view's codec  @param view the view
/// @param name used in the error message (e.g. "src")  @throws invalid_argument naming `name`
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

/// Decoding gather from an encoded table (any placement), as gather_async: dst row i = row
/// indices[i] decoded by the view's codec into D (static_assert when the codec cannot produce D).
/// Size `ws` with gather_workspace_bytes(count, src.rows, src.kind, src.load_bytes()).
/// @throws as gather_async; invalid_argument for a view with a null metadata array (codecs that
/// keep metadata) or codes not aligned to one code.
/// @tparam Codec the view's codec  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, ws, policy, device_count as the first gather_async
template <class Codec, class D, class Index>
void gather_async(cudaStream_t stream, const encoded_view<Codec>& src, const Index* indices, std::int64_t count,
                  table_view<D> dst, workspace_view ws, const gather_policy& policy = {},
                  const std::int64_t* device_count = nullptr)
{
  validate(src, "src");
  gather_async(stream, encoded_source<Codec>(src), indices, count, dst, ws, policy, device_count);
}

/// Synchronous decoding gather from an encoded table (scratch from `mr`). @throws as gather().
/// @tparam Codec the view's codec  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, policy, mr as gather()
template <class Codec, class D, class Index>
void gather(cudaStream_t stream, const encoded_view<Codec>& src, const Index* indices, std::int64_t count,
            table_view<D> dst, const gather_policy& policy = {}, resource_ref mr = {})
{
  validate(src, "src");
  gather(stream, encoded_source<Codec>(src), indices, count, dst, policy, mr);
}

/// Scatters and synchronises: dst.row(indices[i]) = src.row(i), the last occurrence of a
/// duplicate index winning. Scratch from `mr`. @throws as gather().
/// @tparam S source element type  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, policy as scatter_async  @param mr scratch resource
template <class S, class D, class Index>
void scatter(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
             table_view<D> dst, const gather_policy& policy = {}, resource_ref mr = {})
{
  detail::check_index_type<Index>();
  detail::check_element_types<S, D>();
  detail::check_writable_source<table_source<D>>();
  validate(dst, "dst");
  detail::check_device_accessible(dst.data, 0, 1, "dst");
  detail::move_rows_sync<detail::move_direction::scatter>(stream, table_source<D>(dst), indices, count,
                                                          src, policy, mr);
}

/// Scatters into any writable row source and synchronises (see scatter_async). @throws as gather().
/// @tparam S source element type  @tparam Target the writable row source type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, policy as scatter_async  @param mr scratch resource
template <class S, class Target, class Index>
void scatter(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
             const Target& dst, const gather_policy& policy = {}, resource_ref mr = {})
{
  detail::check_writable_source<Target>();
  detail::check_index_type<Index>();
  detail::check_element_types<S, typename Target::element_type>();
  detail::move_rows_sync<detail::move_direction::scatter>(stream, dst, indices, count, src, policy, mr);
}

GNNDIRECT_NAMESPACE_END
