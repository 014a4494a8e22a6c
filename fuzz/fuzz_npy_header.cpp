// libFuzzer target: parse_npy_header and check_npy_data_size on arbitrary bytes. They must either
// return a header whose fields are consistent or throw gnndirect::invalid_argument; anything else
// (a crash, a sanitizer report, another exception) is a bug.
#include <gnndirect/io/npy_header.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  try {
    auto const header = gnndirect::parse_npy_header(reinterpret_cast<const char*>(data), size, "fuzz");
    std::uint64_t count = 1;
    for (std::int64_t const dim : header.shape) {
      if (dim < 0) { std::abort(); }
      count *= static_cast<std::uint64_t>(dim);
    }
    bool const consistent = header.data_offset <= size &&
                            count == static_cast<std::uint64_t>(header.element_count) &&
                            header.data_bytes == count * gnndirect::npy_itemsize(header.dtype);
    if (!consistent) { std::abort(); }
    gnndirect::check_npy_data_size(header, size, "fuzz");
    if (size - header.data_offset < header.data_bytes) { std::abort(); }
  } catch (const gnndirect::invalid_argument&) {
  }
  return 0;
}
