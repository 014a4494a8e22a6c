#pragma once
// Definitions of device/sampled_output.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Offset, class Index>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE auto sampled_output<Offset, Index>::emit(
  std::int64_t position, std::int64_t slot) const -> void
{
  if (slot < 0 || slot >= slots) {  // one compare of registers on the hot path
    if (bad_slot != nullptr) { detail::report_first(bad_slot, row, static_cast<long long>(slot)); }
    return;
  }
  auto const e = static_cast<Offset>(first + position);
  out_neighbors[slot] = indices[e];
  if (out_edge_ids != nullptr) {
    out_edge_ids[slot] = csr_edge_ids != nullptr ? csr_edge_ids[e] : e;  // csr_view::edge_id
  }
}

GNNDIRECT_NAMESPACE_END
