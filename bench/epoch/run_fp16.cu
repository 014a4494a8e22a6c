// The epoch benchmark's run() on features encoded with gnndirect::codecs::fp16, both index types (see run.cuh).
#include "run.cuh"

namespace gnndirect_demo {
GNNDIRECT_DEMO_RUN_INSTANCES(, gnndirect::codecs::fp16);
}  // namespace gnndirect_demo
