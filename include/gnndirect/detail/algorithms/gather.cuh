#pragma once
/// @file gather.cuh
/// @brief Internals of algorithms/gather.cuh: the compile-time checks of sources and indices, the
/// workspace carving, the visiting plan and the host-side orchestration of a gather or scatter
/// around the kernels of move_rows.cuh (not part of the API).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/gather_policy.hpp>
#include <gnndirect/core/gather_tuning.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/core/workspace.hpp>
#include <gnndirect/detail/algorithms/move_rows.cuh>
#include <gnndirect/detail/core/bits.hpp>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/launch.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/device/row_codec.hpp>
#include <gnndirect/device/row_source.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Rejects index types other than int32 and int64 at compile time.
template <class Index>
constexpr void check_index_type()
{
  static_assert(std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t>,
                "gnndirect gather/scatter: indices must be int32_t or int64_t");
}

/// Rejects a move between tables of different element types at compile time.
template <class S, class D>
constexpr void check_element_types()
{
  static_assert(std::is_same_v<std::remove_const_t<S>, std::remove_const_t<D>>,
                "gnndirect gather/scatter: source and destination element types differ");
}

/// Rejects a source that does not model the row-source concept, with a readable message.
template <class Source>
constexpr void check_row_source()
{
  static_assert(is_row_source_v<Source>,
                "gnndirect gather: the source must model the row-source concept "
                "(device/row_source.hpp): element_type, num_rows, num_cols, placement, "
                "address_bits, locate, trivially copyable");
}

/// Rejects a scatter target that is read-only (decoding, or const elements) at compile time.
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

/// Decoded bytes per loaded byte of a gather from `Source` into `D` rows: the codec's expansion
/// for a decoding source (4-bit into fp32: 8), 1 for a plain copy.
template <class Source, class D>
constexpr int decode_expansion()
{
  if constexpr (is_decoding_source_v<Source>) {
    constexpr int expansion = decoded_bytes_per_load<typename Source::codec_type, D, 16> / 16;
    return expansion < 1 ? 1 : expansion;
  } else {
    return 1;
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

/// Carves (or, with a null workspace, sizes) the slices of a gather or scatter of `count` indices.
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
                    std::int64_t count, int decode_expansion = 1)
{
  // The device is left unknown: a plain call keeps the defaults measured on the H200; a caller
  // tuning for its machine passes a policy resolved with its ceilings (every knob explicit,
  // which this selection keeps).
  move_plan plan{select_gather_policy(policy, gather_device{}, gather_source{remote_kind, row_bytes, count, decode_expansion}),
                 false, false};
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
  if constexpr (is_decoding_source_v<Source>) {  // before the first enqueue (the record's reset)
    check_decode_alignment<Source, std::remove_const_t<B>>(source, source_row_bytes(source, batch));
  }
  move_plan const plan = plan_move<Dir>(policy, source.placement(), source_row_bytes(source, batch), count,
                                        decode_expansion<Source, std::remove_const_t<B>>());
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
  if constexpr (is_decoding_source_v<Source>) {  // before the first enqueue (the record's reset)
    check_decode_alignment<Source, std::remove_const_t<B>>(source, source_row_bytes(source, batch));
  }
  move_plan const plan = plan_move<Dir>(policy, source.placement(), source_row_bytes(source, batch), count,
                                        decode_expansion<Source, std::remove_const_t<B>>());
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
GNNDIRECT_NAMESPACE_END
