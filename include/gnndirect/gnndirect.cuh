#pragma once
/// @file gnndirect.cuh
/// @brief Umbrella header: everything in gnndirect (needs nvcc). Prefer the per-concept headers.

#include <gnndirect/config.hpp>
#include <gnndirect/device.hpp>
#include <gnndirect/error.hpp>
#include <gnndirect/host/parallel.hpp>
#include <gnndirect/memory/allocation.hpp>
#include <gnndirect/memory/buffer.hpp>
#include <gnndirect/memory/host_memory.hpp>
#include <gnndirect/memory/memory_kind.hpp>
#include <gnndirect/memory/placement.hpp>
#include <gnndirect/memory/registration.hpp>
#include <gnndirect/memory/table.hpp>
#include <gnndirect/version.hpp>
#include <gnndirect/views/csr_view.hpp>
#include <gnndirect/views/table_view.hpp>
