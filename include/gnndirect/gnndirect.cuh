#pragma once
/// @file gnndirect.cuh
/// @brief Umbrella header: every public gnndirect header (needs nvcc). Prefer the per-concept
/// headers in libraries that care about compile time.

#include <gnndirect/algorithms/hot_set.cuh>
#include <gnndirect/cache/tiered_table.cuh>
#include <gnndirect/core/tiered_view.hpp>
#include <gnndirect/core/config.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/device/copy_row.cuh>
#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/algorithms/gather_policy.hpp>
#include <gnndirect/owners/coo.hpp>
#include <gnndirect/graph/coo_to_csr.cuh>
#include <gnndirect/graph/coo_to_csr.hpp>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/graph/generate.cuh>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/algorithms/sample_blocks.cuh>
#include <gnndirect/device/sample_neighbors_tile.cuh>
#include <gnndirect/algorithms/sample_neighbors.cuh>
#include <gnndirect/algorithms/sampling_policy.hpp>
#include <gnndirect/algorithms/validate.cuh>
#include <gnndirect/algorithms/validate.hpp>
#include <gnndirect/reference/gather_reference.hpp>
#include <gnndirect/util/parallel.hpp>
#include <gnndirect/reference/sample_reference.hpp>
#include <gnndirect/io/edge_list.hpp>
#include <gnndirect/io/npy.hpp>
#include <gnndirect/owners/allocation.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/host_memory.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/owners/placement.hpp>
#include <gnndirect/owners/registration.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/core/workspace.hpp>
#include <gnndirect/pipeline/epoch_order.hpp>
#include <gnndirect/pipeline/minibatch_pipeline.cuh>
#include <gnndirect/device/philox.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/table_view.hpp>
