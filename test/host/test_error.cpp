// Host tests of the exception hierarchy and the CUDA-call checks.
#include <doctest/doctest.h>

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>

#include <string>

namespace {
cudaError_t returns(cudaError_t code) { return code; }

std::string message_of(void (*f)())
{
  try {
    f();
  } catch (const gnndirect::error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("GNNDIRECT_CUDA_TRY throws cuda_error naming the call, code and location")
{
  bool caught = false;
  try {
    GNNDIRECT_CUDA_TRY(returns(cudaErrorInvalidValue));
  } catch (const gnndirect::no_device_error&) {
    FAIL("invalid value must not be reported as a missing device");
  } catch (const gnndirect::cuda_error& e) {
    caught = true;
    CHECK(e.code() == cudaErrorInvalidValue);
    std::string const what = e.what();
    CHECK(what.find("test_error.cpp:") != std::string::npos);
    CHECK(what.find("returns(cudaErrorInvalidValue)") != std::string::npos);
    CHECK(what.find("cudaErrorInvalidValue") != std::string::npos);
  }
  CHECK(caught);
  CHECK_NOTHROW(GNNDIRECT_CUDA_TRY(returns(cudaSuccess)));
}

TEST_CASE("driver-absent codes become no_device_error")
{
  for (cudaError_t code : {cudaErrorNoDevice, cudaErrorInsufficientDriver}) {
    CHECK_THROWS_AS(GNNDIRECT_CUDA_TRY(returns(code)), gnndirect::no_device_error);
  }
  CHECK(gnndirect::detail::is_no_device_code(cudaErrorNoDevice));
  CHECK_FALSE(gnndirect::detail::is_no_device_code(cudaErrorMemoryAllocation));
}

TEST_CASE("the no-throw variant reports and continues")
{
  CHECK_NOTHROW(GNNDIRECT_CUDA_TRY_NOTHROW(returns(cudaErrorInvalidValue)));
}

TEST_CASE("GNNDIRECT_EXPECTS throws invalid_argument with the message and the condition")
{
  std::string const what = message_of([] {
    int const rows = -1;
    GNNDIRECT_EXPECTS(rows >= 0, "rows must be non-negative");
  });
  CHECK(what.find("rows must be non-negative") != std::string::npos);
  CHECK(what.find("rows >= 0") != std::string::npos);
  CHECK(what.find("test_error.cpp:") != std::string::npos);
  CHECK_THROWS_AS(GNNDIRECT_EXPECTS(false, "x"), gnndirect::invalid_argument);
}

TEST_CASE("index_out_of_range and allocation_error carry their fields")
{
  gnndirect::index_out_of_range const e(__FILE__, __LINE__, "indices", 7, -3, 100);
  CHECK(e.position() == 7);
  CHECK(e.value() == -3);
  CHECK(std::string(e.what()).find("indices[7] = -3 is out of range [0, 100)") !=
        std::string::npos);
  gnndirect::allocation_error const a(__FILE__, __LINE__, 12345, gnndirect::memory_kind::pinned,
                                      "too big");
  CHECK(a.bytes() == 12345);
  CHECK(a.kind() == gnndirect::memory_kind::pinned);
  CHECK(std::string(a.what()).find("12345 bytes of pinned memory: too big") != std::string::npos);
}

TEST_CASE("require_device says plainly when there is no GPU")
{
  if (gnndirect::device_count() == 0) {
    try {
      gnndirect::require_device();
      FAIL("require_device must throw without a device");
    } catch (const gnndirect::no_device_error& e) {
      CHECK(std::string(e.what()).find("no CUDA device") != std::string::npos);
    }
  } else {
    CHECK(gnndirect::require_device() >= 0);
  }
}
