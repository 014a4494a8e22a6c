#pragma once
/// @file bounded_sampling.cuh
/// @brief Sampling whose seed count lives in device memory (internal): seeds [0, bound) are
/// launched, those at index >= *num_seeds_on_device get count 0 and no slot write.
///
/// TODO(lead, issue 16): sample_kernels.cuh is to gain
///   launch_sample_neighbors(stream, csr, seeds, num_seeds_bound, num_seeds_on_device, fanout,
///                           layer, policy, slot_neighbors, slot_edge_ids, counts, flag)
/// which skips seeds past the device count inside the kernel. Until it lands on main this file
/// emulates it with the existing launch: the seeds are copied into `padded` with -1 past the
/// device count, sampled with seed checks on (so -1 gets count 0 and reads nothing), and the
/// error record is cleared again when the only reports came from the padding. Once the new
/// launch exists, launch_sample_bounded becomes a direct call and `padded` goes away (also from
/// sample_blocks' workspace layout).

#include <gnndirect/config.hpp>
#include <gnndirect/detail/error_flag.cuh>
#include <gnndirect/detail/graph/relabel.cuh>  // device_count, elementwise_blocks
#include <gnndirect/detail/graph/sample_kernels.cuh>
#include <gnndirect/error.hpp>
#include <gnndirect/graph/sampling_policy.hpp>
#include <gnndirect/views/csr_view.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gnndirect::detail {

/// padded[i] = seeds[i] for i < count, -1 (never a node) for count <= i < bound.
template <class Index>
GNNDIRECT_KERNEL void pad_seeds_kernel(const Index* seeds, device_count count, Index* padded)
{
  std::int64_t const n = count.get();
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count.bound;
       i += stride) {
    padded[i] = i < n ? seeds[i] : static_cast<Index>(-1);
  }
}

/// Forgets a report that only came from the padding (position >= the device count). A template
/// only so that the header-defined kernel needs no out-of-line definition.
template <class Record>
GNNDIRECT_KERNEL void drop_padding_report_kernel(Record* record, device_count count)
{
  if (record->position != no_bad_position &&
      record->position >= static_cast<unsigned long long>(count.get())) {
    record->position = no_bad_position;
  }
}

/// Enqueues sampling of seeds[0, count.bound) of which only the first count.get() are real (see
/// the file comment); counts past them are 0. With count.value null this is the plain launch.
/// `padded` needs count.bound entries when count.value is not null. Records a bad seed (checked
/// as policy.check_seeds says; the padded path always checks) in `flag`, whose record the caller
/// reset. Returns the array the bad value must be captured from. Capturable. @throws cuda_error.
template <class Offset, class Index>
const Index* launch_sample_bounded(cudaStream_t stream, const csr_view<Offset, Index>& csr,
                                   const Index* seeds, device_count count, Index* padded, int fanout,
                                   int layer, const sampling_policy& policy, Index* slot_neighbors,
                                   Offset* slot_edge_ids, std::int64_t* counts, error_flag_ref flag)
{
  if (count.value == nullptr) {
    launch_sample_neighbors(stream, csr, seeds, count.bound, fanout, layer, policy, slot_neighbors,
                            slot_edge_ids, counts, flag);
    return seeds;
  }
  pad_seeds_kernel<Index><<<elementwise_blocks(count.bound), 256, 0, stream>>>(seeds, count, padded);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  sampling_policy checked = policy;
  checked.check_seeds = true;  // what turns the -1 padding into count 0
  launch_sample_neighbors(stream, csr, static_cast<const Index*>(padded), count.bound, fanout, layer,
                          checked, slot_neighbors, slot_edge_ids, counts, flag);
  drop_padding_report_kernel<error_record><<<1, 1, 0, stream>>>(flag.record, count);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  return padded;
}

}  // namespace gnndirect::detail
