# cmake -P script behind the `header_check_host_only` test: each header of HEADERS (a ;-list of
# paths relative to INCLUDE_DIR) must compile with the host compiler COMPILER as C++17 with
# nothing but INCLUDE_DIR on the include path, and must include no file of the CUDA toolkit, not
# even one that the compiler happens to find on its default include path (some installations put
# cuda_runtime_api.h in /usr/local/include or /usr/include).
#   cmake -DCOMPILER=g++ -DINCLUDE_DIR=include -DWORK_DIR=dir "-DHEADERS=a.hpp;b.hpp" -P this-file
foreach(var COMPILER INCLUDE_DIR WORK_DIR HEADERS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "gnndirect-check-host-headers: ${var} not set")
  endif()
endforeach()
# Header names of the CUDA toolkit (runtime, libcu++, CUB, Thrust, NV target macros).
set(cuda_file_regex "(^|/)(cuda[A-Za-z0-9_]*\\.h|builtin_types\\.h|driver_types\\.h|vector_types\\.h|host_defines\\.h|cuda/|cub/|thrust/|nv/|crt/|cccl/)")
file(MAKE_DIRECTORY ${WORK_DIR})
set(failures 0)
foreach(header IN LISTS HEADERS)
  string(MAKE_C_IDENTIFIER ${header} id)
  set(source ${WORK_DIR}/${id}.cpp)
  file(WRITE ${source} "#include <${header}>\n#include <${header}>\nint main() { return 0; }\n")
  execute_process(
    COMMAND ${COMPILER} -std=c++17 -fsyntax-only -Wall -Wextra -Wpedantic -Werror
            -I${INCLUDE_DIR} -MD -MF ${WORK_DIR}/${id}.d ${source}
    RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "${header}: does not compile with ${COMPILER} -std=c++17 -I<include> alone:\n${err}")
    math(EXPR failures "${failures} + 1")
    continue()
  endif()
  file(READ ${WORK_DIR}/${id}.d deps)
  string(REPLACE "\\\n" " " deps "${deps}")
  string(REGEX REPLACE "[ \t\n]+" ";" deps "${deps}")
  foreach(dep IN LISTS deps)
    if(dep MATCHES "${cuda_file_regex}" AND NOT dep MATCHES "^${INCLUDE_DIR}/gnndirect/")
      message(SEND_ERROR "${header}: includes the CUDA toolkit's ${dep}; it is listed as needing "
                         "only a C++17 compiler (test/CMakeLists.txt, README)")
      math(EXPR failures "${failures} + 1")
    endif()
  endforeach()
endforeach()
list(LENGTH HEADERS count)
if(failures)
  message(FATAL_ERROR "${failures} problem(s) in ${count} host-only headers")
endif()
message(STATUS "${count} host-only headers compile with ${COMPILER} alone and include nothing from CUDA")
