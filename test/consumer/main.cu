// CUDA consumer: includes the umbrella header and launches nothing unless a GPU is present. Built
// as C++20 with the project's own THRUST_HOST_SYSTEM / THRUST_DEVICE_SYSTEM definitions.
#include <gnndirect/gnndirect.cuh>

static_assert(__cplusplus >= 202002L, "the consumer's CMAKE_CUDA_STANDARD 20 was overridden");

int main() { return gnndirect::device_count() >= 0 ? 0 : 1; }
