#pragma once
/// @file generator_options.hpp
/// @brief What the seeded graph generators draw: the random model, generator_options and the
/// presets shaped like the usual GNN datasets (host-compilable). The generators themselves, and
/// how they draw, are in generate.hpp (host) and generate.cuh (GPU).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// Random graph model.
enum class graph_model : std::uint8_t {
  rmat,     ///< recursive matrix (Kronecker) model: skewed, power-law-like degrees
  uniform,  ///< each endpoint uniform over [0, num_nodes) (Erdős–Rényi-like with exactly m edges)
};

/// R-MAT quadrant probabilities; d = 1 - a - b - c. Defaults are Graph500's (0.57, 0.19, 0.19,
/// 0.05).
struct rmat_parameters {
  double a{0.57};  ///< probability of the (low src, low dst) quadrant at each level
  double b{0.19};  ///< (low src, high dst)
  double c{0.19};  ///< (high src, low dst)
};

/// What to generate. Output edge j of a symmetrised graph is drawn edge j / 2, reversed when j is
/// odd; otherwise output edge j is drawn edge j.
struct generator_options {
  graph_model model{graph_model::rmat};  ///< random model
  std::int64_t num_nodes{0};             ///< node count (ids in [0, num_nodes))
  std::int64_t num_edges{0};             ///< edges drawn (the output has twice as many when symmetrize)
  std::uint64_t seed{0};                 ///< seed; same seed, same graph on host and GPU
  rmat_parameters rmat{};                ///< R-MAT probabilities
  bool scramble_ids{true};               ///< R-MAT: permute ids with a bijective hash
  bool drop_self_loops{false};           ///< redraw an edge whose endpoints coincide (needs 2+ nodes)
  bool symmetrize{false};                ///< emit every drawn edge in both directions
  bool weights{false};                   ///< one weight per edge in (0, 1] (same for both directions)
};

/// Datasets whose node and edge counts the presets copy.
enum class graph_preset : std::uint8_t {
  small,       ///< 100K nodes, 2M edges (tests, quick runs)
  products,    ///< ogbn-products: 2,449,029 nodes, 61,859,140 edges
  reddit,      ///< Reddit: 232,965 nodes, 114,615,892 edges (dense: 492 edges per node)
  papers100m,  ///< ogbn-papers100M: 111,059,956 nodes, 1,615,685,872 edges
  twitter,     ///< twitter-2010: 41,652,230 nodes, 1,468,365,182 edges (strongly skewed power law)
};

/// Node and edge counts.
struct graph_shape {
  std::int64_t num_nodes;  ///< nodes
  std::int64_t num_edges;  ///< edges
};

/// Full-size shape of a preset.  @param preset the preset  @return its node and edge counts
constexpr graph_shape preset_shape(graph_preset preset) noexcept;

/// R-MAT probabilities of a preset: Graph500's for all but `twitter`, whose follower graph is far
/// more skewed. For twitter, a + b = 0.79 (the src side's heavy half) puts an expected
/// m * 0.79^26 ~ 3.2M edges on the top node of the 2^26-id full-size graph, the order of the
/// largest degrees of twitter-2010 (millions), against m * 0.76^26 ~ 1.2M with Graph500's values;
/// a / d = 15.5 against 11.4. These are our choice, not fitted to the real degree sequence.
/// @param preset the preset  @return its probabilities
constexpr rmat_parameters preset_rmat(graph_preset preset) noexcept;

/// R-MAT options shaped like `preset`, node and edge counts multiplied by `scale` (rounded; at
/// least one node), so scale 0.01 gives a 1% graph with the same average degree.
/// @param preset the preset  @param scale size factor  @param seed the generator's seed
/// @return the options
/// @throws invalid_argument for a scale that is not finite and positive.
inline generator_options preset_options(graph_preset preset, double scale = 1.0,
                                        std::uint64_t seed = 0);

/// Number of edges the generator outputs (num_edges, doubled when symmetrising).
/// @param options the options  @return the count
constexpr std::int64_t output_edge_count(const generator_options& options) noexcept;

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/graph/generator_options.inl>
