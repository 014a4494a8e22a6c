"""The R-GAT benchmark's (bench/train_rgat.py) CPU smoke run: every CPU path trains R-GAT to a
test accuracy far above chance and the paths agree, the negative control on shuffled labels stays
at chance, and a path that misaligns labels with seeds shows it (its accuracy falls to chance).

About 20 s on 2 cores, one torch thread (pyg-lib or torch-sparse adds the pyg path, a few seconds
more).
"""

import json
import os
import sys

import pytest
import torch

pytest.importorskip("torch_geometric")
BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench")
sys.path.insert(0, BENCH)
import train_rgat  # noqa: E402

CLASSES = 10
#: Clearly above chance (0.1 with 10 classes; the majority class about 0.15): the smoke model
#: reaches 0.65-0.75 over data seeds, a linear model on the paper features 0.87.
LEARNED = 0.5
#: At chance: a constant prediction scores the majority class's share.
CHANCE_MARGIN = 0.08


def smoke(tmp_path, *extra):
    """Runs the smoke mode (seed 0) with ``extra`` options; its JSON report."""
    out = tmp_path / "rgat.json"
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # steadier beside other jobs on a small machine
    try:
        assert train_rgat.main(["--smoke-cpu", "--seed", "0", "--json", str(out), *extra]) == 0
    finally:
        torch.set_num_threads(threads)
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """The default smoke run: paths gnndirect-cpu, stores (CPU) and pyg (where PyG can sample)."""
    return smoke(tmp_path_factory.mktemp("rgat"))


def check_record(record, name):
    assert record["epochs"] and len(record["epochs"]) == 4, name
    for epoch in record["epochs"]:
        assert epoch["epoch_s"] > 0 and epoch["seeds_per_s"] > 0 and epoch["wait_s"] >= 0, name
        assert epoch["cpu_core_s"] >= 0 and epoch["loss"] == epoch["loss"], name  # not NaN
    for key in ("median_epoch_s", "seeds_per_s", "median_cpu_core_s", "median_wait_s"):
        assert record[key] >= 0, (name, key)
    assert record["median_epoch_s"] > 0, name
    assert 0.0 <= record["test_acc"] <= 1.0 and 0.1 <= record["majority_acc"] < 0.3, name


def test_smoke_report_fields(report):
    assert report["device"] == "cpu" and report["config"]["smoke_cpu"]
    assert report["config"]["classes"] == CLASSES
    assert report["train_seeds"] > 0 and report["graph"]["edges"] > 0
    assert set(report["graph"]["nodes"]) == set(train_rgat.IGBH_NODES)
    assert set(report["paths"]) == {"gnndirect-cpu", "stores", "pyg"}
    if train_rgat.pyg_sampler_available():
        assert "skipped" not in report["paths"]["pyg"]
    else:
        assert "pyg-lib" in report["paths"]["pyg"]["skipped"]
    for name, record in report["paths"].items():
        if "skipped" not in record:
            check_record(record, name)


def test_every_cpu_path_learns_and_the_paths_agree(report):
    ran = {name: r for name, r in report["paths"].items() if "skipped" not in r}
    assert {"gnndirect-cpu", "stores"} <= set(ran)
    for name, record in ran.items():
        assert record["test_acc"] > LEARNED, (name, record["test_acc"])
        assert record["test_acc"] > record["majority_acc"] + 0.3, name
        losses = [e["loss"] for e in record["epochs"]]
        assert losses[-1] < 0.8 * losses[0], (name, losses)
    accuracies = [r["test_acc"] for r in ran.values()]
    assert max(accuracies) - min(accuracies) < 0.15, {n: r["test_acc"] for n, r in ran.items()}


def test_shuffled_labels_stay_at_chance(report):
    control = report["shuffled_control"]
    assert control["path"] == "gnndirect-cpu"
    check_record(control, "shuffled_control")
    assert control["test_acc"] < control["majority_acc"] + CHANCE_MARGIN, control["test_acc"]
    assert control["test_acc"] < LEARNED - 0.2


def test_a_path_with_misaligned_labels_shows_it(tmp_path, monkeypatch):
    """A loader whose labels are not its seeds' (each batch's labels permuted) trains to chance:
    test accuracy tells a broken path."""
    batches = train_rgat.Path.batches

    def misaligned(self, ids, shuffle, epoch_seed):
        for x, edges, y, size in batches(self, ids, shuffle, epoch_seed):
            yield x, edges, y[torch.randperm(y.numel(), generator=torch.Generator().manual_seed(size))], size

    monkeypatch.setattr(train_rgat.Path, "batches", misaligned)
    record = smoke(tmp_path, "--paths", "gnndirect-cpu", "--no-shuffled-control")["paths"]["gnndirect-cpu"]
    assert record["test_acc"] < record["majority_acc"] + CHANCE_MARGIN, record["test_acc"]
