"""Sampling: GPU equals the host reference (the oracle of gnndirect_torch.testing) bit for bit;
the reference and the CPU ops (the fast CPU sampler) are structurally valid (neighbours
adjacent, no duplicates without replacement, counts = min(fanout, degree)); blocks; opcheck;
errors."""

import pytest
import torch

import gnndirect_torch as gd
from gnndirect_torch import testing
from conftest import HOST_PLACEMENTS, INDEX_DTYPES, context_usable, cuda, poison_cuda_cache, random_csr

pytestmark = pytest.mark.usefixtures("_extension")


def _check_structure(indptr, indices, seeds, fanout, out, replace=False, weights=None):
    """Every sampled edge exists, belongs to its seed, and the counts are right."""
    offsets, neighbors, edge_ids = (t.cpu().long() for t in out)
    indptr, indices = indptr.long(), indices.long()
    assert offsets[0] == 0 and offsets.shape[0] == seeds.shape[0] + 1
    for i, s in enumerate(seeds.long().tolist()):
        begin, end = int(indptr[s]), int(indptr[s + 1])
        degree = end - begin
        got = edge_ids[offsets[i]:offsets[i + 1]]
        nbrs = neighbors[offsets[i]:offsets[i + 1]]
        if replace:
            expect = fanout if degree > 0 else 0
        elif weights is not None:
            expect = min(fanout, int((weights[begin:end] > 0).sum()))
        else:
            expect = min(fanout, degree)
        assert got.numel() == expect, (s, degree, fanout)
        assert bool(((got >= begin) & (got < end)).all()), "edge id outside the seed's list"
        assert torch.equal(indices[got], nbrs), "neighbour is not the edge's endpoint"
        if not replace:
            assert got.unique().numel() == got.numel(), "duplicate edge without replacement"
        if weights is not None:
            assert bool((weights[got] > 0).all()), "zero-weight edge chosen"


def _reference_neighbors(indptr, seeds, fanout, *, indices, **kwargs):
    return testing.reference_sample_neighbors(indptr, indices, seeds, fanout, **kwargs)


def _reference_blocks(indptr, seeds, fanouts, *, indices, **kwargs):
    return testing.reference_sample_blocks(indptr, indices, seeds, fanouts, **kwargs)


#: The two CPU samplers: the public ops on CPU tensors (the fast CPU sampler) and the oracle.
CPU_SAMPLERS = {"cpu_ops": (gd.sample_neighbors, gd.sample_blocks),
                "reference": (_reference_neighbors, _reference_blocks)}


@pytest.mark.parametrize("sampler", CPU_SAMPLERS)
@pytest.mark.parametrize("offset_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("replace", [False, True])
def test_cpu_structure(seed, sampler, offset_dtype, index_dtype, replace):
    neighbors = CPU_SAMPLERS[sampler][0]
    indptr, indices = random_csr(600, 30, index_dtype, offset_dtype)
    seeds = torch.randint(0, 600, (400,), dtype=index_dtype)
    for fanout in (0, 1, 7, 40):
        out = neighbors(indptr, seeds, fanout, indices=indices, seed=seed, replace=replace)
        _check_structure(indptr, indices, seeds, fanout, out, replace=replace)


@pytest.mark.parametrize("sampler", CPU_SAMPLERS)
def test_cpu_weighted_structure(seed, sampler):
    neighbors = CPU_SAMPLERS[sampler][0]
    indptr, indices = random_csr(500, 25)
    weights = torch.rand(indices.shape[0])
    weights[::3] = 0
    seeds = torch.randint(0, 500, (300,))
    out = neighbors(indptr, seeds, 6, indices=indices, weights=weights, seed=seed)
    _check_structure(indptr, indices, seeds, 6, out, weights=weights)


@pytest.mark.parametrize("sampler", CPU_SAMPLERS)
def test_cpu_blocks_nest_and_relabel(seed, sampler):
    # each block layer draws what one-hop sampling of its dst nodes with that layer draws, and
    # relabels in order of first appearance (one thread for the CPU sampler: its parallel
    # relabelling may order the new src nodes otherwise)
    neighbors, blocks_of = CPU_SAMPLERS[sampler]
    indptr, indices = random_csr(800, 20)
    seeds = torch.randperm(800)[:64]
    blocks = blocks_of(indptr, seeds, [5, 4, 3], indices=indices, seed=seed, threads=1)
    dst = seeds
    for layer, block in enumerate(blocks):
        assert block.num_dst == dst.shape[0]
        assert torch.equal(block.src_nodes[: block.num_dst], dst)
        assert block.src_nodes.unique().numel() == block.num_src >= block.num_dst
        one = neighbors(indptr, dst, [5, 4, 3][layer], indices=indices, layer=layer, seed=seed)
        assert torch.equal(block.offsets, one.offsets)
        assert torch.equal(block.src_nodes[block.indices.long()], one.neighbors)
        assert torch.equal(block.edge_ids, one.edge_ids)
        dst = block.src_nodes


@pytest.mark.parametrize("sampler", CPU_SAMPLERS)
def test_cpu_sampling_is_deterministic_and_threads_agree(seed, sampler):
    neighbors = CPU_SAMPLERS[sampler][0]
    indptr, indices = random_csr(700, 30)
    seeds = torch.randint(0, 700, (500,))
    a = neighbors(indptr, seeds, 9, indices=indices, seed=seed, threads=1)
    b = neighbors(indptr, seeds, 9, indices=indices, seed=seed, threads=4)
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    c = neighbors(indptr, seeds, 9, indices=indices, seed=seed + 1, threads=4)
    assert not torch.equal(a.edge_ids, c.edge_ids), "the seed changes nothing"


def test_opcheck_cpu_sampling(seed):
    indptr, indices = random_csr(200, 10)
    seeds = torch.randint(0, 200, (50,))
    torch.library.opcheck(torch.ops.gnndirect.sample_neighbors.default, (indptr, indices, seeds, 4))
    torch.library.opcheck(torch.ops.gnndirect.sample_blocks.default, (indptr, indices, seeds, [4, 3]))


def test_cpu_sampling_errors():
    indptr, indices = random_csr(50, 5)
    with pytest.raises(IndexError, match=r"seeds\[2\] = 50"):
        gd.sample_neighbors(indptr, torch.tensor([0, 1, 50]), 3, indices=indices)
    with pytest.raises(TypeError):
        gd.sample_neighbors(indptr, torch.tensor([0, 1], dtype=torch.int32), 3, indices=indices)
    with pytest.raises(ValueError):
        gd.sample_neighbors(indptr, torch.tensor([0]), -1, indices=indices)
    with pytest.raises(ValueError):
        gd.sample_blocks(indptr, torch.tensor([0]), [], indices=indices)
    with pytest.raises(TypeError):
        gd.sample_neighbors(indptr.float(), torch.tensor([0]), 3, indices=indices)
    with pytest.raises(ValueError):
        gd.sample_neighbors(indptr, torch.tensor([0]), 3, indices=indices, replace=True,
                            weights=torch.ones(indices.shape[0]))


# -- GPU ----------------------------------------------------------------------------------------

def _placed_graph(indptr, indices, placement, weights=None):
    return gd.Graph(indptr, indices, placement=placement, weights=weights)


@cuda
@pytest.mark.parametrize("placement", HOST_PLACEMENTS + ["device"])
@pytest.mark.parametrize("offset_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_gpu_sample_neighbors_equals_reference(seed, placement, offset_dtype, index_dtype):
    indptr, indices = random_csr(3000, 40, index_dtype, offset_dtype)
    graph = _placed_graph(indptr, indices, placement)
    seeds = torch.randint(0, 3000, (2500,), dtype=index_dtype)
    for replace in (False, True):
        for fanout in (0, 1, 10, 64):
            poison_cuda_cache()
            gpu = graph.sample_neighbors(seeds.cuda(), fanout, layer=1, seed=seed, replace=replace)
            cpu = testing.reference_sample_neighbors(indptr, indices, seeds, fanout, layer=1,
                                                     seed=seed, replace=replace)
            for g, c in zip(gpu, cpu):
                assert g.is_cuda and torch.equal(g.cpu(), c), (placement, replace, fanout)
            if fanout == 10:  # the reference's structure is checked in full on the CPU tests
                _check_structure(indptr, indices, seeds[:500], fanout,
                                 [gpu.offsets[:501], gpu.neighbors, gpu.edge_ids], replace=replace)


@cuda
def test_gpu_weighted_equals_reference(seed):
    indptr, indices = random_csr(2000, 30)
    weights = torch.rand(indices.shape[0])
    weights[::4] = 0
    graph = _placed_graph(indptr, indices, "managed_host", weights=weights)
    seeds = torch.randint(0, 2000, (1500,))
    gpu = graph.sample_neighbors(seeds.cuda(), 8, seed=seed)
    cpu = testing.reference_sample_neighbors(indptr, indices, seeds, 8, weights=weights, seed=seed)
    assert all(torch.equal(g.cpu(), c) for g, c in zip(gpu, cpu))


@cuda
@pytest.mark.parametrize("placement", HOST_PLACEMENTS + ["device"])
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_gpu_sample_blocks_equals_reference(seed, placement, index_dtype):
    indptr, indices = random_csr(4000, 30, index_dtype)
    graph = _placed_graph(indptr, indices, placement)
    seeds = torch.randperm(4000)[:512].to(index_dtype)
    poison_cuda_cache()
    gpu = graph.sample_blocks(seeds.cuda(), [15, 10, 5], seed=seed)
    cpu = testing.reference_sample_blocks(indptr, indices, seeds, [15, 10, 5], seed=seed)
    assert len(gpu) == len(cpu) == 3
    for g, c in zip(gpu, cpu):
        assert g.num_dst == c.num_dst
        for name in ("src_nodes", "offsets", "indices", "edge_ids"):
            assert torch.equal(getattr(g, name).cpu(), getattr(c, name)), name


@cuda
def test_opcheck_cuda_sampling(seed):
    indptr, indices = random_csr(500, 12)
    graph = _placed_graph(indptr, indices, "device")  # opcheck clones inputs (see test_opcheck_cuda)
    seeds = torch.randint(0, 500, (100,), device="cuda")
    ops = torch.ops.gnndirect
    torch.library.opcheck(ops.sample_neighbors.default, (graph.indptr, graph.indices, seeds, 5))
    torch.library.opcheck(ops.sample_blocks.default, (graph.indptr, graph.indices, seeds, [5, 3]))


@cuda
@pytest.mark.parametrize("placement", HOST_PLACEMENTS)
def test_compile_sampling_host_placements(seed, placement):
    indptr, indices = random_csr(500, 12)
    graph = _placed_graph(indptr, indices, placement)

    def sample(seeds):
        offsets, neighbors, edge_ids = torch.ops.gnndirect.sample_neighbors(graph.indptr, graph.indices, seeds, 5)
        return offsets[-1], neighbors.sum()

    compiled = torch.compile(sample, backend="aot_eager", fullgraph=True, dynamic=True)
    seeds = torch.randint(0, 500, (100,), device="cuda")
    assert all(torch.equal(a, b) for a, b in zip(compiled(seeds), sample(seeds)))


@cuda
def test_gpu_sampling_errors_and_context_survives():
    indptr, indices = random_csr(100, 8)
    graph = _placed_graph(indptr, indices, "registered")
    with pytest.raises(IndexError, match=r"seeds\[1\] = 100"):
        graph.sample_neighbors(torch.tensor([3, 100, 2], device="cuda"), 4)
    assert context_usable()
    with pytest.raises(IndexError, match=r"seeds of layer 0\[0\] = -5"):
        graph.sample_blocks(torch.tensor([-5, 1], device="cuda"), [3, 2])
    assert context_usable()
    with pytest.raises(TypeError):
        graph.sample_neighbors(torch.tensor([1], device="cuda", dtype=torch.int32), 4)
    with pytest.raises(ValueError):
        graph.sample_neighbors(torch.tensor([1]), 4)  # CPU seeds with a GPU-placed graph
    # a fresh copy: `indices` itself is page-locked while `graph` (registered in place) lives
    pageable_indices = indices.clone()
    with pytest.raises(ValueError, match="pageable"):
        gd.sample_neighbors(indptr.cuda(), torch.tensor([1], device="cuda"), 4, indices=pageable_indices)
    assert context_usable()
    seeds = torch.randint(0, 100, (50,))
    gpu = graph.sample_neighbors(seeds.cuda(), 4, seed=1)
    cpu = testing.reference_sample_neighbors(indptr, indices, seeds, 4, seed=1)
    assert all(torch.equal(g.cpu(), c) for g, c in zip(gpu, cpu))
