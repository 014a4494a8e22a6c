// How much of an epoch's host-link traffic an HBM tier of the hottest nodes would serve (issue
// #18): for each budget (share of the nodes, hottest by in-degree, the feature cache's `degree`
// hot set), the share of the feature-row bytes and of the neighbour-list bytes that would come
// from HBM, and the HBM bytes each tier needs. The cached demo path keeps only feature rows in
// HBM; its neighbour lists all cross the link. Counts, not timings: runs anywhere (host only).
//
// Traffic model (the demo's, bench/epoch/paths.cuh): a feature row costs dim x 4 bytes per
// input node of a batch; a dst node's neighbour list costs min(128-B lines of its list, the
// layer's fanout) x 128 bytes per layer it is sampled in. Batches as in the demo: training nodes
// spread evenly over the ids, shuffled, 1024 seeds, fanouts [15,10,5], the fast CPU sampler.
//
// The presets, their feature widths and training-node counts are the demo's (its option helpers).
//
//   tier_model [--preset papers100m] [--scale 0.05] [--batches 48] [--budgets 5,10,20,40]
//              [--feature-dim D] [--train-nodes N] [--seed 1]
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/host/cpu_sampler.hpp>

#include "epoch/options.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using offset_type = std::int64_t;
using index_type = std::int32_t;

struct model_args {
  gnndirect::graph_preset preset{gnndirect::graph_preset::papers100m};
  std::string preset_name{"papers100m"};
  double scale{0.05};
  int batches{48};
  std::vector<double> budgets{5, 10, 20, 40};
  std::int64_t feature_dim{-1};  // default: the demo's width for the preset
  std::int64_t train_nodes{-1};  // default: the demo's training-node count for the preset
  std::uint64_t seed{1};
};

constexpr const char* usage_text =
  "usage: tier_model [--preset papers100m|products|reddit|twitter|small] [--scale X] [--batches N]\n"
  "                  [--budgets 5,10,20] [--feature-dim D] [--train-nodes N] [--seed S]\n";

[[noreturn]] void usage_error(const std::string& what)
{
  std::fprintf(stderr, "tier_model: %s\n%s", what.c_str(), usage_text);
  std::exit(2);
}

model_args parse_args(int argc, char** argv)
{
  gnndirect_demo::program_name() = "tier_model";
  model_args a;
  for (int i = 1; i < argc; i += 2) {
    std::string const flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(usage_text, stdout);
      std::exit(0);
    }
    if (i + 1 >= argc) { usage_error(flag + " needs a value"); }
    std::string const value = argv[i + 1];
    namespace demo = gnndirect_demo;
    constexpr long long any = std::numeric_limits<long long>::max();
    if (flag == "--preset") {
      a.preset = demo::parse_preset(value);
      a.preset_name = value;
    }
    else if (flag == "--scale") { a.scale = demo::parse_real(flag, value, 0, 1e6, "a number > 0"); }
    else if (flag == "--batches") { a.batches = demo::parse_integer<int>(flag, value, 1, 1 << 20); }
    else if (flag == "--feature-dim") { a.feature_dim = demo::parse_integer<std::int64_t>(flag, value, 1, 1 << 20); }
    else if (flag == "--train-nodes") { a.train_nodes = demo::parse_integer<std::int64_t>(flag, value, 1, any); }
    else if (flag == "--seed") { a.seed = demo::parse_seed(flag, value); }
    else if (flag == "--budgets") {
      a.budgets.clear();
      for (auto const& part : demo::split_list(flag, value, "a comma-separated list of percentages in (0, 100]")) {
        a.budgets.push_back(demo::parse_real(flag, part, 0, 100, "a percentage in (0, 100]"));
      }
    } else { usage_error("unknown option " + flag); }
  }
  if (a.feature_dim < 0) { a.feature_dim = gnndirect_demo::default_feature_dim(a.preset); }
  return a;
}

/// Node ids by decreasing in-degree (ties by id): the first k are the hot set of a budget.
std::vector<index_type> nodes_by_degree(const std::vector<offset_type>& indptr)
{
  std::vector<index_type> order(indptr.size() - 1);
  std::iota(order.begin(), order.end(), index_type{0});
  std::stable_sort(order.begin(), order.end(), [&](index_type x, index_type y) {
    return indptr[x + 1] - indptr[x] > indptr[y + 1] - indptr[y];
  });
  return order;
}

/// Bytes the model charges for reading node v's list in a layer of fanout `fanout`.
std::uint64_t list_bytes(const std::vector<offset_type>& indptr, index_type v, int fanout)
{
  auto const degree = indptr[v + 1] - indptr[v];
  std::int64_t const lines = (degree * static_cast<std::int64_t>(sizeof(index_type)) + 127) / 128;
  return static_cast<std::uint64_t>(std::min<std::int64_t>(lines, fanout)) * 128u;
}

/// Per budget: bytes of each kind in total and from the hot set.
struct tally {
  std::uint64_t feature_bytes{0};
  std::uint64_t list_bytes{0};
  std::vector<std::uint64_t> hot_feature_bytes;
  std::vector<std::uint64_t> hot_list_bytes;
};

}  // namespace

int main(int argc, char** argv)
{
  model_args const a = parse_args(argc, argv);
  auto const options = gnndirect::preset_options(a.preset, a.scale, a.seed);
  std::printf("generating %s x %g on the host: %lld nodes, %lld edges\n", a.preset_name.c_str(), a.scale,
              static_cast<long long>(options.num_nodes), static_cast<long long>(options.num_edges));
  auto const graph = gnndirect::host::generate_csr<offset_type, index_type>(options);
  std::int64_t const n = graph.num_nodes;
  std::vector<index_type> const order = nodes_by_degree(graph.indptr);

  // rank[v] = position of v in the degree order: v is hot for budget b when rank < k_b.
  std::vector<std::int64_t> rank(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) { rank[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = i; }
  std::vector<std::int64_t> hot_count;
  for (double b : a.budgets) { hot_count.push_back(static_cast<std::int64_t>(static_cast<double>(n) * b / 100.0)); }

  std::int64_t const train = a.train_nodes > 0 ? std::min(a.train_nodes, n)
                                                : gnndirect_demo::default_train_nodes(a.preset, a.scale, n);
  std::vector<index_type> training(static_cast<std::size_t>(train));
  for (std::int64_t i = 0; i < train; ++i) { training[static_cast<std::size_t>(i)] = static_cast<index_type>(i * n / train); }
  std::mt19937_64 rng(a.seed);
  std::shuffle(training.begin(), training.end(), rng);

  std::vector<int> const fanouts{15, 10, 5};
  gnndirect::uniform_sampler const policy{a.seed};
  gnndirect::host::cpu_sampler sampler;
  tally t;
  t.hot_feature_bytes.assign(a.budgets.size(), 0);
  t.hot_list_bytes.assign(a.budgets.size(), 0);
  std::uint64_t const row_bytes = static_cast<std::uint64_t>(a.feature_dim) * 4u;
  std::int64_t const batch = 1024;
  int done = 0;
  for (std::int64_t first = 0; first < train && done < a.batches; first += batch, ++done) {
    std::int64_t const count = std::min(batch, train - first);
    auto const blocks = sampler.sample_blocks(graph.view(), training.data() + first, count, fanouts, policy);
    for (std::size_t l = 0; l < blocks.layers.size(); ++l) {
      for (index_type v : blocks.layers[l].dst_nodes) {
        std::uint64_t const bytes = list_bytes(graph.indptr, v, fanouts[l]);
        t.list_bytes += bytes;
        for (std::size_t b = 0; b < a.budgets.size(); ++b) {
          if (rank[static_cast<std::size_t>(v)] < hot_count[b]) { t.hot_list_bytes[b] += bytes; }
        }
      }
    }
    for (index_type v : blocks.input_nodes()) {
      t.feature_bytes += row_bytes;
      for (std::size_t b = 0; b < a.budgets.size(); ++b) {
        if (rank[static_cast<std::size_t>(v)] < hot_count[b]) { t.hot_feature_bytes[b] += row_bytes; }
      }
    }
  }

  double const total = static_cast<double>(t.feature_bytes + t.list_bytes);
  std::printf("%d batches of %lld seeds, fanouts 15,10,5: feature rows %.2f GB (%.0f%% of the link "
              "bytes), neighbour lists %.2f GB (%.0f%%)\n\n", done, static_cast<long long>(batch),
              static_cast<double>(t.feature_bytes) / 1e9, 100.0 * static_cast<double>(t.feature_bytes) / total,
              static_cast<double>(t.list_bytes) / 1e9, 100.0 * static_cast<double>(t.list_bytes) / total);
  std::printf("budget %%  hot nodes   features from HBM  lists from HBM  HBM for features  HBM for lists  "
              "link bytes left: feature tier only / both tiers\n");
  for (std::size_t b = 0; b < a.budgets.size(); ++b) {
    std::uint64_t list_hbm = 0;  // the hot nodes' whole lists
    for (std::int64_t i = 0; i < hot_count[b]; ++i) {
      index_type const v = order[static_cast<std::size_t>(i)];
      list_hbm += static_cast<std::uint64_t>(graph.indptr[v + 1] - graph.indptr[v]) * sizeof(index_type);
    }
    double const features_only = static_cast<double>(t.feature_bytes - t.hot_feature_bytes[b] + t.list_bytes);
    double const both = features_only - static_cast<double>(t.hot_list_bytes[b]);
    std::printf("%8.1f  %9lld   %16.1f%%  %13.1f%%  %13.2f GB  %10.2f GB  %18.1f%% / %.1f%%\n", a.budgets[b],
                static_cast<long long>(hot_count[b]),
                100.0 * static_cast<double>(t.hot_feature_bytes[b]) / static_cast<double>(t.feature_bytes),
                100.0 * static_cast<double>(t.hot_list_bytes[b]) / static_cast<double>(t.list_bytes),
                static_cast<double>(hot_count[b]) * static_cast<double>(row_bytes) / 1e9,
                static_cast<double>(list_hbm) / 1e9, 100.0 * features_only / total, 100.0 * both / total);
  }
  return 0;
}
