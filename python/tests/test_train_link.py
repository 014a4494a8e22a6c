"""The link-prediction training benchmark (bench/train_link/): its metrics against brute-force
definitions, and its --smoke-cpu run (paths gnndirect-cpu, stores and pyg on the CPU) end to end:
the JSON's fields, positive times, an AUC above 0.6 and 0.03 above the untrained model's after the
smoke training, MRR in (0, 1]. pyg is skipped (reason in the JSON) where PyG has neither pyg-lib
nor torch-sparse to sample with; stores too where torch_geometric is missing. And the stores
path's check (bench/train_link/check_stores.py) on the CPU."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest
import torch

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, BENCH)
train_link = pytest.importorskip("train_link")

pytestmark = pytest.mark.usefixtures("_extension")

HAS_PYG = importlib.util.find_spec("torch_geometric") is not None


def pairwise_auc(pos, neg):
    """P(pos > neg) + P(pos == neg) / 2 over every (positive, negative) pair."""
    diff = pos.double().unsqueeze(1) - neg.double().unsqueeze(0)
    return float(((diff > 0).double() + 0.5 * (diff == 0).double()).mean())


def test_auc_matches_the_pairwise_definition_with_ties():
    g = torch.Generator().manual_seed(0)
    pos = torch.randint(0, 6, (37,), generator=g).float()  # few values: many ties
    neg = torch.randint(0, 5, (53,), generator=g).float()
    assert train_link.roc_auc(pos, neg) == pytest.approx(pairwise_auc(pos, neg), abs=1e-12)
    assert train_link.roc_auc(torch.tensor([2.0, 3.0]), torch.tensor([0.0, 1.0])) == 1.0
    assert train_link.roc_auc(torch.tensor([0.0]), torch.tensor([1.0])) == 0.0
    assert train_link.roc_auc(torch.ones(4), torch.ones(9)) == 0.5


def test_mrr_ranks_each_positive_among_its_own_negatives():
    pos = torch.tensor([5.0, 0.0, 2.0])
    neg = torch.tensor([[1.0, 2.0], [1.0, 3.0], [2.0, 1.0]])
    # ranks: 1; 3; 1 + 0.5 (one tie)
    assert train_link.mrr(pos, neg) == pytest.approx((1 + 1 / 3 + 1 / 1.5) / 3)


def test_smoke_run_on_the_cpu(tmp_path):
    """The benchmark's CPU smoke mode trains every path it can run here and scores it."""
    out = tmp_path / "smoke.json"
    paths = ["gnndirect-cpu", "stores", "pyg"]
    cmd = [sys.executable, os.path.join(BENCH, "train_link.py"), "--smoke-cpu", "--paths", ",".join(paths),
           "--json", str(out)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    print(proc.stdout[-4000:])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads(out.read_text())
    assert results["data"]["num_nodes"] > 0 and results["data"]["eval_edges"] > 0
    assert results["auc_check"]["failed"] == []
    untrained = results["untrained"]["test_auc"]  # the shared initial weights, scored first
    ran = []
    for name in paths:
        record = results["paths"][name]
        if "skipped" in record:
            # only where PyG is missing, or (pyg) has no CPU sampling backend
            assert name == "pyg" or not HAS_PYG, record
            continue
        ran.append(name)
        for key in ("median_epoch_s", "median_cpu_core_s", "median_wait_s", "loader_share", "test_auc",
                    "test_mrr", "edges_per_s", "backend", "seed_edges_excluded", "epochs"):
            assert key in record, (name, key)
        assert len(record["epochs"]) == results["config"]["epochs"]
        assert all(e["epoch_s"] > 0 and e["batches"] > 0 for e in record["epochs"]), record["epochs"]
        assert record["median_epoch_s"] > 0 and record["median_cpu_core_s"] > 0
        assert 0 <= record["loader_share"] <= 1
        assert record["test_auc"] > 0.6, (name, record["test_auc"])
        assert record["test_auc"] >= untrained + 0.1, (name, record["test_auc"], untrained)  # it learned
        assert 0 < record["test_mrr"] <= 1, (name, record["test_mrr"])
        if name == "pyg":
            assert record["backend"] in ("pyg-lib", "torch-sparse")
    assert "gnndirect-cpu" in ran
    if HAS_PYG:
        assert "stores" in ran


@pytest.mark.skipif(not HAS_PYG, reason="needs torch_geometric")
def test_pyg_path_over_a_plain_data_with_a_stand_in_sampler(monkeypatch):
    """The pyg path's own code (PyG's LinkNeighborLoader over a CPU Data, its link filter, the
    batch to the model's blocks) where PyG has no sampling backend: PyG's NeighborSampler
    answers through GnnDirectSampler on the same graph (its edge ids are positions in the
    path's edge_index, which is sorted by target as PyG's is_sorted wants)."""
    import gnndirect_torch as gd
    import torch_geometric.sampler as pyg_sampler
    from gnndirect_torch._util import products_shape
    from gnndirect_torch.pyg import GnnDirectSampler
    from train_link import data as link_data, model as link_model, paths as link_paths, run as link_run

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        args = link_run.parse_args(["--smoke-cpu", "--epochs", "1", "--epoch-edges", "4096"])
        cpu = torch.device("cpu")
        data = link_data.make_link_data(products_shape(args.scale), args, cpu)
        stand_in = GnnDirectSampler(gd.Graph(data.indptr, data.indices, device="cpu"), args.fanouts)
        monkeypatch.setattr(pyg_sampler.NeighborSampler, "sample_from_edges",
                            lambda self, inputs, neg_sampling=None: stand_in.sample_from_edges(inputs, neg_sampling))
        evaluator = link_model.LinkEvaluator(gd.Graph(data.indptr, data.indices, device="cpu"),
                                             gd.Table(data.x, device="cpu"), args.fanouts, 4096,
                                             data.test_edges, data.test_negatives)
        record = link_run.run_path(link_paths.PygLinkPath(data, args, cpu), data, evaluator, args, cpu)
    finally:
        torch.set_num_threads(threads)
    assert record["epochs"][0]["batches"] == 4 and record["median_epoch_s"] > 0
    assert 0 < record["test_auc"] <= 1 and 0 < record["test_mrr"] <= 1
    assert record["seed_edges_excluded"] is False and record["num_workers"] == 0


@pytest.mark.skipif(not HAS_PYG, reason="needs torch_geometric")
def test_stores_check_on_the_cpu():
    """check_stores.py passes on a correct stores path (and so can tell a broken one)."""
    cmd = [sys.executable, os.path.join(BENCH, "train_link", "check_stores.py"), "--smoke-cpu", "--scale", "0.005"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = [line for line in proc.stdout.splitlines() if line.startswith("batch ")]
    assert len(lines) == 4 and all("BAD" not in line and "x=ok" in line for line in lines)
    assert "DIAG all equal 0" in proc.stdout
