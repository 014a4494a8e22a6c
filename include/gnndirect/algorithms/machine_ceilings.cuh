#pragma once
/// @file machine_ceilings.cuh
/// @brief Measures the machine's host-link ceilings that the gather selector takes
/// (machine_ceilings, core/gather_tuning.hpp): the copy engines' pinned host-to-device rate, the
/// SMs' sequential zero-copy read rate, and the loads in flight at which that read saturates.
///
/// The library's defaults were measured on an H200 whose link saturates with 8192 loads in flight;
/// the H100 machine's needs about 8x as many (issue #44), so a fixed default leaves a third of its
/// link unused. The measurement takes a few hundred milliseconds; measured_machine_ceilings keeps
/// one result per device for the process (the pipeline's calibrate_gather uses it).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/gather_tuning.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/resource.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

GNNDIRECT_NAMESPACE_BEGIN

/// Bytes each measurement moves by default: 256 MiB, several times any GPU's L2, so that the
/// repeated reads cross the link rather than hit in L2.
inline constexpr std::size_t machine_ceilings_probe_bytes = std::size_t{256} << 20;

/// Measures the current device's host-link ceilings: copy_engine_gbps, the best of three
/// cudaMemcpyAsync of `bytes` from pinned memory; zero_copy_read_gbps, the best rate of a
/// sequential read of the same mapped pinned bytes by grids of 16 blocks of 256 threads up to
/// every block the SMs hold resident (one 16-byte load in flight per thread, best of two reads
/// each, after a warm-up); saturating_loads_in_flight, the fewest threads whose read came within
/// 3% of that rate. Synchronous on `stream` (waits for it).
/// @param stream the stream the copies and reads run on
/// @param bytes bytes per measurement (>= 1 MiB; rounded down to 16 bytes)
/// @param mr device memory for the copies' destination and a result word
/// @param host page-locked, mapped host memory for the source
/// @return the ceilings, every field > 0
/// @throws invalid_argument for bytes < 1 MiB; allocation_error, cuda_error, no_device_error.
inline machine_ceilings measure_machine_ceilings(cudaStream_t stream, std::size_t bytes = machine_ceilings_probe_bytes,
                                                 resource_ref mr = {}, host_resource_ref host = {});

/// The current device's ceilings, measured once per process and device: the first call measures
/// (measure_machine_ceilings with its default size, synchronous on `stream`), later calls return
/// that result without touching the GPU. Thread-safe; a failed measurement is not cached.
/// @param stream the stream of the first measurement
/// @param mr, host the first measurement's device and pinned memory
/// @return the device's ceilings
/// @throws what measure_machine_ceilings throws.
inline machine_ceilings measured_machine_ceilings(cudaStream_t stream, resource_ref mr = {},
                                                  host_resource_ref host = {});

/// What a gather selector is told about the current device: its compute capability and SM
/// count, with `ceilings` (measured, or {} for unknown). Synchronous, cheap (attribute queries).
/// @param ceilings the machine's ceilings  @return the device description
/// @throws no_device_error, cuda_error.
inline gather_device query_gather_device(const machine_ceilings& ceilings = {});

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/machine_ceilings.inl>
