#pragma once
// Definitions of graph/generator_options.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

constexpr graph_shape preset_shape(graph_preset preset) noexcept
{
  switch (preset) {
    case graph_preset::small: return {100'000, 2'000'000};
    case graph_preset::products: return {2'449'029, 61'859'140};
    case graph_preset::reddit: return {232'965, 114'615'892};
    case graph_preset::papers100m: return {111'059'956, 1'615'685'872};
    case graph_preset::twitter: return {41'652'230, 1'468'365'182};
  }
  return {0, 0};
}

constexpr rmat_parameters preset_rmat(graph_preset preset) noexcept
{
  if (preset == graph_preset::twitter) { return {0.62, 0.17, 0.17}; }
  return {};
}

inline generator_options preset_options(graph_preset preset, double scale,
                                        std::uint64_t seed)
{
  GNNDIRECT_EXPECTS(std::isfinite(scale) && scale > 0, "preset_options: scale must be positive");
  graph_shape const full = preset_shape(preset);
  generator_options options;
  options.num_nodes = std::max<std::int64_t>(1, std::llround(static_cast<double>(full.num_nodes) * scale));
  options.num_edges = std::llround(static_cast<double>(full.num_edges) * scale);
  options.seed = seed;
  options.rmat = preset_rmat(preset);
  return options;
}

constexpr std::int64_t output_edge_count(const generator_options& options) noexcept
{
  return options.symmetrize ? 2 * options.num_edges : options.num_edges;
}

GNNDIRECT_NAMESPACE_END
