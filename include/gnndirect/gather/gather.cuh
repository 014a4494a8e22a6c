#pragma once
/// @file gather.cuh
/// @brief Bulk gather and scatter of table rows selected by an index list, from/to any placement,
/// at the speed of the host link, with no CPU work.
///
/// - `gather(stream, src, indices, count, dst)`: dst row i = src row indices[i].
/// - `scatter(stream, src, indices, count, dst)`: dst row indices[i] = src row i (e.g. sparse
///   embedding updates written back into a host-resident table).
/// Each comes as `*_async` (enqueue only, caller workspace, capturable in a CUDA graph) and a
/// synchronous form. Indices are int32 or int64, device-visible. Checked by default: a negative or
/// too large index raises index_out_of_range naming the first bad position and its value; nothing
/// is read or written out of bounds (rejected gather rows are zero-filled).

#include <gnndirect/detail/error_flag.cuh>
#include <gnndirect/detail/gather/move_rows.cuh>
#include <gnndirect/error.hpp>
#include <gnndirect/gather/gather_policy.hpp>
#include <gnndirect/host_wait.hpp>
#include <gnndirect/memory/workspace.hpp>
#include <gnndirect/views/table_view.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace gnndirect {
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
  static_assert(std::is_same_v<std::remove_const_t<S>, D>,
                "gnndirect gather/scatter: source and destination element types differ");
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

template <class Index>
gather_scratch<Index> carve_gather_scratch(workspace_view ws, std::int64_t count, std::int64_t rows,
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
      significant_bits(rows)));
    s.sort_temp = carver.take<void>(s.sort_temp_bytes);
  }
  s.total = carver.used();
  return s;
}

/// Shape checks shared by gather and scatter (before any launch). `batch` is the side with one
/// row per index, `table` the indexed side.
template <class S, class D>
void check_move_shapes(const table_view<S>& src, const table_view<D>& dst, const void* indices,
                       std::int64_t count, bool gather)
{
  validate(src, "src");
  validate(dst, "dst");
  GNNDIRECT_EXPECTS(count >= 0, "negative index count " + std::to_string(count));
  GNNDIRECT_EXPECTS(count == 0 || indices != nullptr, "null indices with count > 0");
  GNNDIRECT_EXPECTS(src.cols == dst.cols, "src has " + std::to_string(src.cols) +
                                            " columns but dst has " + std::to_string(dst.cols));
  std::int64_t const batch_rows = gather ? dst.rows : src.rows;
  GNNDIRECT_EXPECTS(batch_rows == count, std::string(gather ? "dst" : "src") + " has " +
                                           std::to_string(batch_rows) + " rows but " +
                                           std::to_string(count) + " indices were given");
}

template <class Index, class S, class D>
void move_rows_async(cudaStream_t stream, table_view<S> src, const Index* indices,
                     std::int64_t count, table_view<D> dst, workspace_view ws, gather_policy policy,
                     move_direction direction, cache_tier tier = {})
{
  bool const gather = direction == move_direction::gather;
  check_move_shapes(src, dst, indices, count, gather);
  std::int64_t const bound = gather ? src.rows : dst.rows;
  memory_kind const remote_kind = gather ? src.kind : dst.kind;
  policy = select_gather_policy(policy, remote_kind, dst.row_bytes(), count);
  bool const sorted = policy.order == locality_order::sorted && count > 1;
  GNNDIRECT_EXPECTS(ws.data != nullptr, "gather/scatter: null workspace (size it with "
                                        "gather_workspace_bytes)");
  gather_scratch<Index> const scratch = carve_gather_scratch<Index>(ws, count, bound, sorted);
  error_flag_ref const flag{scratch.record};
  flag.reset_async(stream);
  if (count == 0 || dst.row_bytes() == 0) { return; }

  move_rows_args<Index> args{};
  args.src = reinterpret_cast<const std::byte*>(src.data);
  args.src_stride = static_cast<std::int64_t>(src.stride_bytes());
  args.dst = reinterpret_cast<std::byte*>(dst.data);
  args.dst_stride = static_cast<std::int64_t>(dst.stride_bytes());
  args.indices = indices;
  args.count = count;
  args.bound = bound;
  args.row_bytes = dst.row_bytes();
  args.direction = direction;
  args.flag = flag;
  args.tier = tier;
  if (sorted) {
    iota_async(stream, scratch.positions_in, count);
    std::size_t temp_bytes = scratch.sort_temp_bytes;
    GNNDIRECT_CUDA_TRY(::cub::DeviceRadixSort::SortPairs(
      scratch.sort_temp, temp_bytes, indices, scratch.sorted_indices, scratch.positions_in,
      scratch.positions_out, count, 0, significant_bits(bound), stream));
    args.indices = scratch.sorted_indices;
    args.positions = scratch.positions_out;
  }
  enqueue_move_rows(stream, args, policy);
  if (policy.check_indices) { flag.capture_value_async(stream, indices); }
}

/// Workspace bytes of one gather/scatter (see gather_workspace_bytes).
template <class Index>
std::size_t scratch_bytes(std::int64_t count, std::int64_t table_rows, memory_kind table_kind,
                          std::size_t row_bytes, const gather_policy& policy)
{
  gather_policy const resolved = select_gather_policy(policy, table_kind, row_bytes, count);
  bool const sorted = resolved.order == locality_order::sorted && count > 1;
  return carve_gather_scratch<Index>(workspace_view{}, count, table_rows, sorted).total;
}

/// Stream-ordered scratch allocation for the synchronous calls (freed on scope exit).
class stream_scratch {
 public:
  stream_scratch(cudaStream_t stream, std::size_t bytes) : stream_(stream)
  {
    GNNDIRECT_CUDA_TRY(cudaMallocAsync(&ws_.data, bytes, stream));
    ws_.bytes = bytes;
  }
  stream_scratch(const stream_scratch&) = delete;
  stream_scratch& operator=(const stream_scratch&) = delete;
  ~stream_scratch() { GNNDIRECT_CUDA_TRY_NOTHROW(cudaFreeAsync(ws_.data, stream_)); }
  workspace_view view() const noexcept { return ws_; }

 private:
  cudaStream_t stream_;
  workspace_view ws_{};
};

template <class Index, class S, class D>
void move_rows_sync(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
                    table_view<D> dst, const gather_policy& policy, move_direction direction,
                    cache_tier tier = {})
{
  bool const gather = direction == move_direction::gather;
  check_move_shapes(src, dst, indices, count, gather);
  std::int64_t const bound = gather ? src.rows : dst.rows;
  stream_scratch const scratch(
    stream, scratch_bytes<Index>(count, bound, gather ? src.kind : dst.kind, dst.row_bytes(), policy));
  move_rows_async(stream, src, indices, count, dst, scratch.view(), policy, direction, tier);
  if (policy.check_indices) {
    gather_flag(scratch.view()).throw_if_set(stream, "indices", bound);
  } else {
    detail::synchronize(stream);
  }
}

}  // namespace detail

/// Workspace bytes gather_async/scatter_async need for `count` indices into a table of
/// `table_rows` rows held in `table_kind`, with `row_bytes` bytes per row and this policy.
/// Queries the current device (CUB's sort sizing). @throws invalid_argument, cuda_error.
template <class Index>
std::size_t gather_workspace_bytes(std::int64_t count, std::int64_t table_rows, memory_kind table_kind,
                                   std::size_t row_bytes, const gather_policy& policy = {})
{
  detail::check_index_type<Index>();
  return detail::scratch_bytes<Index>(count, table_rows, table_kind, row_bytes, policy);
}

/// Enqueues dst.row(i) = src.row(indices[i]) for i in [0, count) on `stream`; returns at once.
///
/// @param src table in any placement (device-visible view)  @param indices device-visible
/// @param dst count x src.cols table, any device-visible placement (normally device memory)
/// @param ws scratch of at least gather_workspace_bytes(...) bytes; reused across calls
/// @param policy tuning; defaults chosen by select_gather_policy from src.kind and row size
/// With checking on, call gather_check(stream, ws, src.rows) after the gather to raise the error.
/// Capturable in a CUDA graph. @throws invalid_argument (shapes, workspace) before any launch.
template <class S, class D, class Index>
void gather_async(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
                  table_view<D> dst, workspace_view ws, const gather_policy& policy = {})
{
  detail::check_index_type<Index>();
  detail::check_element_types<S, D>();
  detail::move_rows_async(stream, src, indices, count, dst, ws, policy, detail::move_direction::gather);
}

/// Enqueues dst.row(indices[i]) = src.row(i) for i in [0, count); returns at once. With duplicate
/// indices one of the source rows wins (which one is unspecified). Parameters as gather_async,
/// with the roles of src (count rows) and dst (indexed table, any placement) exchanged; call
/// gather_check(stream, ws, dst.rows) afterwards when checking. Capturable.
template <class S, class D, class Index>
void scatter_async(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
                   table_view<D> dst, workspace_view ws, const gather_policy& policy = {})
{
  detail::check_index_type<Index>();
  detail::check_element_types<S, D>();
  detail::move_rows_async(stream, src, indices, count, dst, ws, policy, detail::move_direction::scatter);
}

/// Synchronises `stream` and raises the index error recorded in `ws` by the last checked
/// gather_async/scatter_async. @param table_rows the indexed table's rows (for the message)
/// @throws index_out_of_range naming indices[position] = value; cuda_error. Not capturable.
inline void gather_check(cudaStream_t stream, workspace_view ws, std::int64_t table_rows)
{
  GNNDIRECT_EXPECTS(ws.data != nullptr, "gather_check: null workspace");
  detail::gather_flag(ws).throw_if_set(stream, "indices", table_rows);
}

/// Gathers and synchronises: dst.row(i) = src.row(indices[i]). Allocates its scratch
/// stream-ordered (cudaMallocAsync); use gather_async with a workspace on hot paths.
/// @throws invalid_argument (shapes), index_out_of_range (bad index; no out-of-bounds access
/// happened and the CUDA context stays usable), cuda_error.
template <class S, class D, class Index>
void gather(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
            table_view<D> dst, const gather_policy& policy = {})
{
  detail::check_index_type<Index>();
  detail::check_element_types<S, D>();
  detail::move_rows_sync(stream, src, indices, count, dst, policy, detail::move_direction::gather);
}

/// Scatters and synchronises: dst.row(indices[i]) = src.row(i). As gather().
template <class S, class D, class Index>
void scatter(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
             table_view<D> dst, const gather_policy& policy = {})
{
  detail::check_index_type<Index>();
  detail::check_element_types<S, D>();
  detail::move_rows_sync(stream, src, indices, count, dst, policy, detail::move_direction::scatter);
}

}  // namespace gnndirect
