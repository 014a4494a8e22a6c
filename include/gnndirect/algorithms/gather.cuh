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
#include <gnndirect/detail/algorithms/gather.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/core/encoded_view.hpp>
#include <gnndirect/device/row_codec.hpp>
#include <gnndirect/device/row_source.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// Workspace bytes gather_async needs for `count` indices into a table of `table_rows` rows held
/// in `table_kind`, with `row_bytes` bytes per row and this policy. Pure host computation apart
/// from CUB's sort sizing. @throws invalid_argument (policy), cuda_error.
/// @param count, table_rows, table_kind, row_bytes, policy as described  @return the bytes
/// @tparam Index int32 or int64 row index type
template <class Index>
std::size_t gather_workspace_bytes(std::int64_t count, std::int64_t table_rows, memory_kind table_kind,
                                   std::size_t row_bytes, const gather_policy& policy = {});

/// Workspace bytes scatter_async needs (as gather_workspace_bytes; scatter also sorts to apply
/// the last-occurrence rule unless policy.unique_indices). @throws invalid_argument, cuda_error.
/// @param count, table_rows, table_kind, row_bytes, policy as gather_workspace_bytes
/// @return the bytes
/// @tparam Index int32 or int64 row index type
template <class Index>
std::size_t scatter_workspace_bytes(std::int64_t count, std::int64_t table_rows, memory_kind table_kind,
                                    std::size_t row_bytes, const gather_policy& policy = {});

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
                  const std::int64_t* device_count = nullptr);

/// gather_async from a plain table (any placement). As above.
/// @tparam S source element type (may be const)  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, ws, policy, device_count as above
template <class S, class D, class Index>
void gather_async(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
                  table_view<D> dst, workspace_view ws, const gather_policy& policy = {},
                  const std::int64_t* device_count = nullptr);

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
                   table_view<D> dst, workspace_view ws, const gather_policy& policy = {});

/// Enqueues scatter into any writable row source `dst` (non-const element_type; e.g.
/// tiered_table::write_source(), which writes the host row and, when the row is cached, its HBM
/// copy; or a caller's own). As the table_view overload above; a source with a mirror() is written
/// twice, in the same order. static_assert when `dst` is read-only.
/// @tparam S source element type  @tparam Target the writable row source type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, ws, policy as above
template <class S, class Target, class Index>
void scatter_async(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
                   const Target& dst, workspace_view ws, const gather_policy& policy = {});

/// Synchronises `stream` and raises the index error recorded in `ws` by the last checked
/// gather_async (any source, decoding ones too) that used it.
/// @param stream the stream it ran on  @param ws the workspace it used
/// @param table_rows the indexed table's rows (for the message)
/// @throws index_out_of_range naming indices[position] = value; invalid_argument (null or
/// misaligned workspace); cuda_error. Not capturable.
inline void gather_check(cudaStream_t stream, workspace_view ws, std::int64_t table_rows);

/// Synchronises `stream` and raises the index error recorded in `ws` by the last checked
/// scatter_async that used it. Parameters and throws as gather_check.
/// @param stream the stream it ran on  @param ws the workspace it used
/// @param table_rows the indexed (target) table's rows (for the message)
inline void scatter_check(cudaStream_t stream, workspace_view ws, std::int64_t table_rows);

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
            table_view<D> dst, const gather_policy& policy = {}, resource_ref mr = {});

/// gather() from a plain table (any placement). As above.
/// @tparam S source element type (may be const)  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, policy, mr as above
template <class S, class D, class Index>
void gather(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
            table_view<D> dst, const gather_policy& policy = {}, resource_ref mr = {});

/// Checks an encoded view before any launch: non-negative shape, a stride that holds a row's
/// codes, non-null data and metadata when non-empty, both device-visible. Host only;
/// asks the driver where the pointers live, launches nothing.
/// @tparam Codec the view's codec  @param view the view
/// @param name used in the error message (e.g. "src")  @throws invalid_argument naming `name`
template <class Codec>
void validate(const encoded_view<Codec>& view, const char* name);

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
                  const std::int64_t* device_count = nullptr);

/// Synchronous decoding gather from an encoded table (scratch from `mr`). @throws as gather().
/// @tparam Codec the view's codec  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, policy, mr as gather()
template <class Codec, class D, class Index>
void gather(cudaStream_t stream, const encoded_view<Codec>& src, const Index* indices, std::int64_t count,
            table_view<D> dst, const gather_policy& policy = {}, resource_ref mr = {});

/// Scatters and synchronises: dst.row(indices[i]) = src.row(i), the last occurrence of a
/// duplicate index winning. Scratch from `mr`. @throws as gather().
/// @tparam S source element type  @tparam D destination element type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, policy as scatter_async  @param mr scratch resource
template <class S, class D, class Index>
void scatter(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
             table_view<D> dst, const gather_policy& policy = {}, resource_ref mr = {});

/// Scatters into any writable row source and synchronises (see scatter_async). @throws as gather().
/// @tparam S source element type  @tparam Target the writable row source type
/// @tparam Index int32 or int64 index type
/// @param stream, src, indices, count, dst, policy as scatter_async  @param mr scratch resource
template <class S, class Target, class Index>
void scatter(cudaStream_t stream, table_view<S> src, const Index* indices, std::int64_t count,
             const Target& dst, const gather_policy& policy = {}, resource_ref mr = {});

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/gather.inl>
