#pragma once
/// @file typed_preparer.cuh
/// @brief Internals of pipeline/typed_preparer.cuh: a slot's reusable storage and the
/// reseeding of a sampler list (nvcc; not part of the API).

#include <gnndirect/algorithms/sample_typed_blocks_buffers.cuh>
#include <gnndirect/algorithms/typed_samplers.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <tuple>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// A slot's reusable storage for the typed recipe (internal to typed_preparer).
template <class Offset, class Index>
struct typed_slot_storage {
  buffer<Index> staging;               // pinned: the seeds' path to the device
  buffer<std::int64_t> host_counts;    // pinned: the blocks' counts read back once per batch
  buffer<Index> seeds;                 // device copy of the batch's seeds
  sample_typed_blocks_buffers<Offset, Index> blocks;
  std::vector<buffer<unsigned char>> feature_ws;  // one gather workspace per feature table
  buffer<unsigned char> label_ws;
  cudaStream_t stream{nullptr};        // the slot's stream (complete() reads the error records)
};

/// Every sampler of the list (or the one sampler) reseeded with `seed` (reseeded() of each).
template <class Samplers>
Samplers reseeded_all(const Samplers& samplers, std::uint64_t seed)
{
  if constexpr (is_per_relation_samplers<Samplers>::value) {
    Samplers out = samplers;
    std::apply([&](auto&... s) { ((s = reseeded(s, seed)), ...); }, out.samplers);
    return out;
  } else {
    return reseeded(samplers, seed);
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
