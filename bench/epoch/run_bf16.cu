// The epoch benchmark's run() on features encoded with gnndirect::codecs::bf16, both index types (see run.cuh).
#include "run.cuh"

namespace gnndirect_demo {
GNNDIRECT_DEMO_RUN_INSTANCES(, gnndirect::codecs::bf16);
}  // namespace gnndirect_demo
