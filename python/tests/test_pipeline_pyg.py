"""The pipeline iterator (coverage, contents equal to references, lifetime) and the PyG
adapter driving NodeLoader."""

import gc

import pytest
import torch

import gnndirect_torch as gd
from gnndirect_torch import testing
from conftest import DTYPES, INDEX_DTYPES, context_usable, cuda, random_csr

pytestmark = pytest.mark.usefixtures("_extension")


def _setup(num_nodes=3000, dtype=torch.float32, index_dtype=torch.int64, placement="managed_host"):
    indptr, indices = random_csr(num_nodes, 25, index_dtype)
    x = torch.randn(num_nodes, 20).to(dtype)
    y = torch.randint(0, 7, (num_nodes,))
    train = torch.randperm(num_nodes)[:1100].to(index_dtype)
    graph = gd.Graph(indptr, indices, placement=placement)
    table = gd.Table(x, placement)
    return indptr, indices, x, y, train, graph, table


@cuda
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_pipeline_batches_equal_references(seed, dtype, index_dtype):
    indptr, indices, x, y, train, graph, table = _setup(dtype=dtype, index_dtype=index_dtype)
    loader = gd.NeighborLoader(graph, table, y, train, fanouts=[6, 4], batch_size=256,
                               seed=seed)
    assert len(loader) == 5
    for epoch in range(2):
        seen = []
        for b, batch in enumerate(loader):
            assert batch.epoch == epoch and batch.index == b
            seeds = batch.n_id[: batch.batch_size]
            seen.append(seeds.cpu())
            assert torch.equal(batch.x.cpu(), x.index_select(0, batch.n_id.long().cpu()))
            assert torch.equal(batch.y.cpu(), y.index_select(0, seeds.long().cpu()))
            ref = testing.reference_sample_blocks(indptr, indices, seeds.cpu(), [6, 4],
                                                  seed=batch.sampling_seed)
            for g, c in zip(batch.blocks, ref):
                for name in ("src_nodes", "offsets", "indices", "edge_ids"):
                    assert torch.equal(getattr(g, name).cpu().long(), getattr(c, name).long()), name
        seen = torch.cat(seen)
        assert torch.equal(seen.sort().values, train.sort().values), "each training id once per epoch"


@cuda
def test_pipeline_cache_flag_and_registered_features(seed):
    indptr, indices, x, y, train, graph, _ = _setup()
    table = gd.Table(x, "registered")
    loader = gd.NeighborLoader(graph, table, y, train, fanouts=[5, 5], batch_size=300,
                               cache_fraction=0.1)
    assert loader.cached_rows == 300
    for batch in loader:
        assert torch.equal(batch.x.cpu(), x.index_select(0, batch.n_id.long().cpu()))
    counters = loader.counters()
    assert counters["batches_prepared"] == len(loader) and counters["feature_bytes"] > 0


@cuda
def test_pipeline_iterator_outlives_its_owners(seed):
    indptr, indices, x, y, train, graph, table = _setup(placement="registered")
    loader = gd.NeighborLoader(graph, table, y, train, fanouts=[4], batch_size=200)
    iterator = iter(loader)
    with pytest.raises(RuntimeError):
        table.close()  # a live loader uses it
    del loader, graph, table
    gc.collect()
    count = 0
    for batch in iterator:
        assert torch.equal(batch.x.cpu(), x.index_select(0, batch.n_id.long().cpu()))
        count += 1
    assert count == 6
    del iterator
    gc.collect()
    assert context_usable()


@cuda
def test_loader_close_releases_the_table(seed):
    _, _, x, y, train, graph, _ = _setup()
    table = gd.Table(x, "registered")
    loader = gd.NeighborLoader(graph, table, y, train, fanouts=[4], batch_size=200)
    iterator = iter(loader)
    next(iterator)  # the workers are mid-epoch
    loader.close()
    with pytest.raises(RuntimeError):
        next(iterator)
    with pytest.raises(RuntimeError):
        iter(loader)
    table.close()  # allowed now: no loader uses it
    assert gd.placement_of(x) == "pageable"
    assert context_usable()


@cuda
@pytest.mark.parametrize("option", [{"gather_max_blocks": 1}, {"gather_max_blocks": 4096},
                                    {"sampling_max_blocks": 1}, {"workers": 1}, {"workers": 6}])
def test_pipeline_tuning_keeps_the_batches(seed, option):
    """Block caps and worker counts change how batches are prepared, never what they hold."""
    indptr, indices, x, y, train, graph, table = _setup()
    loaders = [gd.NeighborLoader(graph, table, y, train, fanouts=[5, 3], batch_size=100, seed=seed, **tuning)
               for tuning in ({}, option)]
    for default, tuned in zip(*loaders):  # batches come in order, whichever worker prepared them
        assert (tuned.epoch, tuned.index) == (default.epoch, default.index)
        assert torch.equal(tuned.n_id.cpu(), default.n_id.cpu())
        assert torch.equal(tuned.x.cpu(), x.index_select(0, tuned.n_id.long().cpu()))


@cuda
def test_loader_timeline_records_each_step_and_next(seed, tmp_path):
    """With a LoaderTimeline, every batch of the latest epoch has one consumer step (after its
    hand-off, before the next batch's) and one host next(); the batches are unchanged; JSON
    loads back; without one, nothing is recorded."""
    from gnndirect_torch.loader import LoaderTimeline
    indptr, indices, x, y, train, graph, table = _setup()
    timeline = LoaderTimeline()
    loader = gd.NeighborLoader(graph, table, y, train, fanouts=[4, 3], batch_size=256, seed=seed,
                               timeline=timeline)
    plain = gd.NeighborLoader(graph, table, y, train, fanouts=[4, 3], batch_size=256, seed=seed)
    for _ in range(2):  # each epoch restarts the timeline
        for batch, same in zip(loader, plain):
            assert torch.equal(batch.x, same.x)
            (batch.x * 2).sum()  # the caller's step
    spans = timeline.spans()
    steps = sorted((s for s in spans if s["stage"] == "step"), key=lambda s: s["batch"])
    nexts = [s for s in spans if s["stage"] == "next"]
    assert [s["batch"] for s in steps] == list(range(len(loader)))
    assert len(nexts) == len(loader) + 1  # the last next() found the epoch's end
    assert all(s["gpu"] and s["lane"] == "consumer" and s["end"] >= s["start"] >= 0 for s in steps)
    assert all(b["start"] >= a["end"] for a, b in zip(steps, steps[1:]))
    assert all(not s["gpu"] and s["end"] >= s["start"] for s in nexts)
    path = tmp_path / "timeline.json"
    timeline.write_json(str(path), path="loader")
    import json
    doc = json.loads(path.read_text())
    assert doc["path"] == "loader" and len(doc["spans"]) == len(spans)
    with pytest.raises(TypeError):
        gd.NeighborLoader(graph, table, y, train, fanouts=[3], timeline="yes")
    loader.close()
    plain.close()


@cuda
def test_pipeline_negative_options_raise_value_error():
    _, _, _, y, train, graph, table = _setup()
    with pytest.raises(ValueError, match="max_blocks"):
        gd.NeighborLoader(graph, table, y, train, fanouts=[3], gather_max_blocks=-1)
    with pytest.raises(ValueError, match="max_blocks"):
        gd.NeighborLoader(graph, table, y, train, fanouts=[3], sampling_max_blocks=-1)
    for name in ("depth", "workers"):
        with pytest.raises(ValueError, match=name):
            gd.NeighborLoader(graph, table, y, train, fanouts=[3], **{name: -1})
    assert context_usable()


@cuda
def test_pipeline_bad_training_id_raises_index_error():
    indptr, indices, x, y, _, graph, table = _setup()
    loader = gd.NeighborLoader(graph, table, y, torch.tensor([1, 2, 3000, 4]), fanouts=[3])
    with pytest.raises(IndexError, match=r"training_ids\[2\] = 3000"):
        for _ in loader:
            pass
    assert context_usable()
    with pytest.raises(TypeError):
        gd.NeighborLoader(graph, table, y.float(), torch.tensor([1]), fanouts=[3])
    with pytest.raises(ValueError):
        gd.NeighborLoader(graph, table, y, torch.tensor([1]), fanouts=[])


@cuda
def test_new_iterator_invalidates_the_old_one():
    _, _, _, y, train, graph, table = _setup()
    loader = gd.NeighborLoader(graph, table, y, train, fanouts=[3], batch_size=100)
    first = iter(loader)
    next(first)
    second = iter(loader)
    with pytest.raises(RuntimeError, match="invalidated"):
        next(first)
    assert sum(1 for _ in second) == len(loader)


def _pyg_epoch(seed, device):
    """One NodeLoader epoch over gnndirect stores on `device`, checking every batch."""
    pytest.importorskip("torch_geometric")
    from torch_geometric.loader import NodeLoader
    from gnndirect_torch.pyg import GnnDirectFeatureStore, GnnDirectGraphStore, GnnDirectSampler

    n = 2000
    edge_index = torch.randint(0, n, (2, 30000))
    x = torch.randn(n, 16)
    y = torch.randint(0, 5, (n,))
    fs = GnnDirectFeatureStore("managed_host", device=device)
    gs = GnnDirectGraphStore("managed_host", device=device)
    fs.put_tensor(x, group_name=None, attr_name="x", index=None)
    fs.put_tensor(y, group_name=None, attr_name="y", index=None)
    gs.put_edge_index((edge_index[0], edge_index[1]), edge_type=None, layout="coo", size=(n, n))
    assert fs.get_tensor_size(group_name=None, attr_name="x") == (n, 16)
    assert len(gs.get_all_edge_attrs()) == 1
    sampler = GnnDirectSampler((fs, gs), num_neighbors=[5, 3], seed=seed)
    train = torch.randperm(n)[:600]
    loader = NodeLoader((fs, gs), sampler, input_nodes=train, batch_size=128, shuffle=True)
    adjacency = set(zip(edge_index[0].tolist(), edge_index[1].tolist()))
    model = torch.nn.Linear(16, 5).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    seeds_seen = []
    for data in loader:
        n_id = data.n_id.cpu()
        assert data.x.device.type == torch.device(device).type
        assert torch.equal(data.x.cpu(), x[n_id])
        assert torch.equal(data.y.cpu(), y[n_id])
        seeds_seen.append(n_id[: data.batch_size])
        src, dst = n_id[data.edge_index[0].cpu()], n_id[data.edge_index[1].cpu()]
        assert all((s, d) in adjacency for s, d in zip(src.tolist(), dst.tolist()))
        assert sum(data.num_sampled_edges) == data.edge_index.shape[1]
        assert sum(data.num_sampled_nodes) == n_id.shape[0] == n_id.unique().numel()
        loss = torch.nn.functional.cross_entropy(model(data.x[: data.batch_size]), data.y[: data.batch_size])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert torch.equal(torch.cat(seeds_seen).sort().values, train.sort().values)
    blocks = gd.blocks_from_pyg(data.edge_index, data.num_sampled_nodes, data.num_sampled_edges)
    assert blocks[0]["num_dst"] == data.batch_size and len(blocks) == 2
    # hop-1 edges end at seeds; hop-2 edges end at hop-1 nodes
    assert int(blocks[0]["edge_index"][1].max()) < blocks[0]["num_dst"]
    assert int(blocks[1]["edge_index"][1].max()) < blocks[1]["num_dst"]


@cuda
def test_pyg_node_loader_drives_training(seed):
    _pyg_epoch(seed, "cuda")


def test_pyg_node_loader_host_reference_mode(seed):
    """The same plumbing with device='cpu' (host reference sampler and gather): runs without a GPU."""
    _pyg_epoch(seed, "cpu")


def test_pyg_module_imports_without_gpu():
    pytest.importorskip("torch_geometric")
    import gnndirect_torch.pyg as pyg  # noqa: F401  (no CUDA at import)
    assert hasattr(pyg, "GnnDirectSampler")
