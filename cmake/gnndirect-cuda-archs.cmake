# gnndirect_detect_cuda_archs(<out-var>): the compute capabilities of the GPUs on this machine as a
# CMAKE_CUDA_ARCHITECTURES list (e.g. "90" or "80;90"), from nvidia-smi; empty when there is no
# GPU, no driver or no nvidia-smi. Used by gnndirect's own (top-level) builds only.
function(gnndirect_detect_cuda_archs out_var)
  set(archs "")
  find_program(GNNDIRECT_NVIDIA_SMI nvidia-smi)
  mark_as_advanced(GNNDIRECT_NVIDIA_SMI)
  if(GNNDIRECT_NVIDIA_SMI)
    execute_process(COMMAND ${GNNDIRECT_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 30)
    if(rc EQUAL 0)
      string(REPLACE "\n" ";" caps "${caps}")
      foreach(cap IN LISTS caps)
        string(STRIP "${cap}" cap)
        if(cap MATCHES "^([0-9]+)\\.([0-9]+)$")
          list(APPEND archs "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
        endif()
      endforeach()
      list(REMOVE_DUPLICATES archs)
    endif()
  endif()
  set(${out_var} "${archs}" PARENT_SCOPE)
endfunction()
