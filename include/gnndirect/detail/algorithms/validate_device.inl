#pragma once
// Definitions of algorithms/validate.cuh (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
void validate(cudaStream_t stream, const csr_view<Offset, Index>& graph, resource_ref mr)
{
  detail::check_csr_shape(graph);
  require_device();
  detail::check_csr_pointers(graph);
  if (auto const violation = detail::find_csr_violation_device(stream, graph, mr)) {
    detail::throw_csr_violation(graph, *violation, [stream](auto const* array, std::int64_t i) {
      return detail::fetch_element(stream, array, i);
    });
  }
}

GNNDIRECT_NAMESPACE_END
