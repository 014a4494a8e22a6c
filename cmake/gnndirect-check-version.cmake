# cmake -P script behind the `version_consistency` test: the project has one version number,
# include/gnndirect/core/version.hpp. CMake's project(VERSION) is read from it (passed here as
# EXPECTED); python/setup.py must report the same (`setup.py --version`, no torch needed), and so
# must the Python package's __version__ (python/gnndirect_torch/_util.py).
#   cmake -DPYTHON=python3 -DSOURCE_DIR=<repo> -DEXPECTED=0.1.0 -P this-file
foreach(var PYTHON SOURCE_DIR EXPECTED)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "gnndirect-check-version: ${var} not set")
  endif()
endforeach()
file(STRINGS ${SOURCE_DIR}/include/gnndirect/core/version.hpp header_lines
     REGEX "^#define GNNDIRECT_VERSION_(MAJOR|MINOR|PATCH) ")
string(REGEX REPLACE "[^;]*VERSION_[A-Z]+ ([0-9]+)" "\\1" header_version "${header_lines}")
string(REPLACE ";" "." header_version "${header_version}")
execute_process(COMMAND ${PYTHON} setup.py --version WORKING_DIRECTORY ${SOURCE_DIR}/python
                OUTPUT_VARIABLE setup_out ERROR_VARIABLE setup_err RESULT_VARIABLE rc)
string(STRIP "${setup_out}" setup_out)
string(REGEX REPLACE ".*\n" "" setup_version "${setup_out}")  # last line
file(STRINGS ${SOURCE_DIR}/python/gnndirect_torch/_util.py util_line REGEX "^__version__ = ")
string(REGEX REPLACE "^__version__ = \"([^\"]*)\".*" "\\1" util_version "${util_line}")
set(ok TRUE)
foreach(pair "version.hpp=${header_version}" "CMake project()=${EXPECTED}"
             "python/setup.py --version=${setup_version}" "gnndirect_torch.__version__=${util_version}")
  string(REGEX REPLACE "^(.*)=([^=]*)$" "\\2" value "${pair}")
  message(STATUS "${pair}")
  if(NOT value STREQUAL header_version)
    set(ok FALSE)
  endif()
endforeach()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "python/setup.py --version failed (${rc}):\n${setup_err}")
endif()
if(NOT ok)
  message(FATAL_ERROR "version numbers disagree (include/gnndirect/core/version.hpp is the one to follow)")
endif()
