# Compiles SOURCE with nvcc (COMPILER, INCLUDE_DIRS, CCCL_DIR) and passes only when the compile
# fails with EXPECTED in its diagnostics: unsupported uses must fail with the library's readable
# static_assert. Run as: cmake -DCOMPILER=... -DSOURCE=... -DEXPECTED=... -DINCLUDE_DIR=... -P this
execute_process(
  COMMAND ${COMPILER} -std=c++17 -c ${SOURCE} -o ${WORK_DIR}/compile_fail.o -I${INCLUDE_DIR} ${EXTRA_FLAGS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it must be rejected")
endif()
string(FIND "${out}${err}" "${EXPECTED}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${SOURCE} failed without the expected message '${EXPECTED}':\n${out}${err}")
endif()
message(STATUS "${SOURCE}: rejected with '${EXPECTED}'")
