// CUDA consumer: includes the umbrella header and launches nothing unless a GPU is present.
#include <gnndirect/gnndirect.cuh>

int main() { return gnndirect::device_count() >= 0 ? 0 : 1; }
