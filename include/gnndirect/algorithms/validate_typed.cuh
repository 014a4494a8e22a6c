#pragma once
/// @file validate_typed.cuh
/// @brief validate_typed(stream, view): the typed graph check of validate_typed.hpp run on the
/// GPU, for relations in any placement (device, pinned, registered, managed_host) (nvcc).
///
/// The host form needs CPU-readable arrays and no GPU; this one reads any placement but needs a
/// GPU and synchronises the stream (once per relation). Both throw the same exception and message
/// for the same graph. check_typed_table_rows (validate_typed.hpp) reads no array: no GPU form.

#include <gnndirect/algorithms/typed_blocks_bounds.hpp>
#include <gnndirect/algorithms/validate_typed.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/typed_graph_view.hpp>
#include <gnndirect/core/typed_schema.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/algorithms/validate_typed.cuh>

#include <cuda_runtime_api.h>

#include <string>

GNNDIRECT_NAMESPACE_BEGIN

/// Checks a typed graph by reading its relations on the GPU: the same rules, order and
/// messages as the host validate_typed (validate_typed.hpp).
/// @param stream stream of the check kernels  @param graph device-visible view (any placement)
/// @param schema names for the messages, or null
/// @param mr resource of the error records (default: the device's pool): a few bytes per
///        relation, allocated stream-ordered on `stream` and freed before the call returns
/// @throws invalid_argument (shape, naming the relation and field); corrupt_graph starting
/// "relation (src, name, dst): " naming the first failing array, position and value; cuda_error;
/// no_device_error. Synchronises `stream`.
/// @tparam Offset, Index the graph's offset and node id types
template <class Offset, class Index>
void validate_typed(cudaStream_t stream, const typed_graph_view<Offset, Index>& graph,
                    const typed_schema* schema = nullptr, resource_ref mr = {});

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/algorithms/validate_typed_device.inl>
