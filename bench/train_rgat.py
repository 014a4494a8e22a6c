#!/usr/bin/env python3
"""R-GAT (the model of MLPerf Training's GNN benchmark) on a generated IGBH-shaped typed graph,
trained through several data paths in one run: epoch time, seeds/s, the loader's share of the
epoch, CPU core-seconds and test accuracy per path (issue #40's comparison).

Paths (``--paths``, comma-separated):
  gnndirect   gd.NeighborLoader over a HeteroGraph (CUDA) and one Table per node type in host
              memory (``--placement``; once per ``--codecs`` entry): typed sampling on the GPU,
              zero-copy gathers
  graph-hbm   the same with every relation's lists in HBM, the tables in host memory (once per
              ``--codecs`` entry)
  gpu         the same all in HBM, fp32 (the all-in-GPU reference, where it fits)
  stores      PyG's own NeighborLoader over gnndirect's feature and graph stores with
              GnnDirectHeteroSampler (the PyG adapter's road; on the CPU with ``--smoke-cpu``)
  pyg         PyG's NeighborLoader over the HeteroData on the CPU (once per ``--workers``
              entry, e.g. 8,16: the best is the baseline; pyg-lib's sampler when importable:
              build it with ../shared/baselines/build-pyg-lib), the batch then copied to the GPU
              -- the CPU-centric baseline
  gnndirect-cpu  the same loader on the CPU (``device="cpu"``): gnndirect's host sampler
Records are named ``path`` or ``path+codec`` / ``pyg/N`` (N workers); the summary puts each
path's epoch beside the best pyg record and the fp32 all-in-GPU one, from the same run.
``--train-seeds`` / ``--test-seeds`` cap the seeds per epoch and evaluation (a fixed random
subset, the same for every path) so that a large graph fits a time-limited run.
``--smoke-cpu`` runs everything on the CPU (no GPU needed; for tests and a first look) with small
defaults (``SMOKE``: 64 features, 10 classes, fanouts (5, 5), batch 128, hidden 64, lr 0.01, 4
epochs; seconds on 2 cores) and the negative control on.

The graph (``--shape``): IGBH-full's node and edge counts (graph/generate_typed.hpp's preset) or
ogbn-mag's (``mag``: paper, author, institution, field_of_study) times ``--scale``, each relation
with skewed sources and uniform destinations, plus a rev_ relation each; every node type has
``--features`` float32 features (IGB: 1024 on every type; for ``mag`` 128, as ogbn-mag's paper
features and the 128-dim metapath2vec embeddings commonly used for its other types); paper labels are a fixed random projection of the paper
features (a linear model on them reaches about 0.87 test accuracy at the smoke size), so test
accuracy tells a path that misaligns features, seeds and labels: such a path stays at chance.
Each record has ``majority_acc`` (the best a constant prediction scores) beside ``test_acc``.
``--shuffled-control`` (on with ``--smoke-cpu``) trains the first path that ran once more on
permuted labels (``shuffled_control`` in the JSON): its accuracy must stay near chance, or the
check itself is broken (e.g. labels leaking into the features).

The model: per layer a HeteroConv of one GATConv per relation (4 heads, no self loops: the
relations are bipartite), the relations combined by ``--aggr`` (mean), plus a linear skip of each
node's own input, ReLU, dropout; a linear head on the papers. The skip and the mean matter: with
GATConv's self loop as the only road of a paper's own features and a sum over its six incoming
relations (the first version), the own features drown in the neighbours' and test accuracy
stayed near chance (0.17 after the 4 smoke epochs, 0.27 after 10; 0.16 with the skip but a
sum) while this model reaches 0.71, at a few per cent more time per epoch (0.74 s against
0.73 s back to back on 2 idle cores; time epochs on an idle machine: with other jobs beside it,
torch's spinning threads made the same epoch take 20 s). Fanouts (15, 10, 5) per relation, batch 1024 seeds,
Adam (lr 0.001) by default.

    python bench/train_rgat.py --scale 0.001 --epochs 3 --json out.json
    python bench/train_rgat.py --smoke-cpu --json smoke.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_graphsage.measure import cpu_seconds, sync, timed_batches  # noqa: E402

#: IGBH-full: node types with their counts, forward relations with their edge counts.
IGBH_NODES = {"paper": 269_346_174, "author": 277_220_883, "institute": 26_918, "fos": 712_960,
              "journal": 49_052, "conference": 4_547}
IGBH_RELATIONS = {("paper", "cites", "paper"): 3_996_442_004, ("paper", "written_by", "author"): 716_761_549,
                  ("author", "affiliated_to", "institute"): 48_521_486, ("paper", "topic", "fos"): 1_050_280_600,
                  ("paper", "published", "journal"): 196_200_110, ("paper", "venue", "conference"): 38_550_888}
#: ogbn-mag (OGB's MAG subset): node types with their counts, relations with their edge counts.
MAG_NODES = {"paper": 736_389, "author": 1_134_649, "institution": 8_740, "field_of_study": 59_965}
MAG_RELATIONS = {("author", "affiliated_with", "institution"): 1_043_998,
                 ("author", "writes", "paper"): 7_145_660, ("paper", "cites", "paper"): 5_416_271,
                 ("paper", "has_topic", "field_of_study"): 7_505_078}
SHAPES = {"igbh": (IGBH_NODES, IGBH_RELATIONS), "mag": (MAG_NODES, MAG_RELATIONS)}
PATHS = ("gnndirect", "graph-hbm", "gpu", "stores", "pyg", "gnndirect-cpu")
#: where each gnndirect path places the relations' lists and the tables (None: --placement)
PLACEMENTS = {"gnndirect": (None, None), "graph-hbm": ("device", None), "gpu": ("device", "device")}


def generate(scale: float, features: int, classes: int, seed: int, shape: str = "igbh"):
    """The ``shape``d HeteroData (CPU tensors) and the (train, test) paper ids."""
    from torch_geometric.data import HeteroData
    nodes, relations = SHAPES[shape]
    g = torch.Generator().manual_seed(seed)
    data = HeteroData()
    for t, n in nodes.items():
        data[t].num_nodes = max(1, round(n * scale))
        data[t].x = torch.randn(data[t].num_nodes, features, generator=g)
    projection = torch.randn(features, classes, generator=g)
    data["paper"].y = (data["paper"].x @ projection).argmax(dim=1)
    for (src, name, dst), edges in relations.items():
        count = max(1, round(edges * scale))
        # Skewed sources (a few very active nodes, as in citation graphs), uniform destinations.
        rows = (torch.rand(count, generator=g) ** 3 * data[src].num_nodes).long()
        cols = torch.randint(0, data[dst].num_nodes, (count,), generator=g)
        data[(src, name, dst)].edge_index = torch.stack([rows, cols])
        data[(dst, "rev_" + name, src)].edge_index = torch.stack([cols, rows])
    order = torch.randperm(data["paper"].num_nodes, generator=g)
    cut = int(0.8 * order.numel())
    return data, order[:cut], order[cut:]


def make_model(data, hidden: int, heads: int, classes: int, layers: int, aggr: str = "mean"):
    """R-GAT: per layer a HeteroConv of one GATConv per edge type (no self loops: the relations
    are bipartite), the relations' outputs combined by ``aggr`` ("mean" default, or "sum"), plus a
    linear skip of every node's own input (its own features reach its output whatever its
    neighbours are), ReLU, dropout; a linear head on the paper nodes."""
    from torch_geometric.nn import GATConv, HeteroConv, Linear

    class RGAT(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.convs = torch.nn.ModuleList(
                HeteroConv({e: GATConv((-1, -1), hidden // heads, heads=heads, add_self_loops=False)
                            for e in data.edge_types}, aggr=aggr) for _ in range(layers))
            self.skips = torch.nn.ModuleList(
                torch.nn.ModuleDict({t: Linear(-1, hidden) for t in data.node_types}) for _ in range(layers))
            self.head = torch.nn.Linear(hidden, classes)

        def forward(self, x_dict, edge_index_dict):
            for conv, skips in zip(self.convs, self.skips):
                out = conv(x_dict, edge_index_dict)
                # node types no relation points to keep their skip term only
                out = {t: skips[t](v) + out[t] if t in out else skips[t](v) for t, v in x_dict.items()}
                x_dict = {t: torch.nn.functional.dropout(v.relu(), 0.2, self.training) for t, v in out.items()}
            return self.head(x_dict["paper"])

    return RGAT()


class Path:
    """One data path: ``batches(ids, shuffle)`` yields (x_dict, edge_index_dict, y, batch size)
    on ``device``. ``name``: a PATHS entry; ``codec``: the gnndirect tables' (None: fp32);
    ``workers``: the pyg path's."""

    def __init__(self, name, data, args, device, codec=None, workers=0):
        self.name, self.device, self.args, self.workers = name, device, args, workers
        self.fanouts = {e: list(args.fanouts) for e in data.edge_types}
        if name.startswith("gnndirect") or name in PLACEMENTS:
            import gnndirect_torch as gd
            from gnndirect_torch.hetero import HeteroGraph
            where = "cpu" if name == "gnndirect-cpu" else device
            graph_at, tables_at = PLACEMENTS.get(name, (None, None))
            graph_kw = {} if name == "gnndirect-cpu" else {"placement": graph_at or args.placement}
            table_kw = {} if name == "gnndirect-cpu" else {"placement": tables_at or args.placement}
            self.graph = HeteroGraph.from_hetero_data(data, device=where, **graph_kw)
            self.tables = {t: gd.Table(data[t].x, device=where, codec=codec, **table_kw) for t in data.node_types}
            self.labels = data["paper"].y
        elif name == "stores":
            from gnndirect_torch.pyg import GnnDirectFeatureStore, GnnDirectGraphStore
            from gnndirect_torch.pyg_hetero import GnnDirectHeteroSampler, put_hetero_data
            where = {"device": "cpu"} if device.type == "cpu" else {}  # CPU: the host sampler
            self.stores = (GnnDirectFeatureStore(**where), GnnDirectGraphStore(**where))
            put_hetero_data(data, *self.stores)
            self.sampler = GnnDirectHeteroSampler(self.stores, self.fanouts)
        else:
            self.data = data

    def batches(self, ids, shuffle, epoch_seed):
        a = self.args
        if hasattr(self, "tables"):
            import gnndirect_torch as gd
            loader = gd.NeighborLoader(self.graph, self.tables, self.labels, ("paper", ids), self.fanouts,
                                       a.batch_size, shuffle=shuffle, seed=epoch_seed)
            for batch in loader:
                pyg = batch.to_pyg()
                yield pyg.x_dict, pyg.edge_index_dict, pyg["paper"].y.to(self.device), batch.batch_size
            return
        from torch_geometric.loader import NeighborLoader
        if self.name == "stores":
            loader = NeighborLoader(self.stores, self.fanouts, input_nodes=("paper", ids), batch_size=a.batch_size,
                                    shuffle=shuffle, neighbor_sampler=self.sampler)
        else:
            workers = self.workers
            loader = NeighborLoader(self.data, self.fanouts, input_nodes=("paper", ids), batch_size=a.batch_size,
                                    shuffle=shuffle, num_workers=workers, persistent_workers=False,
                                    pin_memory=self.device.type == "cuda" and workers > 0)
        for batch in loader:
            batch = batch.to(self.device, non_blocking=True)
            size = batch["paper"].batch_size
            yield batch.x_dict, batch.edge_index_dict, batch["paper"].y[:size], size


def pyg_sampler_available():
    """Whether PyG's NeighborLoader can sample a HeteroData (pyg-lib or torch-sparse)."""
    import torch_geometric.typing as typing
    return bool(getattr(typing, "WITH_PYG_LIB", False) or getattr(typing, "WITH_TORCH_SPARSE", False))


def run_path(path, data, train, test, args, device):
    """Trains a fresh model through ``path`` for ``args.epochs`` epochs; the record of the run."""
    torch.manual_seed(args.seed)
    model = make_model(data, args.hidden, args.heads, args.classes, len(args.fanouts), args.aggr).to(device)
    with torch.no_grad():  # the lazy layers meet their input sizes
        x, edges, _, _ = next(path.batches(train[:args.batch_size], False, 0))
        model(x, edges)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    epochs = []
    for epoch in range(args.epochs):
        model.train()
        times = {"wait_s": 0.0}
        losses, cpu0 = [], cpu_seconds()
        sync(device)
        t0 = time.perf_counter()
        for x, edges, y, size in timed_batches(path.batches(train, True, args.seed + epoch), None, times):
            loss = torch.nn.functional.cross_entropy(model(x, edges)[:size], y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.detach())
        sync(device)
        seconds = time.perf_counter() - t0
        epochs.append({"epoch_s": seconds, "wait_s": times["wait_s"], "cpu_core_s": cpu_seconds() - cpu0,
                       "seeds_per_s": train.numel() / seconds, "loss": float(torch.stack(losses).mean())})
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, edges, y, size in path.batches(test, False, 0):
            correct += int((model(x, edges)[:size].argmax(dim=1) == y).sum())
    median = statistics.median(e["epoch_s"] for e in epochs)
    labels = data["paper"].y[test]
    majority = int(torch.bincount(labels, minlength=args.classes).max()) if test.numel() else 0
    return {"epochs": epochs, "median_epoch_s": median, "seeds_per_s": train.numel() / median,
            "median_cpu_core_s": statistics.median(e["cpu_core_s"] for e in epochs),
            "median_wait_s": statistics.median(e["wait_s"] for e in epochs), "test_acc": correct / max(1, test.numel()),
            "majority_acc": majority / max(1, test.numel())}  # a constant prediction's best


#: --smoke-cpu's defaults (each overridable): a small graph and model that learn in seconds on
#: 2 cores (68 steps of batch 128; the sampled subgraph covers most of this tiny graph).
SMOKE = {"scale": 0.00001, "features": 64, "classes": 10, "fanouts": [5, 5], "batch_size": 128, "hidden": 64,
         "lr": 0.01, "epochs": 4, "paths": "gnndirect-cpu,stores,pyg", "workers": [0]}
DEFAULTS = {"scale": 0.001, "features": 1024, "classes": 19, "fanouts": [15, 10, 5], "batch_size": 1024,
            "hidden": 512, "lr": 0.001, "epochs": 3, "paths": "gnndirect,stores,pyg",
            "workers": [min(16, os.cpu_count() or 1)]}


def parse_args(argv=None):
    """The command line; options left out take ``SMOKE``'s values with ``--smoke-cpu``, else
    ``DEFAULTS``'."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    fanouts = lambda s: [int(v) for v in s.split(",")]  # noqa: E731
    p.add_argument("--scale", type=float, help="of IGBH-full's counts (default 0.001; smoke 0.00001)")
    p.add_argument("--features", type=int, help="per node (IGBH: 1024; mag 128; smoke 64)")
    p.add_argument("--classes", type=int, help="paper classes (IGBH: 19 or 2983; smoke 10)")
    p.add_argument("--fanouts", type=fanouts, help="per relation and layer (default 15,10,5; smoke 5,5)")
    p.add_argument("--batch-size", type=int, help="seeds per batch (default 1024; smoke 128)")
    p.add_argument("--hidden", type=int, help="default 512; smoke 64")
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--aggr", default="mean", choices=("mean", "sum"), help="of the relations into a node type")
    p.add_argument("--lr", type=float, help="Adam's (default 0.001; smoke 0.01)")
    p.add_argument("--epochs", type=int, help="default 3")
    p.add_argument("--paths", help="default gnndirect,stores,pyg; smoke gnndirect-cpu,stores,pyg")
    p.add_argument("--shape", default="igbh", choices=sorted(SHAPES), help="the typed graph's schema and counts")
    p.add_argument("--train-seeds", type=int, default=0, help="train seeds per epoch (0: all train papers)")
    p.add_argument("--test-seeds", type=int, default=0, help="papers evaluated (0: all test papers)")
    p.add_argument("--placement", default="auto", help="of the gnndirect path's tables and relations")
    p.add_argument("--codecs", default="none",
                   help="comma list: the gnndirect and graph-hbm paths' table codecs, one run each (e.g. none,int8)")
    p.add_argument("--workers", type=lambda v: [int(w) for w in v.split(",")],
                   help="the pyg path's processes, one run per entry (default min(16, cores); smoke 0)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--smoke-cpu", action="store_true", help="no GPU: every path on the CPU, small defaults")
    p.add_argument("--shuffled-control", action=argparse.BooleanOptionalAction, default=None,
                   help="also train the first path that runs on shuffled paper labels (a negative control: "
                        "its test accuracy must stay near chance); default: on with --smoke-cpu")
    p.add_argument("--json")
    args = p.parse_args(argv)
    if args.features is None and args.shape == "mag" and not args.smoke_cpu:
        args.features = 128  # ogbn-mag's width
    for key, value in (SMOKE if args.smoke_cpu else DEFAULTS).items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    if args.shuffled_control is None:
        args.shuffled_control = args.smoke_cpu
    for name in args.paths.split(","):
        if name not in PATHS:
            p.error(f"unknown path {name!r} (paths: {', '.join(PATHS)})")
    return args


def shuffled_labels(data, seed: int):
    """``data`` with its paper labels permuted (a fixed permutation of ``seed``): the features
    and graph no longer tell a paper's label, so a model can only reach chance on them."""
    import copy
    control = copy.copy(data)  # shares every tensor but the labels
    control["paper"].y = data["paper"].y[torch.randperm(data["paper"].num_nodes,
                                                        generator=torch.Generator().manual_seed(seed + 1))]
    return control


def runs_of(args):
    """(record name, path name, codec, workers) of every run the arguments ask for."""
    codecs = [None if c in ("none", "fp32") else c for c in args.codecs.split(",")]
    for name in args.paths.split(","):
        if name in ("gnndirect", "graph-hbm"):
            for codec in codecs:
                yield (name if codec is None else f"{name}+{codec}"), name, codec, 0
        elif name == "pyg":
            for w in args.workers:
                yield ("pyg" if len(args.workers) == 1 else f"pyg/{w}"), name, None, w
        else:
            yield name, name, None, 0


def capped(ids, count: int, seed: int):
    """``count`` of ``ids`` (a fixed random subset of ``seed``; all of them for 0)."""
    if count <= 0 or count >= ids.numel():
        return ids
    return ids[torch.randperm(ids.numel(), generator=torch.Generator().manual_seed(seed + 2))[:count]]


def comparison(paths):
    """Each record's epoch against the best pyg record and the fp32 all-in-GPU one (same run)."""
    ran = {n: r for n, r in paths.items() if "skipped" not in r}
    pyg = [r["median_epoch_s"] for n, r in ran.items() if n == "pyg" or n.startswith("pyg/")]
    gpu = ran.get("gpu", {}).get("median_epoch_s")
    out = {}
    for n, r in ran.items():
        out[n] = {"speedup_vs_best_pyg": min(pyg) / r["median_epoch_s"] if pyg else None,
                  "vs_gpu_fp32": r["median_epoch_s"] / gpu if gpu else None}
    return out


def print_report(report, args):
    """The run as a table (the JSON has every epoch)."""
    print(f"R-GAT on {args.shape} x{args.scale} ({report['device']}): {report['graph']['edges']} edges, "
          f"{report['train_seeds']} train seeds, fanouts {args.fanouts}, batch {args.batch_size}")
    print(f"{'path':<18} {'epoch s':>9} {'seeds/s':>10} {'wait s':>8} {'cpu core-s':>10} {'test acc':>8} "
          f"{'x best pyg':>10} {'/ gpu fp32':>10}")
    for name, r in report["paths"].items():
        if "skipped" in r:
            print(f"{name:<18} skipped: {r['skipped']}")
            continue
        c = report["comparison"][name]
        ratio = lambda v: f"{v:>10.2f}" if v is not None else f"{'-':>10}"  # noqa: E731
        print(f"{name:<18} {r['median_epoch_s']:>9.3f} {r['seeds_per_s']:>10.0f} {r['median_wait_s']:>8.3f} "
              f"{r['median_cpu_core_s']:>10.1f} {r['test_acc']:>8.3f} {ratio(c['speedup_vs_best_pyg'])} "
              f"{ratio(c['vs_gpu_fp32'])}")
    if "shuffled_control" in report:
        r = report["shuffled_control"]
        print(f"negative control ({r['path']} on shuffled labels): test acc {r['test_acc']:.3f} "
              f"(majority class {r['majority_acc']:.3f})")


def main(argv=None):
    # line by line even into a file: a run cut off by a time limit keeps the paths it finished
    sys.stdout.reconfigure(line_buffering=True)
    args = parse_args(argv)
    if not args.smoke_cpu and not torch.cuda.is_available():
        print("train_rgat.py: no GPU (use --smoke-cpu for a CPU run)", file=sys.stderr)
        return 1
    device = torch.device("cpu" if args.smoke_cpu else "cuda")
    data, train, test = generate(args.scale, args.features, args.classes, args.seed, args.shape)
    train, test = capped(train, args.train_seeds, args.seed), capped(test, args.test_seeds, args.seed + 1)
    report = {"config": {k: v for k, v in vars(args).items() if k != "json"},
              "device": "cpu" if args.smoke_cpu else torch.cuda.get_device_name(0),
              "graph": {"nodes": {t: int(data[t].num_nodes) for t in data.node_types},
                        "edges": int(sum(data[e].edge_index.shape[1] for e in data.edge_types)),
                        "feature_bytes": int(sum(data[t].x.numel() * 4 for t in data.node_types))},
              "train_seeds": int(train.numel()), "test_seeds": int(test.numel()), "paths": {}}
    first = None
    for record, name, codec, workers in runs_of(args):
        if name == "pyg" and not pyg_sampler_available():
            report["paths"][record] = {"skipped": "PyG has no hetero sampler here (pyg-lib or torch-sparse)"}
            continue
        if name in PLACEMENTS and device.type != "cuda":
            report["paths"][record] = {"skipped": "needs a GPU"}
            continue
        path = Path(name, data, args, device, codec, workers)
        report["paths"][record] = dict(run_path(path, data, train, test, args, device), codec=codec,
                                       workers=workers)
        r = report["paths"][record]
        print(f"{record}: epoch {r['median_epoch_s']:.3f} s, {r['seeds_per_s']:.0f} seeds/s, "
              f"{r['median_cpu_core_s']:.1f} CPU core-s, test acc {r['test_acc']:.3f}")
        del path  # its tables and graph go before the next path places its own
        first = first or (name, codec, workers)
    report["comparison"] = comparison(report["paths"])
    if args.shuffled_control and first:
        control = shuffled_labels(data, args.seed)
        record = run_path(Path(first[0], control, args, device, first[1], first[2]), control, train, test, args,
                          device)
        report["shuffled_control"] = dict(record, path=first[0])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    print_report(report, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
