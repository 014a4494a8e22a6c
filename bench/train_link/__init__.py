"""Link prediction on a generated ogbn-products-shaped graph, trained through several data paths
in one run (issue #41 item 5): epoch time (median over the epochs), CPU core-seconds, the
loader's share of the epoch, and test AUC and MRR per path.

Model: a 3-layer GraphSAGE encoder (mean aggregation, written in plain torch so that no path
needs PyG for the model) and a dot-product decoder, binary cross-entropy on binary negatives
1:1 (one random pair per positive, PyG's ``NegativeSampling("binary", 1)``), batch 1024 seed
edges, fanouts (15, 10, 5), Adam. Each path trains its own model from the same initial weights
on the same edges.

Paths (``--paths``, comma-separated, run in that order; by default pyg after the GPU paths, as
its DataLoader teardown joins each busy worker for up to 5 s; the JSON is written after every
path, before that teardown):
  gnndirect      gd.LinkNeighborLoader: GPU sampling and negatives, features in host memory in a
                 gd.Table (``--placement``, ``--codec``), graph in the same placement
  stores         PyG's own torch_geometric.loader.LinkNeighborLoader over gnndirect's
                 GnnDirectFeatureStore / GnnDirectGraphStore, sampled by GnnDirectSampler
                 (its sample_from_edges); same ``--placement`` and ``--codec``
  pyg            PyG's LinkNeighborLoader over a plain CPU Data, ``--workers`` processes,
                 pyg-lib's sampler when importable (torch-sparse otherwise; the JSON's
                 "backend" says which), pinned batches copied to the GPU: the CPU-centric
                 baseline. Without either backend PyG cannot sample: skipped, with the reason
  gpu            all in HBM: graph and features on the device, gd.LinkNeighborLoader
  gnndirect-cpu  gd.LinkNeighborLoader with device="cpu" (gnndirect's all-core host sampler and
                 gather), the batch copied to the GPU
``--smoke-cpu`` runs everything on the CPU with a tiny graph (the tests' mode): gnndirect and gpu
are skipped, stores runs the stores in host-reference mode (device="cpu").

Seed edges and message passing: none of these loaders removes a batch's seed edges from its
sampled neighbourhoods (gd.LinkNeighborLoader does not, see docs/link-prediction.md; PyG's
LinkNeighborLoader has no such option), so every record says "seed_edges_excluded": false. The
test edges are never in the graph. ``--disjoint-train-ratio r`` (PyG RandomLinkSplit's idea)
holds a share r of the training edges out of the message-passing graph and supervises on those
only, the same for every path: then no seed edge is ever sampled.

Data: train_graphsage's planted-community generator at the products shape x ``--scale``
(2,449,029 nodes, 61,859,140 directed edges, 100 features at 1.0): communities of Zipf-like
sizes (47), log-normal in-degrees, a share ``--p-in`` of each node's in-neighbours from its own
community, features = community signal (x ``--signal``) + heavy-tailed noise ("realistic") or
centroid + Gaussian noise. Edges are more likely inside a community and community members have
similar features, so the model learns, and AUC near 0.5 tells a broken path. The edges are split
``--test-ratio`` test / the rest training (all of them the message-passing graph, less the
disjoint share). An epoch is one pass over ``--epoch-edges`` supervision edges (a fixed random
subset of the training edges, the same for every path; 0: all of them), reshuffled per epoch.

Metrics (the same evaluator for every path: its own fixed-seed sampler and the fp32 features,
or with ``--codec`` the path's decoded table): ``--eval-edges`` test positives, each with
``--mrr-negatives`` K random destinations for its source. AUC (rank-based, ties averaged) of
the positives' scores against all the negatives'; MRR = mean of 1 / rank of each positive among
its own K negatives (ties count half). The check (exit 1): every path's AUC above ``--min-auc``
(0.6) and at least ``--min-auc-gain`` (0.03) above the untrained model's (the shared initial
weights, scored first: a random encoder already ranks same-community pairs above chance, so
0.5 is not the bar; a path that feeds shuffled labels or rows trains to about that level or
a little above, a correct one above it: +0.18 after 3 smoke epochs on the CPU, +0.067 after 2
epochs of 64 batches at --scale 0.5 on an H100, where the first bar of 0.1 failed every path,
pyg-lib's included). Epoch time: wall clock of the loop (batches, copies and
train steps), median over ``--epochs`` after ``--warmup-batches`` on a throwaway copy of the
model; wait_s: the loop blocked on the next batch (sampling, negatives, gather and the copy to
the GPU); loader_share = wait_s / epoch_s; cpu_core_s: this process and its workers.

    python bench/train_link.py --json out.json
    python bench/train_link.py --smoke-cpu --paths gnndirect-cpu,stores,pyg --json smoke.json

Layout: data.py (graph, split, evaluation edges), model.py (encoder, decoder, train step, AUC,
MRR, evaluator), paths.py (one class per path), run.py (command line, timing, summary, JSON).
The clocks and meters are bench/train_graphsage/measure.py's.
"""

from __future__ import annotations

import os
import sys


def _bench_on_path() -> None:
    """bench/ on sys.path (train_graphsage's helpers are imported from there), and the tree's
    python/ only when no gnndirect_torch is installed."""
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    bench = os.path.dirname(here)
    if bench not in sys.path:
        sys.path.insert(0, bench)
    if importlib.util.find_spec("gnndirect_torch") is None:
        sys.path.insert(0, os.path.join(bench, "..", "python"))


_bench_on_path()

from . import data, model, paths, run  # noqa: E402
from .model import mrr, roc_auc  # noqa: E402
from .run import main, parse_args  # noqa: E402

__all__ = ["data", "model", "paths", "run", "main", "parse_args", "mrr", "roc_auc"]
