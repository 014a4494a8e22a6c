#pragma once
// The epoch benchmark (bench/epoch/epoch.cu): the standard headers and names all of its parts use; each part
// includes the library headers it needs itself.
#include <gnndirect/core/memory_kind.hpp>


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
