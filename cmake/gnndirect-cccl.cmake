# Defines gnndirect::cccl: the parts of CCCL that gnndirect's headers use, CUB and libcu++ (not
# Thrust, whose configuration macros stay the consumer's choice). Expects
# find_package(CCCL COMPONENTS CUB libcudacxx) to have run. Included by CMakeLists.txt and by the
# installed gnndirect-config.cmake.
if(NOT TARGET gnndirect::cccl)
  add_library(gnndirect::cccl INTERFACE IMPORTED GLOBAL)
  target_link_libraries(gnndirect::cccl INTERFACE CCCL::CUB CCCL::libcudacxx)
endif()
