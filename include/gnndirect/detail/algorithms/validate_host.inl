#pragma once
// Definitions of algorithms/validate.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
void validate(const csr_view<Offset, Index>& graph)
{
  detail::check_csr_shape(graph);
  detail::check_host_readable(graph);
  if (auto const violation = detail::find_csr_violation_host(graph)) {
    detail::throw_csr_violation(graph, *violation,
                                [](auto const* array, std::int64_t i) { return array[i]; });
  }
}

GNNDIRECT_NAMESPACE_END
