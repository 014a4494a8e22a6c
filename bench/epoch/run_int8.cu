// The epoch benchmark's run() on features encoded with gnndirect::codecs::int8_affine, both index types (see run.cuh).
#include "run.cuh"

namespace gnndirect_demo {
GNNDIRECT_DEMO_RUN_INSTANCES(, gnndirect::codecs::int8_affine);
}  // namespace gnndirect_demo
