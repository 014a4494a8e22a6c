"""The CPU sampling ops (sample_blocks / sample_neighbors on CPU tensors: gnndirect's all-core
host::cpu_sampler) and GnnDirectCpuSampler under PyG's NodeLoader. CPU only.

Checked against independent rules on fresh random graphs: every sampled edge is an edge of its
dst node, min(fanout, degree) distinct neighbours per dst without replacement, relabelling
consistent (src prefix = dst, local ids index src, new src nodes unique and used), node and edge
sets deterministic for a seed and independent of the thread count, weighted draws never take a
non-positive weight, the host reference (gnndirect_torch.testing) as the oracle where sampling
has no choice; bad input raises a clear error."""

import pytest
import torch

import gnndirect_torch as gd
from gnndirect_torch import testing
from conftest import INDEX_DTYPES, random_csr

pytestmark = pytest.mark.usefixtures("_extension")


def _dense_random_csr(num_nodes, mean_degree, index_dtype=torch.int64, offset_dtype=torch.int64):
    """A larger random CSR (duplicate neighbours possible, some degree-0 nodes), built without a
    Python loop per node: big enough for the sampler's parallel relabelling (>= 16384 edges in a
    layer)."""
    degrees = torch.randint(0, 2 * mean_degree + 1, (num_nodes,))
    degrees[::17] = 0
    indptr = torch.zeros(num_nodes + 1, dtype=torch.int64)
    torch.cumsum(degrees, 0, out=indptr[1:])
    indices = torch.randint(0, num_nodes, (int(indptr[-1]),))
    return indptr.to(offset_dtype), indices.to(index_dtype)


def _check_blocks(indptr, indices, seeds, fanouts, blocks, replace=False, weights=None):
    """Structural rules of a relabelled multi-layer sample (vectorised). With ``weights``:
    min(fanout, positive weights) edges per dst node, none of weight <= 0 or NaN."""
    indptr, indices = indptr.long(), indices.long()
    if weights is None:
        degree = indptr[1:] - indptr[:-1]
    else:  # the edges weighted sampling can take
        positive = torch.zeros(indices.shape[0] + 1, dtype=torch.int64)
        torch.cumsum((weights > 0).long(), 0, out=positive[1:])
        degree = positive[indptr[1:]] - positive[indptr[:-1]]
    dst = seeds.long()
    assert len(blocks) == len(fanouts)
    for layer, (block, fanout) in enumerate(zip(blocks, fanouts)):
        src = block.src_nodes.long()
        offsets, local, eid = block.offsets, block.indices.long(), block.edge_ids.long()
        num_dst, num_edges = dst.shape[0], local.shape[0]
        assert block.num_dst == num_dst, layer
        assert offsets.dtype == torch.int64 and offsets.shape[0] == num_dst + 1
        # relabelling: src = dst, then new nodes once each, none of them a dst node
        assert torch.equal(src[:num_dst], dst), f"layer {layer}: src prefix is not the dst nodes"
        new = src[num_dst:]
        assert new.unique().numel() == new.numel(), f"layer {layer}: a new src node twice"
        assert not bool(torch.isin(new, dst).any()), f"layer {layer}: a new src node is a dst node"
        assert num_edges == 0 or (int(local.min()) >= 0 and int(local.max()) < src.shape[0])
        # every new src node is the endpoint of some sampled edge
        assert bool(torch.isin(new, src[local]).all()), f"layer {layer}: unused src node"
        # counts
        assert int(offsets[0]) == 0 and int(offsets[-1]) == num_edges
        counts = offsets[1:] - offsets[:-1]
        deg = degree[dst]
        expect = torch.where(deg > 0, torch.full_like(deg, fanout), deg) if replace \
            else torch.minimum(deg, torch.full_like(deg, fanout))
        assert torch.equal(counts, expect), f"layer {layer}: counts differ from min(fanout, degree)"
        # every edge is a real edge of its dst node, and its local id names the neighbour
        row = torch.repeat_interleave(torch.arange(num_dst), counts, output_size=num_edges)
        v = dst[row]
        assert bool(((eid >= indptr[v]) & (eid < indptr[v + 1])).all()), \
            f"layer {layer}: an edge id outside its dst node's list"
        assert torch.equal(indices[eid], src[local]), f"layer {layer}: local id is not the neighbour"
        if weights is not None:
            assert bool((weights[eid] > 0).all()), f"layer {layer}: a non-positive weight taken"
        if not replace:
            key = row * (indices.shape[0] + 1) + eid
            assert key.unique().numel() == num_edges, f"layer {layer}: a neighbour drawn twice"
        dst = src


def _edge_sets(blocks, seeds):
    """Per layer: sorted src node ids and sorted (dst global id, edge id) pairs, in global ids."""
    out = []
    dst = seeds.long()
    for block in blocks:
        src = block.src_nodes.long()
        counts = block.offsets[1:] - block.offsets[:-1]
        row = torch.repeat_interleave(torch.arange(dst.shape[0]), counts)
        pairs = torch.stack([dst[row], block.edge_ids.long()], 1).unique(dim=0)
        out.append((src.sort().values, pairs))
        dst = src
    return out


@pytest.mark.parametrize("offset_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("threads", [1, 3])
def test_structure_small(seed, offset_dtype, index_dtype, replace, threads):
    indptr, indices = random_csr(600, 30, index_dtype, offset_dtype)
    for seeds in (torch.randperm(600)[:80].to(index_dtype),
                  torch.randint(0, 600, (120,), dtype=index_dtype)):  # with repeated seeds
        for fanouts in ([5, 4, 3], [0, 2], [40]):
            blocks = gd.sample_blocks(indptr, seeds, fanouts, indices=indices, seed=seed,
                                      replace=replace, threads=threads)
            for b in blocks:
                assert b.src_nodes.dtype == index_dtype and b.indices.dtype == index_dtype
                assert b.edge_ids.dtype == offset_dtype
            _check_blocks(indptr, indices, seeds, fanouts, blocks, replace=replace)


@pytest.mark.parametrize("replace", [False, True])
def test_structure_parallel_relabel(seed, replace):
    # layers of >= 16384 sampled edges take the sampler's parallel relabelling passes
    indptr, indices = _dense_random_csr(30_000, 12)
    seeds = torch.randperm(30_000)[:3000]
    blocks = gd.sample_blocks(indptr, seeds, [10, 6], indices=indices, seed=seed, replace=replace,
                              threads=4)
    assert blocks[0].num_edges >= 16384
    _check_blocks(indptr, indices, seeds, [10, 6], blocks, replace=replace)


@pytest.mark.parametrize("threads", [1, 4])
def test_weighted_structure_and_thread_independence(seed, threads):
    indptr, indices = _dense_random_csr(30_000, 12)
    weights = torch.rand(indices.shape[0])
    weights[::5] = 0
    seeds = torch.randperm(30_000)[:3000]
    blocks = gd.sample_blocks(indptr, seeds, [10, 6], indices=indices, weights=weights, seed=seed,
                              threads=threads)
    _check_blocks(indptr, indices, seeds, [10, 6], blocks, weights=weights)
    one = gd.sample_blocks(indptr, seeds, [10, 6], indices=indices, weights=weights, seed=seed,
                           threads=1)
    for (src_a, pairs_a), (src_b, pairs_b) in zip(_edge_sets(blocks, seeds), _edge_sets(one, seeds)):
        assert torch.equal(src_a, src_b) and torch.equal(pairs_a, pairs_b)
    # negative and NaN weights: refused by the check, never taken without it
    odd = weights.clone()
    odd[1::7] = -1.0
    odd[2::11] = float("nan")
    with pytest.raises(ValueError, match="weights"):
        gd.sample_blocks(indptr, seeds, [10, 6], indices=indices, weights=odd, seed=seed, threads=threads)
    blocks = gd.sample_blocks(indptr, seeds, [10, 6], indices=indices, weights=odd, seed=seed,
                              threads=threads, check=False)
    _check_blocks(indptr, indices, seeds, [10, 6], blocks, weights=odd)


def test_weighted_draws_follow_the_weights(seed):
    # one node, neighbours 1..4 of weights 1, 2, 3, 4 (and a zero-weight neighbour 5), fanout 1
    indptr = torch.tensor([0, 5] + [5] * 5)
    indices = torch.arange(1, 6)
    weights = torch.tensor([1.0, 2.0, 3.0, 4.0, 0.0])
    seeds = torch.zeros(1, dtype=torch.int64)
    hits = torch.zeros(6, dtype=torch.int64)
    for key in range(4000):
        out = gd.sample_neighbors(indptr, seeds, 1, indices=indices, weights=weights,
                                  seed=seed * 7919 + key)
        hits += torch.bincount(out.neighbors, minlength=6)
    assert int(hits[0]) == 0 and int(hits[5]) == 0 and int(hits.sum()) == 4000
    for node, share in ((1, 0.1), (2, 0.2), (3, 0.3), (4, 0.4)):  # 6 sigma of a binomial
        sigma = (4000 * share * (1 - share)) ** 0.5
        assert abs(int(hits[node]) - 4000 * share) < 6 * sigma, hits.tolist()


def test_outputs_own_their_memory(seed):
    # The op's tensors share the sampler's output arrays (no copy): they must stay valid and
    # unchanged after later calls, and after the other tensors of their batch are gone.
    indptr, indices = _dense_random_csr(20_000, 10)
    seeds = torch.randperm(20_000)[:2000]
    first = gd.sample_blocks(indptr, seeds, [8, 4], indices=indices, seed=seed, threads=2)
    kept = first[1].indices
    want = [(b.src_nodes.clone(), b.offsets.clone(), b.indices.clone(), b.edge_ids.clone()) for b in first]
    want_kept = kept.clone()
    for k in range(3):  # later batches of other seeds
        gd.sample_blocks(indptr, torch.randperm(20_000)[:2000], [8, 4], indices=indices, seed=seed + k,
                         threads=2)
    for block, (src, offsets, local, eids) in zip(first, want):
        assert torch.equal(block.src_nodes, src) and torch.equal(block.offsets, offsets)
        assert torch.equal(block.indices, local) and torch.equal(block.edge_ids, eids)
    del first, block
    gd.sample_blocks(indptr, seeds, [8, 4], indices=indices, seed=seed + 7, threads=2)
    assert torch.equal(kept, want_kept)
    kept += 1  # writable, like any op output
    assert torch.equal(kept, want_kept + 1)


def test_deterministic_sets_and_thread_independent(seed):
    indptr, indices = _dense_random_csr(20_000, 10)
    seeds = torch.randperm(20_000)[:2500]
    fanouts = [8, 5, 3]
    runs = [gd.sample_blocks(indptr, seeds, fanouts, indices=indices, seed=seed, threads=t)
            for t in (4, 4, 1, 2)]
    want = _edge_sets(runs[0], seeds)
    for blocks in runs[1:]:
        for (src_a, pairs_a), (src_b, pairs_b) in zip(want, _edge_sets(blocks, seeds)):
            assert torch.equal(src_a, src_b) and torch.equal(pairs_a, pairs_b)
    other = gd.sample_blocks(indptr, seeds, fanouts, indices=indices, seed=seed + 1, threads=4)
    assert not torch.equal(_edge_sets(other, seeds)[0][1], want[0][1]), "the seed changes nothing"


def test_matches_reference_when_everything_is_taken(seed):
    # fanout >= every degree: no choice, so the node and edge sets equal the host reference's
    indptr, indices = random_csr(500, 12)
    seeds = torch.randperm(500)[:60]
    fast = gd.sample_blocks(indptr, seeds, [12, 12], indices=indices, seed=seed)
    ref = testing.reference_sample_blocks(indptr, indices, seeds, [12, 12], seed=seed)
    for (src_a, pairs_a), (src_b, pairs_b) in zip(_edge_sets(fast, seeds), _edge_sets(ref, seeds)):
        assert torch.equal(src_a, src_b) and torch.equal(pairs_a, pairs_b)
    # and layer 0's counts equal the reference's for any fanout (min(fanout, degree) both)
    fast = gd.sample_blocks(indptr, seeds, [4], indices=indices, seed=seed)
    ref = testing.reference_sample_blocks(indptr, indices, seeds, [4], seed=seed)
    assert torch.equal(fast[0].offsets, ref[0].offsets)


def test_draws_are_uniform(seed):
    # one node of degree 10, fanout 3, 3000 keys: each neighbour in ~30% of the samples
    indptr = torch.tensor([0, 10] + [10] * 10)
    indices = torch.arange(1, 11)
    seeds = torch.zeros(1, dtype=torch.int64)
    hits = torch.zeros(11, dtype=torch.int64)
    for key in range(3000):
        block = gd.sample_blocks(indptr, seeds, [3], indices=indices, seed=seed * 7919 + key)[0]
        hits += torch.bincount(block.src_nodes[block.indices.long()], minlength=11)
    assert int(hits[0]) == 0 and int(hits.sum()) == 9000
    # expected 900 each, standard deviation ~25: 6 sigma
    assert int(hits[1:].min()) > 750 and int(hits[1:].max()) < 1050, hits.tolist()


def test_bad_input_raises():
    indptr, indices = random_csr(100, 8)
    seeds = torch.arange(10)
    with pytest.raises(ValueError, match="indptr"):  # indptr does not end at len(indices)
        gd.sample_blocks(indptr, seeds, [3], indices=indices[:-1])
    with pytest.raises(ValueError, match="fanout"):
        gd.sample_blocks(indptr, seeds, [3, -1], indices=indices)
    with pytest.raises(ValueError, match="fanout"):  # the op's own check, past the wrapper
        torch.ops.gnndirect.sample_blocks(indptr, indices, seeds, [-2])
    with pytest.raises(ValueError, match="fanout"):
        gd.sample_blocks(indptr, seeds, [], indices=indices)
    with pytest.raises(IndexError, match="seeds"):
        gd.sample_blocks(indptr, torch.tensor([0, 5, 100]), [3], indices=indices)
    with pytest.raises(IndexError, match="seeds"):
        gd.sample_blocks(indptr, torch.tensor([-1]), [3], indices=indices)
    with pytest.raises(TypeError, match="dtype"):
        gd.sample_blocks(indptr, seeds.int(), [3], indices=indices)
    with pytest.raises(ValueError, match="weights"):  # one weight per edge
        gd.sample_blocks(indptr, seeds, [3], indices=indices, weights=torch.rand(indices.shape[0] - 1))
    with pytest.raises(ValueError, match="replacement"):
        gd.sample_blocks(indptr, seeds, [3], indices=indices, weights=torch.rand(indices.shape[0]),
                         replace=True)
    with pytest.raises(ValueError, match="threads"):
        torch.ops.gnndirect.sample_blocks(indptr, indices, seeds, [2], 0, False, None, True, -1)
    with pytest.raises(ValueError, match="threads"):
        torch.ops.gnndirect.sample_neighbors(indptr, indices, seeds, 2, 0, 0, False, None, True, 5000)


def test_corrupt_graph_raises_and_is_rechecked_after_a_write():
    indptr, indices = random_csr(200, 8)
    seeds = torch.arange(20)
    gd.sample_blocks(indptr, seeds, [3], indices=indices)  # valid: checked, remembered
    bad = indices.clone()
    bad[len(bad) // 2] = 200  # a neighbour id outside [0, num_nodes)
    with pytest.raises(ValueError, match="indices"):
        gd.sample_blocks(indptr, seeds, [3], indices=bad)
    # an in-place write to the graph that passed makes it be checked again
    indices[3] = -7
    with pytest.raises(ValueError, match="indices"):
        gd.sample_blocks(indptr, seeds, [3], indices=indices)
    indices[3] = 0
    gd.sample_blocks(indptr, seeds, [3], indices=indices)
    # indptr that ends right but decreases: refused, not read out of bounds
    wrong = indptr.clone()
    wrong[50], wrong[51] = wrong[51] + 3, wrong[50]
    if int(wrong[50]) > int(wrong[51]):
        with pytest.raises(ValueError, match="indptr"):
            gd.sample_blocks(wrong, seeds, [3], indices=indices)


def test_empty_seeds_and_empty_graph():
    indptr, indices = random_csr(50, 5)
    blocks = gd.sample_blocks(indptr, torch.empty(0, dtype=torch.int64), [3, 2], indices=indices)
    assert [b.num_src for b in blocks] == [0, 0] and [b.num_edges for b in blocks] == [0, 0]
    lonely = torch.zeros(11, dtype=torch.int64)  # 10 nodes, no edges
    blocks = gd.sample_blocks(lonely, torch.arange(10), [4], indices=torch.empty(0, dtype=torch.int64))
    assert blocks[0].num_edges == 0 and torch.equal(blocks[0].src_nodes, torch.arange(10))


# -- PyG: GnnDirectCpuSampler under NodeLoader ------------------------------------------------------

def _pyg_loader(indptr, indices, x, y, train, workers, seed):
    pytest.importorskip("torch_geometric")
    from torch_geometric.data import Data
    from torch_geometric.loader import NodeLoader
    from gnndirect_torch.pyg import GnnDirectCpuSampler
    dst = torch.repeat_interleave(torch.arange(indptr.shape[0] - 1), indptr[1:] - indptr[:-1])
    data = Data(x=x, y=y, edge_index=torch.stack([indices, dst]))
    sampler = GnnDirectCpuSampler(indptr, indices, [4, 3], seed=seed, threads=2)
    return data, NodeLoader(data, sampler, input_nodes=train, batch_size=32, shuffle=True,
                            num_workers=workers, persistent_workers=workers > 0, timeout=120 if workers else 0)


@pytest.mark.parametrize("workers", [0, 2])
def test_pyg_node_loader_batches(seed, workers):
    indptr, indices = random_csr(400, 10)
    x = torch.randn(400, 6)
    y = torch.randint(0, 5, (400,))
    train = torch.randperm(400)[:100]
    # the sampler ran in this process first: forked workers must make their own (not hang)
    gd.sample_blocks(indptr, train[:8], [2], indices=indices, threads=2)
    data, loader = _pyg_loader(indptr, indices, x, y, train, workers, seed)
    seen = []
    for batch in loader:
        n_id, ei = batch.n_id, batch.edge_index
        assert torch.equal(batch.x, x[n_id]) and torch.equal(batch.y, y[n_id])
        assert batch.batch_size == batch.input_id.numel()
        seen.append(n_id[: batch.batch_size])
        # local edges name real edges: edge_index[:, e_id] of the full graph is (src, dst)
        assert torch.equal(data.edge_index[:, batch.e_id], torch.stack([n_id[ei[0]], n_id[ei[1]]]))
        assert sum(batch.num_sampled_edges) == ei.shape[1]
        assert sum(batch.num_sampled_nodes) == n_id.numel()
        parts = gd.blocks_from_pyg(ei, batch.num_sampled_nodes, batch.num_sampled_edges)
        for part in parts:  # hop by hop: dst ids < num_dst, src ids < num_src
            if part["edge_index"].shape[1] > 0:
                assert int(part["edge_index"][1].max()) < part["num_dst"]
                assert int(part["edge_index"][0].max()) < part["num_src"]
    assert torch.equal(torch.cat(seen).sort().values, train.sort().values)


def test_pyg_sampler_rejects_bad_arguments():
    pytest.importorskip("torch_geometric")
    from gnndirect_torch.pyg import GnnDirectCpuSampler
    indptr, indices = random_csr(20, 3)
    with pytest.raises(ValueError, match="threads"):
        GnnDirectCpuSampler(indptr, indices, [2], threads=-1)
    with pytest.raises(ValueError, match="fanout"):
        GnnDirectCpuSampler(indptr, indices, [2, -3])


def test_opcheck_cpu_ops(seed):
    indptr, indices = random_csr(200, 10)
    seeds = torch.randint(0, 200, (50,))
    # one thread: the output (local-id order included) is a function of the inputs
    torch.library.opcheck(torch.ops.gnndirect.sample_blocks.default,
                          (indptr, indices, seeds, [4, 3], seed, False, None, True, 1))
    torch.library.opcheck(torch.ops.gnndirect.sample_neighbors.default,
                          (indptr, indices, seeds, 4, 1, seed, False, torch.rand(indices.shape[0]), True, 1))
