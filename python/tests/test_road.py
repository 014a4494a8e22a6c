"""The Python road of issue #39: one options object bound from the library's pipeline_options,
one sampler mapping for every entry point (weighted sampling through gd.NeighborLoader and PyG's
weight_attr), blocks and batches named at one boundary, the generated instantiation units."""

import importlib.util
import os
import types

import pytest
import torch

import gnndirect_torch as gd
from gnndirect_torch import testing
from gnndirect_torch._blocks import FLAT_LAYER_FIELDS, batch_of, blocks_of
from gnndirect_torch._sampling import resolve_weights
from conftest import cuda, random_csr

pytestmark = pytest.mark.usefixtures("_extension")

PYTHON_DIR = os.path.join(os.path.dirname(__file__), "..")


# -- one options object ---------------------------------------------------------------------------

class _FakeBound:
    """Stands in for the extension's PipelineOptions: the library's depth 3 and workers 2."""

    def __init__(self):
        self.values = {"depth": 3, "workers": 2}

    def get(self, name):
        return self.values[name]

    def set(self, name, value):
        self.values[name] = value


def test_pipeline_options_resolve_the_automatic_values():
    ext = types.SimpleNamespace(PipelineOptions=_FakeBound)
    bound = gd.PipelineOptions().to_library(ext, cache_bytes=4096)
    assert bound.values["workers"] == 2, "0 workers: the library's default"
    assert bound.values["depth"] == 4, "0 depth: max(library default + 1, workers + 2)"
    assert bound.values["cache_bytes"] == 4096, "cache_bytes None: the caller's (the table's)"
    assert bound.values["fanouts"] == [15, 10, 5]
    bound = gd.PipelineOptions(workers=6, cache_bytes=0).to_library(ext, cache_bytes=4096)
    assert (bound.values["workers"], bound.values["depth"], bound.values["cache_bytes"]) == (6, 8, 0)
    bound = gd.PipelineOptions(depth=2, workers=1).to_library(ext, cache_bytes=0)
    assert (bound.values["workers"], bound.values["depth"]) == (1, 2), "explicit values stay"
    assert set(bound.values) == set(gd.PipelineOptions.names()), "every field reaches the binding"


def test_pipeline_options_check_their_values():
    options = gd.PipelineOptions(seed=(1 << 64) - 1).checked()
    assert options.seed == -1, "keys keep their 64 bits"
    assert gd.PipelineOptions(seed=-1).checked().seed == -1
    with pytest.raises(TypeError, match="unknown pipeline option.*depht"):
        gd.PipelineOptions().updated(depht=3)
    for bad, error in (({"batch_size": 0}, ValueError), ({"depth": -1}, ValueError),
                       ({"fanouts": []}, ValueError), ({"workers": True}, TypeError),
                       ({"seed": 1 << 64}, ValueError), ({"reserve_bytes": 1.5}, TypeError)):
        with pytest.raises(error):
            gd.PipelineOptions(**bad).checked()


def test_loader_takes_the_options_by_name_and_refuses_unknown_ones():
    indptr, indices = random_csr(50, 4)
    graph = gd.Graph(indptr, indices, device="cpu")
    table = gd.Table(torch.randn(50, 3), device="cpu")
    y, train = torch.zeros(50, dtype=torch.int64), torch.arange(50)
    with pytest.raises(TypeError, match="unknown pipeline option.*depht.*the options are"):
        gd.NeighborLoader(graph, table, y, train, depht=3)  # checked before the device
    with pytest.raises(ValueError, match="batch_size"):
        gd.NeighborLoader(graph, table, y, train, options=gd.PipelineOptions(batch_size=0))
    with pytest.raises(ValueError, match="CUDA device"):  # valid options: the CPU objects are refused
        gd.NeighborLoader(graph, table, y, train, [3], 10, options=gd.PipelineOptions(workers=3), depth=6)


def test_binding_mirrors_the_python_options(_extension):
    names = list(_extension.PipelineOptions.names())
    assert names == list(gd.PipelineOptions.names()), "csrc/pipeline_options.cu's table and PipelineOptions"
    bound = _extension.PipelineOptions()
    for name, value in (("fanouts", [7, 3]), ("batch_size", 77), ("drop_last", True), ("seed", -5),
                        ("depth", 9), ("gather_max_blocks", 64), ("cache_bytes", 1 << 40)):
        bound.set(name, value)
        assert bound.get(name) == value, name
    with pytest.raises(ValueError, match="no pipeline option"):
        bound.set("depht", 3)
    with pytest.raises(ValueError, match="depth"):
        bound.set("depth", -1)
    with pytest.raises(ValueError, match="depth"):
        bound.set("depth", 1 << 40)  # an int member
    with pytest.raises(TypeError, match="drop_last"):
        bound.set("drop_last", 3)


# -- one sampler mapping --------------------------------------------------------------------------

def test_resolve_weights_is_the_rule_of_every_entry_point():
    w = torch.rand(10)
    assert resolve_weights(None, None) is None
    assert resolve_weights(w, None) is w and resolve_weights(w, True) is w
    assert resolve_weights(w, False) is None
    other = torch.rand(10)
    assert resolve_weights(w, other) is other
    with pytest.raises(ValueError, match="no edge weights"):
        resolve_weights(None, True)
    with pytest.raises(TypeError):
        resolve_weights(w, "w")


def _weighted_graph(num_nodes=400, max_degree=12):
    """A CSR with about half of the weights 0 (such edges are never drawn by the weighted sampler)."""
    indptr, indices = random_csr(num_nodes, max_degree)
    weights = torch.rand(indices.numel()) * (torch.rand(indices.numel()) < 0.5)
    return indptr, indices, weights


def _positive_neighbours(indptr, indices, weights, v, weighted):
    lo, hi = int(indptr[v]), int(indptr[v + 1])
    return {int(indices[e]) for e in range(lo, hi) if not weighted or weights[e] > 0}


def _check_all_kept(block, seeds, indptr, indices, weights, weighted):
    """With fanout >= every degree, block 0 holds exactly the (positive-weight) in-neighbours."""
    src = block.src_nodes.cpu().long()
    offsets = block.offsets.cpu()
    local = block.indices.cpu().long()
    for d, v in enumerate(seeds.tolist()):
        got = {int(src[i]) for i in local[int(offsets[d]):int(offsets[d + 1])]}
        assert got == _positive_neighbours(indptr, indices, weights, v, weighted), (v, weighted)


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=cuda)])
def test_graph_weights_reach_the_sampler_and_false_turns_them_off(seed, device):
    indptr, indices, weights = _weighted_graph()
    graph = gd.Graph(indptr, indices, weights=weights, device=device)
    seeds = torch.randperm(400)[:64].to(device)
    for choice, weighted in ((None, True), (True, True), (False, False)):
        blocks = graph.sample_blocks(seeds, [16], weights=choice, seed=seed)
        _check_all_kept(blocks[0], seeds.cpu(), indptr, indices, weights, weighted)
    with pytest.raises(ValueError, match="replacement"):
        graph.sample_blocks(seeds, [4], replace=True)  # weighted is without replacement
    graph.sample_blocks(seeds, [4], replace=True, weights=False)  # uniform with replacement


def test_from_edge_index_reorders_the_weights_with_the_edges(seed):
    n = 300
    pairs = torch.unique(torch.randint(0, n, (2, 4000)), dim=1)
    order = torch.randperm(pairs.shape[1])
    edge_index = pairs[:, order]  # unsorted, as PyG holds it
    weight_of = {}
    weights = torch.rand(edge_index.shape[1])
    for e, (s, d) in enumerate(edge_index.t().tolist()):
        weight_of[(s, d)] = float(weights[e])
    graph = gd.Graph.from_edge_index(edge_index, n, weights=weights, device="cpu")
    for v in range(n):
        for e in range(int(graph.indptr[v]), int(graph.indptr[v + 1])):
            assert float(graph.weights[e]) == weight_of[(int(graph.indices[e]), v)]
    with pytest.raises(ValueError, match="one weight per edge"):
        gd.Graph.from_edge_index(edge_index, n, weights=weights[:-1], device="cpu")


@cuda
def test_loader_samples_weighted_as_the_oracle(seed):
    """The loader's pipeline draws with the library's weighted sampler: its blocks equal the host
    reference's bit for bit, and with a wide fanout hold exactly the positive-weight edges."""
    indptr, indices, weights = _weighted_graph(num_nodes=3000, max_degree=25)
    x = torch.randn(3000, 8)
    y = torch.randint(0, 5, (3000,))
    train = torch.randperm(3000)[:700]
    graph = gd.Graph(indptr, indices, weights=weights, placement="managed_host")
    table = gd.Table(x, "pinned")
    loader = gd.NeighborLoader(graph, table, y, train, [6, 3], 256, seed=seed)
    for batch in loader:
        seeds = batch.n_id[: batch.batch_size].cpu()
        ref = testing.reference_sample_blocks(indptr, indices, seeds, [6, 3], seed=batch.sampling_seed,
                                              weights=weights)
        for got, want in zip(batch.blocks, ref):
            for name in FLAT_LAYER_FIELDS:
                assert torch.equal(getattr(got, name).cpu().long(), getattr(want, name).long()), name
        assert torch.equal(batch.x.cpu(), x.index_select(0, batch.n_id.long().cpu()))
    for choice, weighted in ((None, True), (False, False), (weights.cuda(), True)):
        wide = gd.NeighborLoader(graph, table, y, train, [32], 350, weights=choice, seed=seed)
        for batch in wide:
            _check_all_kept(batch.blocks[0], batch.n_id[: batch.batch_size].cpu(), indptr, indices,
                            weights, weighted)
    with pytest.raises(ValueError, match="replacement"):
        gd.NeighborLoader(graph, table, y, train, [4], 100, replace=True)


@pytest.mark.parametrize("layout", ["coo", "csc"])
@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=cuda)])
def test_pyg_weight_attr_reaches_the_weighted_sampler(seed, device, layout):
    pytest.importorskip("torch_geometric")
    from torch_geometric.sampler import NodeSamplerInput
    from gnndirect_torch.pyg import GnnDirectFeatureStore, GnnDirectGraphStore, GnnDirectSampler

    n = 500
    edge_index = torch.unique(torch.randint(0, n, (2, 3000)), dim=1)
    edge_index = edge_index[:, torch.randperm(edge_index.shape[1])]
    weight = torch.rand(edge_index.shape[1]) * (torch.rand(edge_index.shape[1]) < 0.5)
    if layout == "csc":  # sorted by target: CSC order, the weights with them
        order = torch.argsort(edge_index[1], stable=True)
        edge_index, weight = edge_index[:, order], weight[order]
    positive = {(s, d) for (s, d), w in zip(edge_index.t().tolist(), weight.tolist()) if w > 0}
    everything = set(map(tuple, edge_index.t().tolist()))
    fs, gs = GnnDirectFeatureStore(device=device), GnnDirectGraphStore(device=device)
    fs.put_tensor(weight, group_name=None, attr_name="edge_weight", index=None)
    if layout == "coo":
        gs.put_edge_index((edge_index[0], edge_index[1]), edge_type=None, layout="coo", size=(n, n))
    else:
        colptr = torch.zeros(n + 1, dtype=torch.int64)
        torch.cumsum(torch.bincount(edge_index[1], minlength=n), 0, out=colptr[1:])
        gs.put_edge_index((edge_index[0], colptr), edge_type=None, layout="csc", size=(n, n))
    seeds = torch.randperm(n)[:100]
    for weight_attr, allowed in (("edge_weight", positive), (None, everything)):
        sampler = GnnDirectSampler((fs, gs), num_neighbors=[64], seed=seed, weight_attr=weight_attr)
        out = sampler.sample_from_nodes(NodeSamplerInput(input_id=None, node=seeds))
        node = out.node.cpu()
        sampled = set(zip(node[out.row.cpu()].tolist(), node[out.col.cpu()].tolist()))
        wanted = {(s, d) for (s, d) in allowed if d in set(seeds.tolist())}
        assert sampled == wanted, f"weight_attr={weight_attr}: every allowed in-edge of the seeds, no other"
    with pytest.raises(KeyError):
        GnnDirectSampler((fs, gs), num_neighbors=[4], weight_attr="missing")
    with pytest.raises(ValueError, match="replacement"):
        GnnDirectSampler((fs, gs), num_neighbors=[4], weight_attr="edge_weight", replace=True)


# -- named blocks ---------------------------------------------------------------------------------

def test_blocks_and_batches_are_named_at_one_boundary():
    a, b = torch.tensor([5, 6, 7]), torch.tensor([5, 6, 7, 8, 9])
    flat = [a, torch.tensor([0, 1, 2]), torch.tensor([1, 2]), torch.tensor([10, 11]),
            b, torch.tensor([0, 1, 1, 3]), torch.tensor([3, 4, 0]), torch.tensor([20, 21, 22])]
    blocks = blocks_of(flat, num_seeds=2)
    assert [blk.num_dst for blk in blocks] == [2, 3], "block l's dst nodes are block l-1's src nodes"
    assert blocks[1].src_nodes is b and blocks[0].edge_ids is flat[3]
    with pytest.raises(ValueError, match="4 tensors per layer"):
        blocks_of(flat[:7], num_seeds=2)
    out = types.SimpleNamespace(epoch=1, index=4, num_seeds=2, sampling_seed=-9, layers=flat,
                                x=torch.zeros(5, 3), y=torch.zeros(2))
    batch = batch_of(out)
    assert (batch.epoch, batch.index, batch.batch_size, batch.sampling_seed) == (1, 4, 2, -9)
    assert batch.n_id is b and len(batch.blocks) == 2


# -- generated units ------------------------------------------------------------------------------

def test_generated_units_cover_every_instantiation(tmp_path):
    spec = importlib.util.spec_from_file_location("generated_units", os.path.join(PYTHON_DIR, "generated_units.py"))
    units = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(units)
    paths = units.write_units(str(tmp_path))
    names = sorted(os.path.basename(p) for p in paths)
    # One unit per codec, per indptr type (sampling, typed, temporal, typed temporal), per (index type, feature
    # width) pipeline and per index type's encoded pipeline: a new family must be listed here.
    families = {"codec_cuda_": len(units.CODECS), "sample_cuda_o": len(units.INDEX_TYPES),
                "typed_cuda_o": len(units.INDEX_TYPES), "temporal_cuda_o": len(units.INDEX_TYPES),
                "typed_temporal_cuda_o": len(units.INDEX_TYPES),
                "pipeline_cuda_i": len(units.INDEX_TYPES) * (len(units.FEATURE_WIDTHS) + 1)}
    assert len(names) == len(set(names)) == sum(families.values()) == 20
    for prefix, count in families.items():
        assert sum(n.startswith(prefix) for n in names) == count, prefix
    csrc = os.path.join(PYTHON_DIR, "gnndirect_torch", "csrc")
    assert not set(names) & set(os.listdir(csrc)), "no hand-written copy left beside the generated one"
    for name, header, _, body in units.UNITS:
        assert os.path.isfile(os.path.join(csrc, header)), header
        assert "template" in body and name.endswith(".cu")
    stamp = os.path.getmtime(paths[0])
    (tmp_path / "stale.cu").write_text("")
    os.utime(paths[0], (stamp - 100, stamp - 100))
    units.write_units(str(tmp_path))
    assert os.path.getmtime(paths[0]) == stamp - 100, "an unchanged unit is not rewritten"
    assert not (tmp_path / "stale.cu").exists(), "a unit dropped from the list is removed"


# -- errors without build paths -------------------------------------------------------------------

@cuda
def test_pipeline_errors_carry_no_build_path(_extension):
    """A library error raised while the pipeline is built (the scheduler's depth check, reached by
    bypassing PipelineOptions' automatic depth) reaches Python without its header path, which
    stays available as gnndirect_location (issue #43)."""
    indptr, indices = random_csr(200, 5)
    graph = gd.Graph(indptr, indices, placement="pinned")
    table = gd.Table(torch.randn(200, 4), "pinned")
    labels = torch.zeros(200, dtype=torch.int64, device="cuda")
    bound = gd.PipelineOptions(fanouts=[3], batch_size=50).to_library(_extension, cache_bytes=0)
    bound.set("depth", 0)
    with pytest.raises(ValueError, match="depth") as caught:
        _extension.Pipeline(graph.indptr, graph.indices, table.tensor, labels, torch.arange(100), bound)
    message = str(caught.value)
    assert not any(f"{suffix}:" in message for suffix in (".hpp", ".cuh", ".inl", ".cpp", ".cu")), message
    location = caught.value.gnndirect_location
    assert location is not None and location.rsplit(":", 1)[1].isdigit(), location
