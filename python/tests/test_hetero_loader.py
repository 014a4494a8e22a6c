"""gd.NeighborLoader over a typed graph and a dict of tables (gnndirect_torch.hetero_loader).

Every batch is checked against independent computations: the seeds of an epoch are the input
ids exactly once each, in the documented (seed, epoch) order; the blocks equal a fresh call of the
typed sampler with the batch's key; each node type's x equals its source tensor indexed by that
type's node list (poisoned tables would show); y equals the labels of the seeds. GPU: the CUDA
loader's batches equal the CPU loader's bit for bit.
"""

import pytest
import torch

import gnndirect_torch as gd
from gnndirect_torch.hetero import HeteroGraph, sample_typed_blocks
from gnndirect_torch.hetero_loader import HeteroBatch, HeteroNeighborLoader
from gnndirect_torch._util import batch_key

from conftest import cuda

pytest.importorskip("torch_geometric")
from test_hetero import EDGE_TYPES, NODE_COUNTS, as_lists, cpu_graph, random_hetero_data, train_step  # noqa: E402

NUM_NEIGHBORS = {e: [4, 2] for e in EDGE_TYPES}
FEATURED = ("paper", "author", "institution")  # 'field' has no table: its embeddings are the model's


def cpu_tables(data):
    return {t: gd.Table(data[t].x.clone(), device="cpu") for t in FEATURED}


def make_loader(data, graph, tables, train, seed, **kwargs):
    return gd.NeighborLoader(graph, tables, data["paper"].y, ("paper", train), NUM_NEIGHBORS,
                             kwargs.pop("batch_size", 16), seed=seed, **kwargs)


def check_batch(batch, data, graph, loader):
    assert isinstance(batch, HeteroBatch) and batch.seed_type == "paper"
    seeds = batch.blocks.nodes["paper"][:batch.batch_size]
    again = sample_typed_blocks(graph, "paper", seeds, NUM_NEIGHBORS, seed=batch.sampling_seed)
    assert as_lists(batch.blocks) == as_lists(again)
    assert batch.sampling_seed == batch_key(loader.seed, batch.epoch, batch.index)
    assert set(batch.x) == set(FEATURED)
    for t in FEATURED:
        rows = batch.blocks.nodes[t].cpu().to(torch.int64)
        assert torch.equal(batch.x[t].cpu(), data[t].x[rows]), t
    assert torch.equal(batch.y.cpu(), data["paper"].y[seeds.cpu().to(torch.int64)])
    return seeds.cpu().tolist()


def test_neighbor_loader_over_a_typed_graph_cpu(seed):
    data = random_hetero_data(seed)
    graph = cpu_graph(data)
    train = torch.randperm(NODE_COUNTS["paper"])[:37]
    loader = make_loader(data, graph, cpu_tables(data), train, seed)
    assert isinstance(loader, HeteroNeighborLoader) and len(loader) == 3  # 37 seeds, 16 a batch
    for epoch in range(2):
        seen = []
        batches = list(loader)
        assert [b.epoch for b in batches] == [epoch] * 3 and [b.index for b in batches] == [0, 1, 2]
        for batch in batches:
            seen += check_batch(batch, data, graph, loader)
        assert sorted(seen) == sorted(train.tolist())  # every seed once per epoch
        gen = torch.Generator().manual_seed(batch_key(seed, epoch) & 0x7FFFFFFFFFFFFFFF)
        assert seen == train[torch.randperm(37, generator=gen)].tolist()


def test_masks_drop_last_and_determinism(seed):
    data = random_hetero_data(seed)
    graph = cpu_graph(data)
    mask = torch.zeros(NODE_COUNTS["paper"], dtype=torch.bool)
    mask[torch.randperm(NODE_COUNTS["paper"])[:33]] = True
    first = make_loader(data, graph, cpu_tables(data), mask, seed, drop_last=True)
    second = make_loader(data, graph, cpu_tables(data), mask.nonzero().view(-1), seed, drop_last=True)
    assert len(first) == 2
    for a, b in zip(first, second):
        assert a.batch_size == 16 and as_lists(a.blocks) == as_lists(b.blocks)
        assert all(torch.equal(a.x[t], b.x[t]) for t in FEATURED)
    other = make_loader(data, graph, cpu_tables(data), mask, seed + 1, drop_last=True)
    assert [b.sampling_seed for b in other] != [b.sampling_seed for b in first]


class AsHeteroData:
    """The loader's batches as the HeteroData PyG's hetero loader yields (``to_pyg()``)."""

    def __init__(self, loader):
        self.loader = loader

    def __iter__(self):
        return (batch.to_pyg() for batch in self.loader)


def test_to_pyg_hetero_data_trains_a_to_hetero_model(seed):
    data = random_hetero_data(seed)
    graph = cpu_graph(data)
    loader = make_loader(data, graph, cpu_tables(data), torch.arange(NODE_COUNTS["paper"]), seed)
    batch = next(iter(loader))
    pyg = batch.to_pyg()
    assert pyg["paper"].batch_size == 16 and torch.equal(pyg["paper"].y, data["paper"].y[pyg["paper"].n_id[:16]])
    assert "x" not in pyg["field"] and torch.equal(pyg["author"].x, batch.x["author"])
    for e in EDGE_TYPES:
        index = pyg[e].edge_index
        assert index.shape[0] == 2 and sum(pyg[e].num_sampled_edges) == index.shape[1]
        if index.numel():
            assert int(index[0].max()) < pyg[e[0]].num_nodes and int(index[1].max()) < pyg[e[2]].num_nodes
    train_step(AsHeteroData(loader), "cpu")  # test_hetero's to_hetero(SAGE) step: finite losses, updates


def test_bad_input_names_what_is_wrong(seed):
    data = random_hetero_data(seed)
    graph = cpu_graph(data)
    tables = cpu_tables(data)
    y, train = data["paper"].y, torch.arange(10)
    with pytest.raises(TypeError, match="dict"):
        gd.NeighborLoader(graph, tables["paper"], y, ("paper", train), NUM_NEIGHBORS)
    with pytest.raises(TypeError, match=r"features\['author'\]"):
        gd.NeighborLoader(graph, {**tables, "author": data["author"].x}, y, ("paper", train), NUM_NEIGHBORS)
    short = {**tables, "author": gd.Table(data["author"].x[:-1].clone(), device="cpu")}
    with pytest.raises(ValueError, match="'author' has 44 rows"):
        gd.NeighborLoader(graph, short, y, ("paper", train), NUM_NEIGHBORS)
    with pytest.raises(ValueError, match="unknown node type 'venue'"):
        gd.NeighborLoader(graph, {**tables, "venue": tables["paper"]}, y, ("paper", train), NUM_NEIGHBORS)
    with pytest.raises(TypeError, match=r"input_nodes=\(node_type"):
        gd.NeighborLoader(graph, tables, y, train, NUM_NEIGHBORS)
    with pytest.raises(ValueError, match="'venue'"):
        gd.NeighborLoader(graph, tables, y, ("venue", train), NUM_NEIGHBORS)
    with pytest.raises(IndexError, match="60 outside node type 'paper'"):
        gd.NeighborLoader(graph, tables, y, ("paper", torch.tensor([3, 60])), NUM_NEIGHBORS)
    with pytest.raises(ValueError, match="one entry per 'paper' node"):
        gd.NeighborLoader(graph, tables, y[:-1], ("paper", train), NUM_NEIGHBORS)
    with pytest.raises(ValueError, match="rev_employs"):
        gd.NeighborLoader(graph, tables, y, ("paper", train), {e: [2, 2] for e in EDGE_TYPES[:-1]})
    with pytest.raises(ValueError, match="batch_size"):
        gd.NeighborLoader(graph, tables, y, ("paper", train), NUM_NEIGHBORS, 0)
    with pytest.raises(TypeError, match="HeteroGraph"):
        HeteroNeighborLoader(tables, tables, y, ("paper", train), NUM_NEIGHBORS)


@cuda
@pytest.mark.parametrize("placement", ["pinned", "device"])
def test_cuda_loader_equals_the_cpu_loader(seed, placement):
    data = random_hetero_data(seed, max_degree=12)
    cpu = cpu_graph(data)
    gpu = HeteroGraph({e: (cpu.graphs[e].indptr, cpu.graphs[e].indices) for e in cpu.edge_types}, cpu.num_nodes,
                      placement=placement, device="cuda")
    train = torch.randperm(NODE_COUNTS["paper"])[:40]
    # Each type its own table: a cache tier in HBM for 'paper', int8 codes for 'author' (decoded
    # in the gather), a plain device table for 'institution'.
    gpu_tables = {"paper": gd.Table(data["paper"].x.clone(), placement, cache_fraction=0.5, device="cuda"),
                  "author": gd.Table(data["author"].x.clone(), placement, codec="int8", device="cuda"),
                  "institution": gd.Table(data["institution"].x.clone(), "device", device="cuda")}
    encoded_cpu = {**cpu_tables(data), "author": gd.Table(data["author"].x.clone(), codec="int8", device="cpu")}
    with pytest.raises(ValueError, match="on cpu, the graph on cuda"):
        make_loader(data, gpu, cpu_tables(data), train, seed)
    expected = list(make_loader(data, cpu, encoded_cpu, train, seed))
    got = list(make_loader(data, gpu, gpu_tables, train, seed))
    assert len(got) == len(expected) == 3
    for g, e in zip(got, expected):
        assert g.y.is_cuda and all(x.is_cuda for x in g.x.values())
        assert as_lists(g.blocks) == as_lists(e.blocks) and g.sampling_seed == e.sampling_seed
        for t in ("paper", "institution"):
            assert torch.equal(g.x[t].cpu(), e.x[t]), t
        assert g.x["author"].dtype == torch.float32
        torch.testing.assert_close(g.x["author"].cpu(), e.x["author"], rtol=0, atol=1e-5)
        assert torch.equal(g.y.cpu(), e.y)


@cuda
def test_side_stream_overlaps_and_equals_the_current_stream(seed):
    """Batches prepared on the loader's own stream (the default) equal those prepared on the
    caller's stream, while the caller's stream is kept busy between batches (a "step" of long
    matmuls): the caller's first use of each batch already sees it complete (the event wait),
    and a next batch is ready while the step still runs (overlap). On the caller's stream
    (side_stream False) the next batch waits for the step: the same check then fails, as it must."""
    data = random_hetero_data(seed, max_degree=12)
    cpu = cpu_graph(data)
    gpu = HeteroGraph({e: (cpu.graphs[e].indptr, cpu.graphs[e].indices) for e in cpu.edge_types}, cpu.num_nodes,
                      placement="pinned", device="cuda")
    tables = {t: gd.Table(data[t].x.clone(), "pinned", device="cuda") for t in FEATURED}
    train = torch.randperm(NODE_COUNTS["paper"])[:48]
    plain = make_loader(data, gpu, tables, train, seed)
    plain.side_stream = False
    expected = [(as_lists(b.blocks), {t: x.cpu() for t, x in b.x.items()}) for b in plain]
    big = torch.randn(2048, 2048, device="cuda")

    def run(loader):
        """Checks every batch; returns how many batches were ready while the step before ran."""
        step_done, ready_early, batches = torch.cuda.Event(), 0, 0
        for i, batch in enumerate(loader):
            if i > 0:
                ready_early += int(not step_done.query())
            sums = {t: x.sum(dim=1) for t, x in batch.x.items()}  # the caller's first use
            blocks, x = expected[i]
            assert as_lists(batch.blocks) == blocks
            for t in FEATURED:
                assert torch.equal(sums[t].cpu(), x[t].sum(dim=1)), t
                assert torch.equal(batch.x[t].cpu(), x[t]), t
            nonlocal big
            for _ in range(60):  # the "training step" (tens of ms), queued on the caller's stream
                big = torch.tanh(big @ big) * 0.01
            step_done.record()
            batches += 1
        assert batches == len(expected)
        torch.cuda.synchronize()
        return ready_early

    loader = make_loader(data, gpu, tables, train, seed)
    assert loader.side_stream
    assert run(loader) >= 1, "no batch was ready while the step before it still ran"
    plain = make_loader(data, gpu, tables, train, seed)
    plain.side_stream = False
    assert run(plain) == 0, "on the caller's stream a batch waits for the step before it"
