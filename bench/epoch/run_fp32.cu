// The epoch benchmark's run() on fp32 features (no codec), both index types (see run.cuh).
#include "run.cuh"

namespace gnndirect_demo {
GNNDIRECT_DEMO_RUN_INSTANCES(, void);
}  // namespace gnndirect_demo
