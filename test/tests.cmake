# The list of test executables (one line each; keep sorted by area).
gnndirect_host_test(test_host_foundation host/test_error.cpp host/test_views.cpp
                    host/test_memory_host.cpp)
gnndirect_gpu_test(test_gpu_memory gpu/test_memory.cu)
gnndirect_host_test(test_host_gather host/test_gather_host.cpp host/test_gather_tuning_host.cpp)
gnndirect_host_test(test_host_codecs host/test_codecs_host.cpp)
gnndirect_host_test(test_host_demo_options host/test_demo_options.cpp)
gnndirect_gpu_test(test_gpu_gather gpu/test_gather.cu)
gnndirect_gpu_test(test_gpu_device_layer gpu/test_device_layer.cu)
gnndirect_gpu_test(test_gpu_cpu_gather gpu/test_cpu_gather.cu)
gnndirect_host_test(test_host_sampling host/test_philox.cpp host/test_sampling_reference.cpp
                    host/test_sampling_math.cpp)
gnndirect_host_test(test_host_cpu_sampler host/test_cpu_sampler.cpp)
gnndirect_host_test(test_host_sampled_views host/test_sampled_views.cpp host/test_deprecated_names.cpp)
# The device primitives (samplers, copy_rows, decode_rows) run by the host compiler on an emulated
# tile (test/support/emulated_tile.hpp). The primitives carry nvcc's `#pragma unroll`; and they
# reinterpret rows as vector types the way device code does, which only -fno-strict-aliasing makes
# well-defined for a host optimiser.
gnndirect_host_test(test_host_device_emulated host/test_device_emulated_samplers.cpp
                    host/test_device_emulated_rows.cpp)
target_compile_options(test_host_device_emulated PRIVATE -Wno-unknown-pragmas -fno-strict-aliasing)
# Many small instantiations (codec x type x widths): -O1 keeps its compile time reasonable.
set_source_files_properties(host/test_device_emulated_rows.cpp PROPERTIES COMPILE_OPTIONS -O1)
# Temporal samplers (device/temporal_samplers.hpp) on an emulated tile, against
# test/support/temporal_reference.hpp; the GPU side is test_gpu_temporal.
gnndirect_host_test(test_host_temporal host/test_temporal_host.cpp)
gnndirect_host_test(test_host_negative_sampling host/test_negative_sampling_host.cpp)
gnndirect_host_test(test_host_link_options host/test_link_options_host.cpp)
target_compile_options(test_host_temporal PRIVATE -Wno-unknown-pragmas -fno-strict-aliasing)
gnndirect_host_test(test_graph_host host/test_graph_host.cpp)
gnndirect_gpu_test(test_gpu_sampling gpu/test_sampling.cu)
gnndirect_gpu_test(test_gpu_blocks_async gpu/test_blocks_async.cu)
gnndirect_gpu_test(test_gpu_temporal gpu/test_temporal.cu)
gnndirect_gpu_test(test_gpu_link gpu/test_link.cu)
gnndirect_gpu_test(test_gpu_link_pipeline gpu/test_link_pipeline.cu)
gnndirect_gpu_test(test_gpu_graph gpu/test_graph.cu)
gnndirect_gpu_test(test_gpu_pipeline gpu/test_pipeline.cu)
gnndirect_gpu_test(test_gpu_temporal_pipeline gpu/test_temporal_pipeline.cu)
gnndirect_gpu_test(test_gpu_cache gpu/test_cache.cu)
gnndirect_gpu_test(test_gpu_codecs gpu/test_codecs.cu)
gnndirect_host_test(test_host_bad_input host/test_bad_input_host.cpp)
gnndirect_gpu_test(test_gpu_bad_input gpu/test_bad_input.cu)
gnndirect_gpu_test(test_gpu_resource_faults gpu/test_resource_faults.cu)
# Counts the library did not compute (a sampler's return, a hop's counts, a told fanout) stay
# inside the outputs (guard regions), and every public *_async call under stream capture.
gnndirect_gpu_test(test_gpu_count_guards gpu/test_count_guards.cu)
gnndirect_gpu_test(test_gpu_capture gpu/test_capture.cu)
# Counts the CUDA runtime's allocation calls by defining them in the executable (interposition),
# which needs the shared cudart: the static one would define them too.
gnndirect_gpu_test(test_gpu_allocations gpu/test_allocations.cu gpu/allocation_interposer.cpp)
set_target_properties(test_gpu_allocations PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
target_link_libraries(test_gpu_allocations PRIVATE ${CMAKE_DL_LIBS})
gnndirect_host_test(test_host_support host/test_support_host.cpp)
gnndirect_host_test(test_host_capacity host/test_host_capacity.cpp)
# These suites check that device-wide free memory stays flat, so no other test may allocate on the
# GPU meanwhile: ctest -j runs them alone.
set_tests_properties(test_gpu_memory test_gpu_pipeline test_gpu_resource_faults PROPERTIES RUN_SERIAL TRUE)
# Python package (python/): byte-compiles every .py file, unit-tests the pure-Python
# helpers and checks the import behaviour with plain python3 (torch not needed); reported as
# skipped when no python3 is found.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  add_test(NAME test_host_python
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_python.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_host_python PROPERTIES LABELS host TIMEOUT 600)
  # The header tree's rules: layers, internals in detail/<component>/, the umbrella (see the script).
  add_test(NAME test_host_layers
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_layers.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_host_layers PROPERTIES LABELS host TIMEOUT 60)
  add_test(NAME test_host_layers_selftest
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_layers.py --selftest)
  set_tests_properties(test_host_layers_selftest PROPERTIES LABELS host TIMEOUT 60)
  # Public headers read as documentation: comment lines >= 50%, function bodies <= 25% of code
  # lines, at most 250 lines (bodies go to detail/<component>/<stem>.inl); NOT_YET in the script
  # lists the headers not there yet and may only shrink. The selftest checks the checker.
  add_test(NAME test_host_header_shape
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_header_shape.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_host_header_shape PROPERTIES LABELS host TIMEOUT 60)
  add_test(NAME test_host_header_shape_selftest
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_header_shape.py --selftest)
  set_tests_properties(test_host_header_shape_selftest PROPERTIES LABELS host TIMEOUT 60)
  # scripts/migrate-0.2 (the 0.1 -> 0.2 renames) on a 0.1-style sample: the output must equal
  # test/migrate/expected_0.2.cu; --dry-run writes nothing.
  add_test(NAME test_host_migrate
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_migrate.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_host_migrate PROPERTIES LABELS host TIMEOUT 60)
  # The Python package's modules form layers too: no import cycle among them and no
  # function-level import of its own modules but the lazy extension _C (see the script's comment);
  # the selftest checks that the checker catches a cycle in fabricated packages.
  add_test(NAME test_host_python_imports
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_python_imports.py ${PROJECT_SOURCE_DIR})
  add_test(NAME test_host_python_imports_selftest
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_python_imports.py --selftest)
  set_tests_properties(test_host_python_imports test_host_python_imports_selftest
                       PROPERTIES LABELS host TIMEOUT 60)
  # scripts/results.py paper (the demo's JSON + power logs -> the paper's table) on fabricated
  # inputs; no GPU.
  add_test(NAME test_host_results
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_results.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_host_results PROPERTIES LABELS host TIMEOUT 120)
  # scripts/: only the durable tools, each answering --help without building; scripts/gpu's
  # check, sanitize and compare on stand-in executables; results.py table and compare.
  add_test(NAME test_host_scripts
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_scripts.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_host_scripts PROPERTIES LABELS host TIMEOUT 300)
  # Doxygen over the public headers (docs/Doxyfile) with warnings as errors, plus the @tparam
  # check Doxygen lacks; fails (never skips) without doxygen, which scripts/install-deps installs.
  add_test(NAME doxygen_api
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_doxygen.py
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/doxygen)
  set_tests_properties(doxygen_api PROPERTIES LABELS host TIMEOUT 300)
  # docs/api.md is generated from the same Doxygen XML (scripts/api_doc.py): fails when it is stale.
  add_test(NAME api_doc_sync
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/api_doc.py --check)
  set_tests_properties(api_doc_sync PROPERTIES LABELS host TIMEOUT 300)
else()
  add_test(NAME test_host_python COMMAND ${CMAKE_COMMAND} -E echo "python3 not found: skipped")
  set_tests_properties(test_host_python PROPERTIES LABELS host SKIP_REGULAR_EXPRESSION "skipped")
  foreach(name doxygen_api api_doc_sync)
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo "${name} needs python3: failed")
    set_tests_properties(${name} PROPERTIES LABELS host FAIL_REGULAR_EXPRESSION "failed")
  endforeach()
endif()
gnndirect_host_test(test_host_typed host/test_typed_host.cpp)
gnndirect_gpu_test(test_gpu_typed gpu/test_typed.cu)
