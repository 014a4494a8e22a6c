#pragma once
// Definitions of pipeline/link_options.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Index, class Label, class Negatives>
void check_link_setup(
  const link_options& options, const link_seeds<Index, Label>& seeds, const Negatives& negatives,
  std::int64_t num_nodes, bool temporal)
{
  detail::check_link_setup(options, seeds, num_nodes, temporal);
  (void)negative_count(negatives, options.batch_size);  // amount > 0, no overflow
}

GNNDIRECT_NAMESPACE_END
