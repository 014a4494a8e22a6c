# Compiles SOURCE to PTX with nvcc (COMPILER, INCLUDE_DIR, ARCH) and fails when a kernel whose name
# contains KERNEL issues a generic (state-space-less) vector load or store. The row copies of the
# gather kernel must stay .global: generic accesses cost 5-8% on host-memory gathers (H200), and a
# harmless-looking change (an early return) once made nvcc drop the address space.
# Run as: cmake -DCOMPILER=... -DSOURCE=... -DINCLUDE_DIR=... -DARCH=90 -DKERNEL=... -DWORK_DIR=... -P this
set(ptx ${WORK_DIR}/spaces.ptx)
execute_process(
  COMMAND ${COMPILER} -std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr -arch=sm_${ARCH} -ptx ${SOURCE}
          -o ${ptx} -I${INCLUDE_DIR}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc -ptx ${SOURCE} failed:\n${out}${err}")
endif()
file(READ ${ptx} text)
# One list element per kernel: split at each ".entry" (';' would split the list, so escape it).
string(REPLACE ";" "\\;" text "${text}")
string(REPLACE ".entry " ";.entry " entries "${text}")
set(checked 0)
set(bad "")
foreach(entry IN LISTS entries)
  if(NOT entry MATCHES "^\\.entry ([A-Za-z0-9_]+)")
    continue()
  endif()
  set(name ${CMAKE_MATCH_1})
  if(NOT name MATCHES "${KERNEL}")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  string(REGEX MATCHALL "\n\t(ld|st)\\.global(\\.nc)?\\.v[0-9]" global_vec "${entry}")
  string(REGEX MATCHALL "\n\t(ld|st)\\.v[0-9]" generic_vec "${entry}")
  list(LENGTH global_vec n_global)
  list(LENGTH generic_vec n_generic)
  message(STATUS "${name}: ${n_global} global, ${n_generic} generic vector accesses")
  if(n_generic GREATER 0 OR n_global EQUAL 0)
    list(APPEND bad ${name})
  endif()
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "no kernel matching '${KERNEL}' in ${ptx}")
endif()
if(bad)
  message(FATAL_ERROR "row accesses lost the .global state space in: ${bad}")
endif()
message(STATUS "${checked} kernels: every row access is .global")
