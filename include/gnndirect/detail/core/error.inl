#pragma once
// Definitions of core/error.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

inline error::error(const char* file, int line, const std::string& message)
  : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + message)
{
}

inline index_out_of_range::index_out_of_range(const char* file, int line, const std::string& what, std::int64_t position,
                   std::int64_t value, std::int64_t bound)
  : invalid_argument(file, line,
                     what + "[" + std::to_string(position) + "] = " + std::to_string(value) +
                       " is out of range [0, " + std::to_string(bound) + ")"),
    position_(position),
    value_(value)
{
}

inline allocation_error::allocation_error(const char* file, int line, std::size_t bytes, memory_kind kind,
                 const std::string& reason)
  : error(file, line,
          "cannot allocate " + std::to_string(bytes) + " bytes of " +
            std::string(to_string(kind)) + " memory: " + reason),
    bytes_(bytes),
    kind_(kind)
{
}

GNNDIRECT_NAMESPACE_END
