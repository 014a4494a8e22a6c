# The list of test executables (one line each; keep sorted by area).
gnndirect_host_test(test_host_foundation host/test_error.cpp host/test_views.cpp
                    host/test_memory_host.cpp)
gnndirect_gpu_test(test_gpu_memory gpu/test_memory.cu)
gnndirect_host_test(test_host_gather host/test_gather_host.cpp)
gnndirect_gpu_test(test_gpu_gather gpu/test_gather.cu)
gnndirect_host_test(test_host_sampling host/test_philox.cpp host/test_sampling_reference.cpp)
gnndirect_host_test(test_graph_host host/test_graph_host.cpp)
gnndirect_gpu_test(test_gpu_sampling gpu/test_sampling.cu)
gnndirect_gpu_test(test_gpu_graph gpu/test_graph.cu)
gnndirect_gpu_test(test_gpu_pipeline gpu/test_pipeline.cu)
gnndirect_gpu_test(test_gpu_cache gpu/test_cache.cu)
