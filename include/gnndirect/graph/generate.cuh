#pragma once
/// @file generate.cuh
/// @brief The seeded generators of generate.hpp on the GPU (nvcc): same edges as the host
/// generator bit for bit; CSR built on the GPU and written straight into the requested placement.

#include <gnndirect/core/device.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/core/launch.cuh>
#include <gnndirect/detail/graph/coo_to_csr.cuh>
#include <gnndirect/graph/coo_to_csr.cuh>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/coo.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// Generates an edge list on the GPU into buffers of `kind` (device by default; host-resident
/// kinds are written over the link). Edge j equals host::generate_coo's edge j.
/// @tparam Index node id type  @param stream stream for the kernel
/// @param options what to generate (see generator_options)  @param kind placement of the buffers
/// @param mr resource of `device` buffers (synchronous owners, see buffer); default: the device's
///        default pool. It must outlive the edge list.
/// @param host_mr resource of `pinned` buffers (default: cudaHostAlloc); it must outlive the edge
///        list. `managed_host` buffers come from cudaMallocManaged whatever the resources.
/// @return the edge list
/// @throws invalid_argument for bad options; allocation_error; cuda_error; no_device_error.
///         Synchronises `stream`.
template <class Index>
coo_graph<Index> generate_coo(cudaStream_t stream, const generator_options& options,
                              memory_kind kind = memory_kind::device, resource_ref mr = {},
                              host_resource_ref host_mr = {});

/// Generates a graph on the GPU directly in CSR form: edges generated in device memory, converted
/// on the GPU (coo_to_csr.cuh, sorting the generated sources in place), CSR arrays written into
/// `placement`. Identical to host::generate_csr. A papers100M-sized graph (1.6 G edges, int32
/// ids) needs about 45 GB of device memory while it is built.
/// @tparam Offset, Index the graph's offset and node id types
/// @param stream stream for all the work  @param options what to generate
/// @param placement where the CSR arrays go  @param build options of the conversion (edge ids)
/// @param mr resource of the graph's device arrays, of the generated edges and of every
///        temporary of the conversion (as coo_to_csr); default: the device's default pool
/// @param host_mr resource of the graph's pinned arrays (default: cudaHostAlloc)
/// @return the graph
/// @throws invalid_argument for bad options or an edge count the offset type cannot hold;
///         allocation_error; cuda_error; no_device_error. Synchronises `stream`.
template <class Offset, class Index>
csr_graph<Offset, Index> generate_csr(cudaStream_t stream, const generator_options& options,
                                      csr_placement placement, csr_build_options build = {},
                                      resource_ref mr = {}, host_resource_ref host_mr = {});

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/graph/generate.inl>
