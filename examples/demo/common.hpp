#pragma once
// The demo (examples/demo.cu): the headers and names all of its parts use.
#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/graph/generate.cuh>
#include <gnndirect/host/cpu_gather.hpp>
#include <gnndirect/host/cpu_sampler.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/placement.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/pipeline/epoch_order.hpp>
#include <gnndirect/pipeline/minibatch_pipeline.cuh>
#include <gnndirect/util/parallel.hpp>

#include <cuda_runtime_api.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>


namespace gnndirect_demo {

using gnndirect::memory_kind;
using clock_type = std::chrono::steady_clock;
using label_type = std::int32_t;

}  // namespace gnndirect_demo
