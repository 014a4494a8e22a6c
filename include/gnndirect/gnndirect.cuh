#pragma once
/// @file gnndirect.cuh
/// @brief Umbrella header: every public gnndirect header (needs nvcc). Prefer the per-concept
/// headers in libraries that care about compile time.

#include <gnndirect/cache/hot_set.cuh>
#include <gnndirect/cache/tiered_table.cuh>
#include <gnndirect/cache/tiered_view.hpp>
#include <gnndirect/config.hpp>
#include <gnndirect/device.hpp>
#include <gnndirect/error.hpp>
#include <gnndirect/gather/copy_row.cuh>
#include <gnndirect/gather/gather.cuh>
#include <gnndirect/gather/gather_policy.hpp>
#include <gnndirect/graph/coo.hpp>
#include <gnndirect/graph/coo_to_csr.cuh>
#include <gnndirect/graph/coo_to_csr.hpp>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/graph/generate.cuh>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/graph/sample_blocks.cuh>
#include <gnndirect/graph/sample_device.cuh>
#include <gnndirect/graph/sample_neighbors.cuh>
#include <gnndirect/graph/sampling_policy.hpp>
#include <gnndirect/graph/validate.cuh>
#include <gnndirect/graph/validate.hpp>
#include <gnndirect/host/gather_reference.hpp>
#include <gnndirect/host/parallel.hpp>
#include <gnndirect/host/sample_reference.hpp>
#include <gnndirect/io/edge_list.hpp>
#include <gnndirect/io/npy.hpp>
#include <gnndirect/memory/allocation.hpp>
#include <gnndirect/memory/buffer.hpp>
#include <gnndirect/memory/host_memory.hpp>
#include <gnndirect/memory/memory_kind.hpp>
#include <gnndirect/memory/placement.hpp>
#include <gnndirect/memory/registration.hpp>
#include <gnndirect/memory/table.hpp>
#include <gnndirect/memory/workspace.hpp>
#include <gnndirect/pipeline/epoch_order.hpp>
#include <gnndirect/pipeline/minibatch_pipeline.cuh>
#include <gnndirect/random/philox.hpp>
#include <gnndirect/version.hpp>
#include <gnndirect/views/csr_view.hpp>
#include <gnndirect/views/table_view.hpp>
