#pragma once
// Definitions of owners/host_memory.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

inline host_memory_limit query_host_memory_limit()
{
  return detail::apply_host_memory_override(std::getenv("GNNDIRECT_HOST_MEMORY_LIMIT"),
                                            detail::probe_host_memory_limit());
}

inline host_memory_available query_host_memory_available()
{
  if (const char* text = std::getenv("GNNDIRECT_HOST_MEMORY_LIMIT")) {
    host_memory_limit const limit = detail::apply_host_memory_override(text, {});
    host_memory_available out;
    out.known = true;
    out.bytes = limit.bytes;
    out.source = limit.source;
    return out;
  }
  return detail::probe_host_memory_available();
}

GNNDIRECT_NAMESPACE_END
