#pragma once
/// @file validate.cuh
/// @brief validate(stream, csr_view): the CSR check of validate.hpp run on the GPU, for views in
/// any placement (device, pinned, registered, managed_host) (nvcc).
///
/// The host form needs CPU-readable arrays and no GPU; this one reads any placement but needs a
/// GPU and synchronises the stream. Both throw the same corrupt_graph for the same graph.

#include <gnndirect/algorithms/validate.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/algorithms/validate.cuh>
#include <gnndirect/detail/algorithms/validate_kernels.cuh>
#include <gnndirect/owners/buffer.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <limits>
#include <optional>

GNNDIRECT_NAMESPACE_BEGIN

/// Checks that `graph` is a valid CSR graph by reading its arrays on the GPU; the same rules,
/// order and exception as the host validate(graph) in validate.hpp (see there).
///
/// @param stream stream on which the check kernels run (the caller's work on it is ordered before)
/// @param graph a view with device-visible pointers (csr_graph::view(), or a framework's arrays),
///        any placement; host-resident arrays are read over the link.
/// @param mr resource of the 64 bytes of error records (stream-ordered on `stream`; default: the
///        device's default pool); validation is off the hot path, so no workspace form
/// @throws corrupt_graph naming the first failing array, position and value (the value is read
///         back from the array); cuda_error; allocation_error; no_device_error without a GPU.
///         Synchronises `stream`.
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
void validate(cudaStream_t stream, const csr_view<Offset, Index>& graph, resource_ref mr = {});

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/validate_device.inl>
