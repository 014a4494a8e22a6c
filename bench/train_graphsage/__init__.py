"""GraphSAGE on a generated ogbn-products-shaped graph (or, with --shape papers100m, an
ogbn-papers100M-shaped one), trained through several data paths in one run, with epoch time,
time split, test accuracy and CPU core-seconds per path.

Paths (each trains its own model from the same initial weights):
  pyg        THE BASELINE: PyG's own CPU-centric loader, what a PyG user runs today:
             torch_geometric.loader.NeighborLoader over a CPU Data(x, y, edge_index), sampling
             on the CPU through pyg-lib or (on the H200 machine, which has no pyg-lib) a CPU-only
             torch-sparse (scripts/gpu torch-sparse), features gathered in the workers,
             pin_memory=True, batch.to(cuda, non_blocking=True). Swept over --pyg-workers
             (persistent workers when > 0).
             The model runs over the whole sampled subgraph and keeps the seeds' rows (PyG's
             usual loop: torch-sparse gives no per-hop counts, so no trimming to blocks).
  pygfast    THE STRONG BASELINE: PyG with a fast CPU sampler (what pyg-lib gives a PyG user;
             pyg-lib has no release for this torch): PyG's own torch_geometric.loader.NodeLoader
             over the same CPU Data, driven by gnndirect_torch.pyg.GnnDirectCpuSampler
             (gnndirect's all-core C++ host::cpu_sampler with relabelling), features fetched by
             PyG (index_select in the workers), pin_memory=True, batch.to(cuda, non_blocking).
             Swept over --pygfast-workers; the sampler of each process gets cores //
             max(1, workers) threads (the sampler uses all cores itself: workers mainly overlap
             the feature fetch). The model runs over the per-hop blocks (the sampler gives per-hop
             counts), the same model work as the gnndirect paths.
             Every ratio (vs_base) is against the faster of the best pyg and the best pygfast
             loader (results["baseline"] names it); the JSON keeps the ratios against each.
  gnndirect  the "two-line change": features in a gnndirect Table (host memory, placement
             auto = managed_host on an H200) and gnndirect's NeighborLoader (GPU sampling
             from the host-resident graph, zero-copy gather, batches prepared on side streams).
             Without pyg/pygfast in --paths, the features and indices are generated straight
             into that placement (gnndirect_torch.empty) and the Table and Graph adopt them: one
             copy in host memory (papers100M at --scale 1 fits a 128 GiB host). Each path
             prints its peak host RSS (VmHWM, reset per path) and the host memory in use.
             With --codec (fp32, fp16, bf16, int8, fp8, int4) the Table stores its rows encoded
             with that row codec (encoded once on all host cores; decoded inside the gather) and
             the path's test accuracy is measured on the same decoded features
             ("test_acc"), and also on the fp32 features ("test_acc_fp32_features").
  graphhbm   gnndirect with the neighbour lists in HBM (Graph(placement="device"), a copy of
             indices there) and the features where gnndirect keeps them (same --codec, not in
             the default list): the papers100M runs' "lists in HBM" row.
  nodeloader PyG's NodeLoader driven by gnndirect's FeatureStore/GraphStore/sampler (same
             --codec as gnndirect).
  gpu        all-in-GPU upper bound: graph and features in HBM, gnndirect's loader.
  hostref    (oracle, not in the default list nor in any ratio) gnndirect's host reference
             sampler + index_select into pinned memory + copy, one prefetch thread.

Features (--features): "realistic" (default) looks like real node embeddings rather than unit
Gaussians: a low-rank class-dependent signal (rank min(16, features): class embeddings through a
fixed random projection) plus heavy-tailed Student-t noise (5 degrees of freedom: kurtosis 9; unit variance),
each column then scaled by a factor drawn log-uniformly over 2.5 decades (10^-1.25 .. 10^1.25)
and shifted by a column offset. Labels stay learnable from the features (the signal's energy
per column matches the old generator's) and from the neighbourhoods. Per-row quantisers (int8,
int4, fp8) meet what they meet on real data: one row mixes columns of very different scales
and a few outliers set the row's range. "gaussian": the previous generator (class centroid *
signal + N(0, 1)), for comparison with earlier numbers. What this cannot show: the accuracy cost
on a real dataset's features (their spectrum, their outliers); bench/codec_accuracy.py measures
every codec on these synthetic ones with the same seeds.

Time split, two views:
  loop     measured in the real, overlapped epoch: wait_s = the training loop blocked on the
           next batch (sampling + feature gather + collate + pinning that the loader did not
           hide; with workers this is only what the workers could not keep ahead of), h2d_s =
           GPU time of the loop's host-to-device copies, train_s = GPU time of the train steps
           (CUDA events, read after the epoch; no sync inside the loop). With workers, the
           per-stage CPU cost itself is not separable in the loop: it runs in other processes.
  serial   (split_per_epoch_s) --profile-batches batches, each stage timed alone with a sync
           (sample / gather / h2d / train), scaled to an epoch; for pyg it is PyG's sampler and
           filter_fn (+ pinning) in this process: the work a worker does per batch (here with
           all intra-op threads for the row gather; a worker has one).
CPU core-seconds per epoch count this process and its children (DataLoader workers): live
children through psutil, ended ones through RUSAGE_CHILDREN ("cpu_meter" in the JSON says which).

    python bench/train_graphsage.py                 # products-shaped, all paths
    python bench/train_graphsage.py --scale 0.1 --epochs 1 --json out.json
    python bench/train_graphsage.py --shape papers100m --scale 1 --epochs 1 --paths gnndirect,gpu
    python bench/train_graphsage.py --smoke-cpu --scale 0.01 --paths pyg,pygfast,hostref   # no GPU

Sweeps (pyg over --pyg-workers, pygfast over --pygfast-workers): with --pyg-sweep-batches N > 0
each worker count is timed over N batches after a warm-up (--warmup-batches, but at least
2 x num_workers x prefetch_factor batches, so that start-up is not timed), extrapolated to an
epoch ("extrapolated" in the JSON, "(extrap.)" in the table), and only the fastest count
trains the full --epochs (its real epoch time, accuracy and serial profile). N = 0, or an epoch
shorter than --warmup-batches + N batches: every count trains the full --epochs.

Layout (bench/train_graphsage/, run by the thin bench/train_graphsage.py or
`python -m train_graphsage` from bench/): data.py generates the graph and its features,
model.py is the GraphSAGE model, its train step and the test accuracy, measure.py the clocks and
meters (CUDA-event spans, CPU core-seconds, host memory), loaders.py one class per path, run.py
the command line, the timing of each path and sweep, the summary and the JSON.
"""

from __future__ import annotations

import os
import sys


def _prefer_installed_package() -> None:
    """Uses the installed gnndirect_torch (`pip install -v --no-build-isolation ./python`, or
    PYTHONPATH=python for a development build); only when none is importable, the tree's
    python/ (a `setup.py build_ext --inplace` build there)."""
    import importlib.util
    if importlib.util.find_spec("gnndirect_torch") is None:
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.path.join(here, "..", "..", "python"))


_prefer_installed_package()

from . import data, loaders, measure, model, run  # noqa: E402
from .data import generate, realistic_feature_model, realistic_rows  # noqa: E402
from .model import evaluate, make_model, model_blocks, train_step, training_stream  # noqa: E402
from .run import main, parse_args, summarize, time_window  # noqa: E402

__all__ = ["data", "loaders", "measure", "model", "run", "generate", "realistic_feature_model", "realistic_rows",
           "evaluate", "make_model", "model_blocks", "train_step", "training_stream", "main", "parse_args",
           "summarize", "time_window"]
