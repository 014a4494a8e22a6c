"""The GraphSAGE training benchmark's (bench/train_graphsage/) measurement logic, on the CPU with stand-in paths (no model, no GPU):
the sweep window's clock and the summary of a block-budget sweep."""

import copy
import os
import sys
import time

import pytest
import torch

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench")
sys.path.insert(0, BENCH)
train_graphsage = pytest.importorskip("train_graphsage")


class SlowCutPath:
    """A loader stand-in: each batch takes `batch_s`; cutting the epoch early (max_batches) then
    takes `cut_s`, as persistent workers finishing and dropping their queued batches do."""

    name = "stand-in"

    def __init__(self, batch_s, cut_s):
        self.batch_s, self.cut_s = batch_s, cut_s

    def epoch(self, epoch, consume, max_batches=None):
        for _ in range(max_batches):
            time.sleep(self.batch_s)
            consume(None, None, None)
        time.sleep(self.cut_s)
        return {}


@pytest.fixture
def no_training(monkeypatch):
    """time_window's model and train step replaced by no-ops (the window's clock is under test)."""
    # where time_window looks them up (the package bench/train_graphsage/'s run module)
    monkeypatch.setattr(train_graphsage.run, "make_model", lambda *a, **k: torch.nn.Linear(1, 1))
    monkeypatch.setattr(train_graphsage.run, "train_step", lambda *a, **k: None)


def window_args():
    return train_graphsage.parse_args(["--batch-size", "10", "--smoke-cpu"])


def test_window_excludes_the_epoch_cut(no_training):
    shape = {"num_features": 1, "num_classes": 2, "num_train": 1000}  # 100 batches per epoch
    record = train_graphsage.time_window(SlowCutPath(0.01, 0.5), window_args(), torch.device("cpu"),
                                         shape, timed=20, warmup=5)
    assert record["timed_batches"] == 20
    assert 0.2 <= record["timed_s"] < 0.45  # 20 batches of 10 ms, not the 0.5 s cut
    assert record["epoch_s_mean"] == pytest.approx(record["timed_s"] * 100 / 20)


def test_window_without_enough_batches_raises(no_training):
    shape = {"num_features": 1, "num_classes": 2, "num_train": 1000}

    class Short(SlowCutPath):
        def epoch(self, epoch, consume, max_batches=None):
            consume(None, None, None)  # one batch, then the epoch ends
            return {}

    with pytest.raises(RuntimeError, match="no batch left"):
        train_graphsage.time_window(Short(0, 0), window_args(), torch.device("cpu"), shape,
                                    timed=5, warmup=3)


def path_record(epoch_s):
    return {"epoch_s_mean": epoch_s, "cpu_core_s_mean": 1.0, "test_acc": 0.9,
            "loop_split_s": {"wait_s": 0.1, "train_s": 0.5}}


def test_summary_of_a_budget_sweep_names_every_run_and_the_ratios():
    sweep = {"0": dict(path_record(1.2), max_blocks=0), "32": dict(path_record(1.1), max_blocks=32)}
    baseline = dict(path_record(12.0), num_workers=0, backend="fast", extrapolated=False)
    results = {"paths": {"pygfast": baseline, "gnndirect": sweep["32"], "gpu": path_record(0.9)},
               "pygfast_sweep": {"0": baseline}, "gnndirect_budget_sweep": sweep,
               "skipped": {}, "failures": {}}
    train_graphsage.summarize(results)
    assert results["baseline"]["path"] == "pygfast"
    for budget, expected in (("0", 10.0), ("32", 12.0 / 1.1)):
        assert sweep[budget]["speedup_vs_pyg"] == pytest.approx(expected)
    assert results["target"]["speedup_vs_pyg"] == pytest.approx(12.0 / 1.1)
    # without a CPU-centric baseline the sweep still summarises (no ratios)
    alone = copy.deepcopy(results)
    del alone["paths"]["pygfast"], alone["pygfast_sweep"], alone["baseline"], alone["target"]
    alone["paths"]["gnndirect"] = alone["gnndirect_budget_sweep"]["32"]
    train_graphsage.summarize(alone)
    assert alone["gnndirect_budget_sweep"]["0"]["speedup_vs_pyg"] is None


def test_training_stream_choice():
    args = train_graphsage.parse_args(["--train-priority", "high"])
    assert args.train_priority == "high"
    with train_graphsage.training_stream(args, torch.device("cpu")):  # no stream on the CPU
        pass
    with pytest.raises(SystemExit):
        train_graphsage.parse_args(["--train-priority", "low"])
    if torch.cuda.is_available():
        with train_graphsage.training_stream(args, torch.device("cuda")):
            low, high = torch.cuda.Stream.priority_range()
            assert torch.cuda.current_stream().priority == high


def test_gather_blocks_option():
    assert train_graphsage.parse_args([]).gather_blocks == 0
    assert train_graphsage.parse_args(["--gather-blocks", "256"]).gather_blocks == 256
    with pytest.raises(SystemExit):
        train_graphsage.parse_args(["--gather-blocks", "-1"])
    assert train_graphsage.parse_args(["--gnndirect-workers", "6"]).gnndirect_workers == 6
    with pytest.raises(SystemExit):
        train_graphsage.parse_args(["--gnndirect-workers", "-2"])


# -- examples/pytorch/graphsage.py: the short example of the two-line change --------------------

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "pytorch", "graphsage.py")


def load_example():
    import importlib.util
    spec = importlib.util.spec_from_file_location("graphsage_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_graphsage_example_help_needs_nothing():
    import subprocess
    proc = subprocess.run([sys.executable, EXAMPLE, "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "--pyg" in proc.stdout, proc.stderr


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("use_pyg", [False, True])
def test_graphsage_example_learns(use_pyg, capsys):
    """Both loaders train the example's model: the last epoch's training accuracy is far above
    chance (1/8) on labels that the features decide."""
    pytest.importorskip("torch_geometric")
    if use_pyg:
        try:  # PyG's NeighborLoader samples through pyg-lib or torch-sparse
            import pyg_lib  # noqa: F401
        except ImportError:
            try:
                import torch_sparse  # noqa: F401
            except ImportError:
                pytest.skip("PyG's NeighborLoader needs pyg-lib or torch-sparse")
    example = load_example()
    args = ["--nodes", "100000", "--epochs", "3"] + (["--pyg"] if use_pyg else [])
    assert example.main(args) == 0
    accuracies = [float(line.rsplit(" ", 1)[1]) for line in capsys.readouterr().out.splitlines()
                  if "train accuracy" in line]
    assert len(accuracies) == 3 and accuracies[-1] > 0.3, accuracies
