#pragma once
/// @file relabel.cuh
/// @brief GPU relabelling of one sampled layer to local ids, in the host reference's order, with
/// every size on the device (no host round trip; internal).
///
/// Local order: the dst nodes first (in order), then every other sampled neighbour in order of
/// first appearance in the concatenated per-dst samples. The sampler leaves its output in
/// fixed-stride slots (dst i owns slots [i * fanout, i * fanout + counts[i])); slot order is the
/// concatenated order, so we relabel straight from the slots. Method, over upper-bound-sized
/// arrays whose sizes the host knows: every occurrence gets a position (dst i: i; slot s:
/// dst_bound + s) and its id, or a sentinel id (num_nodes, which sorts after every valid id) when
/// it is unused (a dst row past num_dst, an empty slot) or not a valid node id (a sampled id
/// outside the graph is also recorded in an error record, so a corrupt graph is reported rather
/// than silently dropped). A stable radix
/// sort of the (id, position) pairs over the whole bound makes each id's run start at its first
/// position; run heads are marked, each element finds its head with a max-scan, first appearances
/// of new ids are ranked with a sum-scan over slot positions (that is "order of first
/// appearance"), and the last kernel writes local ids, src nodes and the device-side counts.
/// The public primitive (algorithms/relabel.cuh) and sample_blocks_async both run this code.
/// Also the workspace carving of algorithms/relabel.cuh's relabel_async.

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/bounded_count.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/sampled_views.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/detail/core/workspace.hpp>
#include <gnndirect/detail/core/bits.hpp>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Upper-bound sizes and device-side inputs of one relabelling.
template <class Offset, class Index>
struct relabel_input {
  const Index* dst{nullptr};             ///< dst ids (first num_dst valid)
  bounded_count num_dst;                 ///< dst rows (bound: dst_bound)
  const Index* slot_neighbors{nullptr};  ///< dst_bound * fanout slots
  const Offset* slot_edge_ids{nullptr};  ///< slots of edge ids, or null
  const std::int64_t* counts{nullptr};   ///< dst_bound sampled counts (0 past num_dst)
  const std::int64_t* offsets{nullptr};  ///< dst_bound + 1: scanned counts
  int fanout{0};
  std::int64_t num_nodes{0};             ///< valid ids are [0, num_nodes); num_nodes is the sentinel
  error_flag_ref bad_neighbors;          ///< records the first sampled id outside the graph
  /// Records the first dst id outside the graph as (row, id), or null (sample_blocks: its
  /// sampling kernel checks the seeds, and later layers' dst are its own src nodes).
  error_flag_ref bad_dst;
  /// Records the first row whose count or offsets cannot be the slots' (count outside [0, fanout],
  /// or offsets[i], offsets[i + 1] not bracketing it inside [0, slot_bound]) as (row, count), or
  /// null (sample_blocks: it computed the counts and offsets itself). Checked either way.
  error_flag_ref bad_counts;

  GNNDIRECT_HOST_DEVICE std::int64_t dst_bound() const noexcept { return num_dst.bound; }
  GNNDIRECT_HOST_DEVICE std::int64_t slot_bound() const noexcept { return num_dst.bound * fanout; }
  GNNDIRECT_HOST_DEVICE std::int64_t items() const noexcept { return dst_bound() + slot_bound(); }
};

/// Caller-owned outputs of one relabelling (device-visible).
template <class Offset, class Index>
struct relabel_output {
  Index* src_nodes{nullptr};        ///< num_dst + new nodes
  Index* indices{nullptr};          ///< local id of each sampled edge (compact, offsets order)
  Offset* edge_ids{nullptr};        ///< edge id of each sampled edge (compact), or null
  std::int64_t* num_src{nullptr};   ///< device scalar
  std::int64_t* num_edges{nullptr}; ///< device scalar
};

/// Scratch of one relabelling, all sized by bounds (see relabel_scratch_layout).
template <class Index>
struct relabel_scratch {
  Index* ids_in{nullptr};
  Index* ids_sorted{nullptr};
  std::int64_t* positions_in{nullptr};  ///< reused as the max-scan input after the sort
  std::int64_t* positions_sorted{nullptr};
  std::int64_t* head_of{nullptr};
  std::int64_t* first_seen{nullptr};    ///< one per slot
  std::int64_t* new_rank{nullptr};      ///< one per slot
  void* cub_storage{nullptr};
  std::size_t cub_bytes{0};
};

/// The id of an occurrence, or the sentinel for an unused slot / row or an id outside the graph
/// (which the check reports; mapping it to the sentinel keeps every write in bounds).
template <class Index>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE Index valid_or_sentinel(Index id, bool used,
                                                               std::int64_t num_nodes) noexcept
{
  bool const valid = used && id >= 0 && static_cast<std::int64_t>(id) < num_nodes;
  return valid ? id : static_cast<Index>(num_nodes);
}

/// The sampled edges of dst row i (< num_dst) when its count and offsets are those of the slots:
/// 0 <= counts[i] <= fanout and offsets[i], offsets[i + 1] = offsets[i] + counts[i] inside
/// [0, slot_bound]; else -1 (the row is used as empty, so no write through it leaves the
/// outputs). The caller's counts and offsets are not trusted: a wrong fanout or a faulty sampler
/// must not write past indices / edge_ids.
template <class Offset, class Index>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE std::int64_t checked_row_count(const relabel_input<Offset, Index>& in,
                                                                      std::int64_t i) noexcept
{
  std::int64_t const count = in.counts[i];
  std::int64_t const begin = in.offsets[i];
  bool const fits = count >= 0 && count <= in.fanout && begin >= 0 && begin <= in.slot_bound() - count &&
                    in.offsets[i + 1] - begin == count;
  return fits ? count : -1;
}

/// Fills the (id, position) occurrences over the whole bound and compacts the sampled edge ids
/// into CSR order (coalesced reads of the slots).
template <class Offset, class Index>
GNNDIRECT_KERNEL void fill_occurrences_kernel(relabel_input<Offset, Index> in, Index* ids,
                                              std::int64_t* positions, Offset* edge_ids)
{
  std::int64_t const num_dst = in.num_dst.get();
  std::int64_t const dst_bound = in.dst_bound();
  std::int64_t const n = in.items();
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; t < n; t += stride) {
    positions[t] = t;
    if (t < dst_bound) {
      Index const dst = t < num_dst ? in.dst[t] : Index{0};
      ids[t] = valid_or_sentinel(dst, t < num_dst, in.num_nodes);
      if (t < num_dst) {
        // A dst id outside the graph would leave its src row unwritten though counted.
        bool const valid = dst >= 0 && static_cast<std::int64_t>(dst) < in.num_nodes;
        if (!valid && in.bad_dst.record != nullptr) { in.bad_dst.report(t, static_cast<long long>(dst)); }
        if (checked_row_count(in, t) < 0 && in.bad_counts.record != nullptr) {
          in.bad_counts.report(t, static_cast<long long>(in.counts[t]));
        }
      }
      continue;
    }
    std::int64_t const s = t - dst_bound;
    std::int64_t const i = s / in.fanout;
    std::int64_t const j = s - i * in.fanout;
    bool const used = i < num_dst && j < checked_row_count(in, i);
    Index const id = valid_or_sentinel(used ? in.slot_neighbors[s] : Index{0}, used, in.num_nodes);
    if (used && id == static_cast<Index>(in.num_nodes)) { in.bad_neighbors.report(s); }
    ids[t] = id;
    if (used && edge_ids != nullptr) { edge_ids[in.offsets[i] + j] = in.slot_edge_ids[s]; }
  }
}

/// Completes a bad-neighbour record: its position is a slot (the smallest reported, which is also
/// the first in CSR order); it becomes the CSR position offsets[i] + j, with the id found there.
template <class Index>
GNNDIRECT_KERNEL void capture_slot_value_kernel(error_record* record, const Index* slot_neighbors,
                                                const std::int64_t* offsets, int fanout)
{
  unsigned long long const slot = record->position;
  if (slot == no_bad_position) { return; }
  auto const s = static_cast<std::int64_t>(slot);
  std::int64_t const i = s / fanout;
  record->value = static_cast<long long>(slot_neighbors[s]);
  record->position = static_cast<unsigned long long>(offsets[i] + (s - i * fanout));
}

/// For sorted (id, position) pairs: head_source[t] = t at the first element of an id's run (0
/// elsewhere, so a max-scan yields each element's run head); first_seen[s] = 1 exactly when slot
/// s is the head of a valid id's run (the id is not a dst node and s is its first appearance).
/// Every slot position occurs once in the sorted array, so first_seen needs no clearing.
template <class Index>
GNNDIRECT_KERNEL void mark_heads_kernel(const Index* ids, const std::int64_t* positions,
                                        std::int64_t n, std::int64_t dst_bound, Index sentinel,
                                        std::int64_t* head_source, std::int64_t* first_seen)
{
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; t < n; t += stride) {
    bool const head = t == 0 || ids[t] != ids[t - 1];
    head_source[t] = head ? t : 0;
    std::int64_t const position = positions[t];
    if (position >= dst_bound) {
      first_seen[position - dst_bound] = head && ids[t] != sentinel ? 1 : 0;
    }
  }
}

/// Writes the src nodes (dst rows in order, then new nodes at their rank) and the local id of
/// every used slot at its CSR position. new_rank is the inclusive scan of first_seen.
template <class Offset, class Index>
GNNDIRECT_KERNEL void assign_local_kernel(relabel_input<Offset, Index> in, const Index* ids,
                                          const std::int64_t* positions, const std::int64_t* head_of,
                                          const std::int64_t* new_rank, Index* src_nodes,
                                          Index* local_ids)
{
  std::int64_t const num_dst = in.num_dst.get();
  std::int64_t const dst_bound = in.dst_bound();
  std::int64_t const n = in.items();
  auto const sentinel = static_cast<Index>(in.num_nodes);
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; t < n; t += stride) {
    Index const id = ids[t];
    if (id == sentinel) { continue; }  // sentinels sort last: nothing after them matters
    std::int64_t const head = head_of[t];
    std::int64_t const first = positions[head];
    std::int64_t const local =
      first < dst_bound ? first : num_dst + new_rank[first - dst_bound] - 1;
    std::int64_t const position = positions[t];
    if (position < dst_bound) {
      src_nodes[position] = id;  // every dst row, repeats included
      continue;
    }
    std::int64_t const s = position - dst_bound;
    std::int64_t const i = s / in.fanout;
    local_ids[in.offsets[i] + (s - i * in.fanout)] = static_cast<Index>(local);
    if (head == t) { src_nodes[local] = id; }  // first appearance of a new node
  }
}

/// num_src = num_dst + new nodes; num_edges = offsets[dst_bound] (counts past num_dst are 0),
/// clamped to [0, slot_bound] (wrong offsets are reported by fill_occurrences_kernel).
template <class Offset, class Index>
GNNDIRECT_KERNEL void relabel_counts_kernel(relabel_input<Offset, Index> in,
                                            const std::int64_t* new_rank, std::int64_t* num_src,
                                            std::int64_t* num_edges)
{
  std::int64_t const slots = in.slot_bound();
  *num_src = in.num_dst.get() + (slots > 0 ? new_rank[slots - 1] : 0);
  std::int64_t const edges = in.offsets[in.dst_bound()];  // the caller's: clamped to the outputs
  *num_edges = edges < 0 ? 0 : (edges < slots ? edges : slots);
}

/// Max of two int64 (the head-finding scan operator).
struct max_op {
  GNNDIRECT_HOST_DEVICE std::int64_t operator()(std::int64_t a, std::int64_t b) const noexcept
  {
    return a < b ? b : a;
  }
};

/// Blocks for a grid-stride elementwise kernel over n items.
inline int elementwise_blocks(std::int64_t n) noexcept
{
  return static_cast<int>(std::clamp<std::int64_t>((n + 255) / 256, 1, 65536));
}

/// Radix-sort bits of ids in [0, num_nodes] (the sentinel num_nodes included).
inline int relabel_key_bits(std::int64_t num_nodes) noexcept
{
  return significant_bits(num_nodes + 1);
}

/// CUB temporary bytes of one relabelling over `items` occurrences and `slots` slots (the
/// offsets scan over dst_bound counts shares the storage). @throws cuda_error.
template <class Index>
std::size_t relabel_cub_bytes(std::int64_t items, std::int64_t slots, std::int64_t dst_bound)
{
  std::size_t sort = 0;
  std::size_t max_scan = 0;
  std::size_t sum_scan = 0;
  std::size_t offsets_scan = 0;
  GNNDIRECT_CUDA_TRY(::cub::DeviceRadixSort::SortPairs(
    nullptr, sort, static_cast<const Index*>(nullptr), static_cast<Index*>(nullptr),
    static_cast<const std::int64_t*>(nullptr), static_cast<std::int64_t*>(nullptr), items, 0,
    static_cast<int>(sizeof(Index) * 8)));
  GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveScan(
    nullptr, max_scan, static_cast<const std::int64_t*>(nullptr),
    static_cast<std::int64_t*>(nullptr), max_op{}, items));
  GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveSum(nullptr, sum_scan,
                                                     static_cast<const std::int64_t*>(nullptr),
                                                     static_cast<std::int64_t*>(nullptr), slots));
  GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveSum(nullptr, offsets_scan,
                                                     static_cast<const std::int64_t*>(nullptr),
                                                     static_cast<std::int64_t*>(nullptr), dst_bound));
  return std::max({sort, max_scan, sum_scan, offsets_scan, std::size_t{1}});
}

/// Carves (or, in a sizing pass, sizes) the scratch of relabellings of up to `items`
/// occurrences and `slots` slots with `cub` bytes of CUB storage from `carver`.
template <class Index>
relabel_scratch<Index> carve_relabel_scratch(workspace_carver& carver, std::int64_t items,
                                             std::int64_t slots, std::size_t cub)
{
  auto const n = [](std::int64_t count, std::size_t size) { return static_cast<std::size_t>(count) * size; };
  relabel_scratch<Index> r;
  r.ids_in = carver.take<Index>(n(items, sizeof(Index)));
  r.ids_sorted = carver.take<Index>(n(items, sizeof(Index)));
  r.positions_in = carver.take<std::int64_t>(n(items, sizeof(std::int64_t)));
  r.positions_sorted = carver.take<std::int64_t>(n(items, sizeof(std::int64_t)));
  r.head_of = carver.take<std::int64_t>(n(items, sizeof(std::int64_t)));
  r.first_seen = carver.take<std::int64_t>(n(slots, sizeof(std::int64_t)));
  r.new_rank = carver.take<std::int64_t>(n(slots, sizeof(std::int64_t)));
  r.cub_storage = carver.take<void>(cub);
  r.cub_bytes = cub;
  return r;
}

/// Enqueues the relabelling of one layer (see the file comment). Sizes on the host are bounds
/// only; the counts land in out.num_src / out.num_edges on the device. Never synchronises, never
/// allocates: capturable. @throws cuda_error.
template <class Offset, class Index>
void relabel_async(cudaStream_t stream, const relabel_input<Offset, Index>& in,
                   const relabel_output<Offset, Index>& out, const relabel_scratch<Index>& tmp)
{
  std::int64_t const n = in.items();
  std::int64_t const slots = in.slot_bound();
  if (n > 0) {
    int const blocks = elementwise_blocks(n);
    fill_occurrences_kernel<Offset, Index><<<blocks, 256, 0, stream>>>(
      in, tmp.ids_in, tmp.positions_in, in.slot_edge_ids == nullptr ? nullptr : out.edge_ids);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
    if (slots > 0 && in.bad_neighbors.record != nullptr) {
      capture_slot_value_kernel<Index><<<1, 1, 0, stream>>>(in.bad_neighbors.record,
                                                            in.slot_neighbors, in.offsets, in.fanout);
      GNNDIRECT_CUDA_TRY(cudaGetLastError());
    }
    std::size_t bytes = tmp.cub_bytes;
    GNNDIRECT_CUDA_TRY(::cub::DeviceRadixSort::SortPairs(
      tmp.cub_storage, bytes, tmp.ids_in, tmp.ids_sorted, tmp.positions_in, tmp.positions_sorted,
      n, 0, relabel_key_bits(in.num_nodes), stream));
    std::int64_t* const head_source = tmp.positions_in;  // free after the sort
    mark_heads_kernel<Index><<<blocks, 256, 0, stream>>>(tmp.ids_sorted, tmp.positions_sorted, n,
                                                         in.dst_bound(),
                                                         static_cast<Index>(in.num_nodes),
                                                         head_source, tmp.first_seen);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
    bytes = tmp.cub_bytes;
    GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveScan(tmp.cub_storage, bytes, head_source,
                                                        tmp.head_of, max_op{}, n, stream));
    if (slots > 0) {
      bytes = tmp.cub_bytes;
      GNNDIRECT_CUDA_TRY(::cub::DeviceScan::InclusiveSum(tmp.cub_storage, bytes, tmp.first_seen,
                                                         tmp.new_rank, slots, stream));
    }
    assign_local_kernel<Offset, Index><<<blocks, 256, 0, stream>>>(
      in, tmp.ids_sorted, tmp.positions_sorted, tmp.head_of, tmp.new_rank, out.src_nodes,
      out.indices);
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
  }
  relabel_counts_kernel<Offset, Index><<<1, 1, 0, stream>>>(in, tmp.new_rank, out.num_src,
                                                            out.num_edges);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
}

/// Error records at the start of a relabel_async workspace.
inline constexpr int relabel_records = 3;

/// Slices of a relabel_async workspace: the error records first (relabel_check finds them
/// without sizes: bad neighbours, bad dst ids, bad counts), then the relabelling's scratch.
template <class Index>
struct relabel_workspace {
  error_flag_ref flag;
  error_flag_ref dst_flag;
  error_flag_ref count_flag;
  relabel_scratch<Index> scratch;
  std::size_t total{0};
};

/// Carves (or, with a null workspace, sizes) the slices for num_dst rows of `fanout` slots.
/// @throws invalid_argument when a non-null workspace is too small; cuda_error.
template <class Index>
relabel_workspace<Index> carve_relabel_workspace(workspace_view ws, std::int64_t num_dst, int fanout)
{
  std::int64_t const slots = num_dst * fanout;
  workspace_carver carver(ws);
  relabel_workspace<Index> w;
  w.flag.record = carver.take<error_record>(relabel_records * sizeof(error_record));
  w.dst_flag.record = w.flag.record == nullptr ? nullptr : w.flag.record + 1;
  w.count_flag.record = w.flag.record == nullptr ? nullptr : w.flag.record + 2;
  w.scratch = carve_relabel_scratch<Index>(carver, num_dst + slots, slots,
                                           relabel_cub_bytes<Index>(num_dst + slots, slots, num_dst));
  w.total = carver.used();
  return w;
}

/// The body of both public relabel_async forms (algorithms/relabel.cuh): every argument check,
/// sized by dst_count.bound, before the first enqueue, then the records' reset, the offsets' copy
/// and the relabelling. @throws invalid_argument, cuda_error.
template <class Offset, class Index>
void relabel_hop_async(cudaStream_t stream, const Index* dst, bounded_count dst_count, int fanout,
                       const sampled_slots_view<Offset, Index>& sampled, std::int64_t num_nodes,
                       const sampled_block_view<Offset, Index>& out, workspace_view ws)
{
  std::int64_t const num_dst = dst_count.bound;
  GNNDIRECT_EXPECTS(num_dst >= 0, "relabel_async: num_dst must be >= 0");
  GNNDIRECT_EXPECTS(fanout >= 0, "relabel_async: fanout must be >= 0");
  GNNDIRECT_EXPECTS(num_nodes >= 0 && num_nodes < std::int64_t{std::numeric_limits<Index>::max()},
                    "relabel_async: num_nodes must be in [0, largest Index) (the sentinel id is "
                    "num_nodes)");
  GNNDIRECT_EXPECTS(num_dst == 0 || dst != nullptr, "relabel_async: null dst");
  GNNDIRECT_EXPECTS(sampled.offsets != nullptr && (num_dst == 0 || sampled.counts != nullptr),
                    "relabel_async: null sampled counts or offsets");
  std::int64_t const slots = num_dst * fanout;
  GNNDIRECT_EXPECTS(slots == 0 || sampled.neighbors != nullptr, "relabel_async: null sampled neighbours");
  GNNDIRECT_EXPECTS(out.edge_ids == nullptr || slots == 0 || sampled.edge_ids != nullptr,
                    "relabel_async: out.edge_ids wanted but sampled.edge_ids is null");
  GNNDIRECT_EXPECTS(out.offsets != nullptr && out.num_src != nullptr && out.num_edges != nullptr,
                    "relabel_async: null offsets, num_src or num_edges");
  GNNDIRECT_EXPECTS(num_dst == 0 || out.src_nodes != nullptr, "relabel_async: null src_nodes");
  GNNDIRECT_EXPECTS(slots == 0 || out.indices != nullptr, "relabel_async: null indices");
  GNNDIRECT_EXPECTS(ws.data != nullptr,
                    "relabel_async: null workspace (size it with relabel_workspace_bytes)");
  check_slots_capacity(sampled, num_dst, fanout, "relabel_async", "sampled");  // read
  block_bounds const need{num_dst, slots, num_dst + std::min(slots, num_nodes)};
  check_block_capacity(out, need, "relabel_async", "out",
                       " (sample_blocks_bounds(num_dst, {fanout}, num_nodes)[0] gives the sizes)");
  auto const bytes = [](std::int64_t n, std::size_t size) { return static_cast<std::size_t>(n) * size; };
  check_device_accessible(dst, bytes(num_dst, sizeof(Index)), alignof(Index), "dst");
  check_device_accessible(sampled.neighbors, bytes(slots, sizeof(Index)), alignof(Index), "sampled neighbors");
  check_device_accessible(sampled.counts, bytes(num_dst, 8), 8, "sampled counts");
  check_device_accessible(sampled.offsets, bytes(num_dst + 1, 8), 8, "sampled offsets");
  check_device_accessible(out.offsets, bytes(num_dst + 1, 8), 8, "offsets");
  check_device_accessible(out.src_nodes, 0, alignof(Index), "src_nodes");
  check_device_accessible(out.indices, 0, alignof(Index), "indices");
  if (out.edge_ids != nullptr) {
    check_device_accessible(sampled.edge_ids, bytes(slots, sizeof(Offset)), alignof(Offset), "sampled edge_ids");
    check_device_accessible(out.edge_ids, 0, alignof(Offset), "edge_ids");
  }
  check_device_accessible(out.num_src, 8, 8, "num_src");
  check_device_accessible(out.num_edges, 8, 8, "num_edges");
  check_device_accessible(ws.data, ws.bytes, workspace_alignment, "workspace");
  auto const w = carve_relabel_workspace<Index>(ws, num_dst, fanout);
  GNNDIRECT_CUDA_TRY(cudaMemsetAsync(w.flag.record, 0xFF, relabel_records * sizeof(error_record), stream));
  if (out.offsets != sampled.offsets) {
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(out.offsets, sampled.offsets, bytes(num_dst + 1, 8),
                                       cudaMemcpyDefault, stream));
  }
  relabel_input<Offset, Index> in;
  in.dst = dst;
  in.num_dst = dst_count;
  in.slot_neighbors = sampled.neighbors;
  in.slot_edge_ids = out.edge_ids == nullptr ? nullptr : sampled.edge_ids;
  in.counts = sampled.counts;
  in.offsets = sampled.offsets;
  in.fanout = fanout;
  in.num_nodes = num_nodes;
  in.bad_neighbors = w.flag;
  in.bad_dst = w.dst_flag;
  in.bad_counts = w.count_flag;
  relabel_output<Offset, Index> const result{out.src_nodes, out.indices, out.edge_ids,
                                             out.num_src, out.num_edges};
  relabel_async(stream, in, result, w.scratch);
}

/// Synchronises `stream` and raises what the last relabel_async recorded in `ws`: a dst id
/// outside the graph, then a row whose count or offsets do not fit the slots, then a sampled
/// neighbour outside the graph. @throws index_out_of_range, invalid_argument, cuda_error.
inline void relabel_raise(cudaStream_t stream, workspace_view ws, std::int64_t num_nodes)
{
  error_record host[relabel_records];
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(host, ws.data, sizeof(host), cudaMemcpyDefault, stream));
  synchronize(stream);
  if (host[1].position != no_bad_position) {
    throw index_out_of_range(__FILE__, __LINE__, "relabel_async: dst", static_cast<std::int64_t>(host[1].position),
                             static_cast<std::int64_t>(host[1].value), num_nodes);
  }
  if (host[2].position != no_bad_position) {
    std::string const row = std::to_string(host[2].position);
    throw invalid_argument(__FILE__, __LINE__,
                           "relabel_async: sampled.counts[" + row + "] = " + std::to_string(host[2].value) +
                             " does not fit the slots: a count must lie in [0, fanout] and equal "
                             "offsets[" + row + " + 1] - offsets[" + row + "] inside [0, num_dst * fanout] "
                             "(a fanout other than the hop's, or a faulty sampler?); the row was "
                             "relabelled as empty, nothing written outside the outputs");
  }
  if (host[0].position != no_bad_position) {
    throw index_out_of_range(__FILE__, __LINE__, "sampled neighbours", static_cast<std::int64_t>(host[0].position),
                             static_cast<std::int64_t>(host[0].value), num_nodes);
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
