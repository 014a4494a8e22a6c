"""Typed link prediction: seeds of several node types (sample_typed_blocks with a seed dict, op
sample_typed_blocks_multi), typed negatives and gd.HeteroLinkNeighborLoader.

CPU (device="cpu", the host reference): an independent pure-Python typed BFS over the documented
semantics (every type's list starts with its seeds, in order, repeats kept as rows) gives the
whole result exactly for fanout -1; the one-type call equals the dict call with one entry bit
for bit for random fanouts; every loader batch is recomputed from its fields (seeds per type =
the sorted distinct endpoints, edge_label_index mapping back to the global pairs, labels,
negatives inside their types and, when strict, no edge of the edge type, and equal bit for bit
to test_link's independent Philox reference with two ranges, keyed by batch_key(key, 1)). GPU:
the CUDA loader equals the CPU loader bit for bit, and so do the typed negatives.
"""

import math

import pytest
import torch

import gnndirect_torch as gd
from gnndirect_torch.hetero import sample_typed_blocks
from gnndirect_torch.hetero_link import (HeteroLinkBatch, HeteroLinkNeighborLoader, sample_typed_negatives,
                                         typed_edge_keys, typed_negative_csr)
from gnndirect_torch._util import batch_key

from conftest import cuda

pytest.importorskip("torch_geometric")
from test_hetero import (EDGE_TYPES, NODE_COUNTS, as_lists, cpu_graph, random_hetero_data,  # noqa: E402
                         reference_typed_seeds)
from test_link import ref_negatives  # noqa: E402

WRITES = ("author", "writes", "paper")
CITES = ("paper", "cites", "paper")


def reference_multi(graph, seeds, layers):
    """Typed BFS with every neighbour (fanout -1) from seeds per type: (nodes, counts, layers)
    as test_hetero.as_lists gives them."""
    return reference_typed_seeds(graph, seeds, layers, lambda l, e, v, begin, end: range(begin, end))


def test_seed_dict_equals_an_independent_bfs_with_every_neighbour(seed):
    data = random_hetero_data(seed)
    graph = cpu_graph(data)
    g = torch.Generator().manual_seed(seed)
    papers = torch.randint(0, NODE_COUNTS["paper"], (9,), generator=g)
    papers[3] = papers[0]  # a repeated seed: its own row, the first one's local id
    authors = torch.randint(0, NODE_COUNTS["author"], (5,), generator=g)
    blocks = sample_typed_blocks(graph, {"paper": papers, "author": authors}, [-1, -1], seed=seed)
    expected = reference_multi(graph, {"paper": papers.tolist(), "author": authors.tolist()}, 2)
    assert as_lists(blocks) == expected
    assert blocks.seed_type is None and blocks.batch_size == 14
    assert blocks.num_seeds == {"paper": 9, "author": 5, "institution": 0, "field": 0}
    assert blocks.num_sampled_nodes()["author"][0] == 5
    # the method form, and seeds given as a keyword
    assert as_lists(graph.sample_typed_blocks({"author": authors, "paper": papers}, num_neighbors=[-1, -1])) == expected


def test_one_type_call_equals_the_seed_dict_with_one_entry(seed):
    data = random_hetero_data(seed)
    graph = cpu_graph(data, torch.int32)
    g = torch.Generator().manual_seed(seed)
    seeds = torch.randint(0, NODE_COUNTS["author"], (12,), generator=g)
    fanouts = {e: [3, 2] for e in EDGE_TYPES}
    for replace in (False, True):
        one = sample_typed_blocks(graph, "author", seeds, fanouts, seed=seed, replace=replace)
        multi = sample_typed_blocks(graph, {"author": seeds}, fanouts, seed=seed, replace=replace)
        assert as_lists(one) == as_lists(multi)
        assert one.num_seeds == multi.num_seeds
    none = sample_typed_blocks(graph, {}, fanouts, seed=seed)
    assert all(n.numel() == 0 for n in none.nodes.values())


def test_seed_dict_errors_name_the_type(seed):
    graph = cpu_graph(random_hetero_data(seed))
    ok = torch.tensor([0, 1])
    with pytest.raises(ValueError, match="unknown node type 'venue'"):
        sample_typed_blocks(graph, {"venue": ok}, [2])
    with pytest.raises(IndexError, match="node type 'author'"):
        sample_typed_blocks(graph, {"paper": ok, "author": torch.tensor([0, NODE_COUNTS["author"]])}, [2])
    with pytest.raises(IndexError, match="node type 'paper'"):
        sample_typed_blocks(graph, {"paper": torch.tensor([-1]), "author": ok}, [2])
    with pytest.raises(ValueError, match=r"seeds\['paper'\] must be a 1-D tensor"):
        sample_typed_blocks(graph, {"paper": ok.view(1, 2)}, [2])
    with pytest.raises(TypeError, match="integer tensor"):
        sample_typed_blocks(graph, {"paper": ok.float()}, [2])
    with pytest.raises(TypeError, match="no separate seeds"):
        sample_typed_blocks(graph, {"paper": ok}, ok, [2])


def out_csr_of(data, edge_type):
    """The relation's out-CSR (rows: src-type nodes, sorted dst ids), from its edge_index in pure
    Python (independent of the library's transpose)."""
    lists = [set() for _ in range(NODE_COUNTS[edge_type[0]])]
    for s, d in data[edge_type].edge_index.t().tolist():
        lists[s].add(d)
    indptr = torch.tensor([0] + [len(x) for x in lists]).cumsum(0)
    return indptr, torch.tensor([d for x in lists for d in sorted(x)], dtype=torch.int64)


def reference_typed_negatives(data, edge_type, src, dst, mode, amount, seed, strict=False, max_attempts=8):
    """(pairs, unresolved) of test_link's Philox reference with two ranges (src over the src
    type, dst over the dst type) on the relation's out-CSR."""
    return ref_negatives(out_csr_of(data, edge_type), src, dst, mode, amount, seed, 0, strict, max_attempts,
                         num_dst=NODE_COUNTS[edge_type[2]])


@pytest.mark.parametrize("edge_type", [WRITES, CITES])
@pytest.mark.parametrize("mode,amount", [("binary", 1.0), ("binary", 2.5), ("triplet", 3)])
@pytest.mark.parametrize("strict", [False, True])
def test_typed_negatives_equal_the_two_range_reference(seed, edge_type, mode, amount, strict):
    data = random_hetero_data(seed, max_degree=20)
    graph = cpu_graph(data)
    pairs = data[edge_type].edge_index
    pick = torch.randperm(pairs.size(1))[:25]
    src, dst = pairs[0, pick], pairs[1, pick]
    neg = sample_typed_negatives(graph, edge_type, src, dst, mode=mode, amount=amount, seed=seed, strict=strict,
                                 max_attempts=5)
    want, unresolved = reference_typed_negatives(data, edge_type, src, dst, mode, amount, seed, strict, 5)
    assert neg.src.dtype == neg.dst.dtype == torch.int64
    assert list(zip(neg.src.tolist(), neg.dst.tolist())) == want
    assert int(neg.unresolved) == unresolved
    if not strict:
        assert int(neg.unresolved) == 0
    # A prebuilt csr (what the loader caches) gives the same draws.
    csr = typed_negative_csr(graph, edge_type, strict)
    again = sample_typed_negatives(graph, edge_type, src, dst, mode=mode, amount=amount, seed=seed, strict=strict,
                                   max_attempts=5, csr=csr)
    assert torch.equal(again.src, neg.src) and torch.equal(again.dst, neg.dst)
    out_ptr, out_idx = csr
    assert out_ptr.numel() == NODE_COUNTS[edge_type[0]] + 1
    if strict:  # the relation's out-CSR: its edges (parallel copies kept), each row sorted
        rows = [out_idx[int(out_ptr[u]):int(out_ptr[u + 1])].tolist() for u in range(out_ptr.numel() - 1)]
        assert all(r == sorted(r) for r in rows)
        assert sorted((u, d) for u, r in enumerate(rows) for d in r) == sorted(map(tuple, pairs.t().tolist()))
    else:  # only the row count matters
        assert int(out_ptr.abs().sum()) == 0 and out_idx.numel() == 0


def test_typed_negatives_stay_in_their_types_and_strict_ones_are_no_edges(seed):
    data = random_hetero_data(seed, max_degree=20)  # dense: strict redraws happen
    graph = cpu_graph(data)
    pos = data[WRITES].edge_index[:, :30]
    edges = set(map(tuple, data[WRITES].edge_index.t().tolist()))
    for mode, amount in (("binary", 1.5), ("triplet", 2)):
        neg = sample_typed_negatives(graph, WRITES, pos[0], pos[1], mode=mode, amount=amount, seed=seed,
                                     strict=True, max_attempts=50)
        count = math.ceil(amount * 30) if mode == "binary" else amount * 30
        assert neg.src.numel() == neg.dst.numel() == count
        assert 0 <= int(neg.src.min()) and int(neg.src.max()) < NODE_COUNTS["author"]
        assert 0 <= int(neg.dst.min()) and int(neg.dst.max()) < NODE_COUNTS["paper"]
        if mode == "triplet":
            assert torch.equal(neg.src, pos[0].repeat_interleave(amount))
        stayed = sum((s, d) in edges for s, d in zip(neg.src.tolist(), neg.dst.tolist()))
        assert stayed == int(neg.unresolved) == 0
        again = sample_typed_negatives(graph, "writes", pos[0], pos[1], mode=mode, amount=amount, seed=seed,
                                       strict=True, max_attempts=50)
        assert torch.equal(again.src, neg.src) and torch.equal(again.dst, neg.dst)
    keys = typed_edge_keys(graph, WRITES)
    assert keys.tolist() == sorted(s * NODE_COUNTS["paper"] + d for s, d in edges)
    with pytest.raises(IndexError, match="node type 'author'"):
        sample_typed_negatives(graph, WRITES, torch.tensor([NODE_COUNTS["author"]]), torch.tensor([0]))
    with pytest.raises(ValueError, match="unknown edge type"):
        sample_typed_negatives(graph, ("paper", "writes", "author"), pos[0], pos[1])
    with pytest.raises(ValueError, match="mode"):
        sample_typed_negatives(graph, WRITES, pos[0], pos[1], mode="pairs")


def check_link_batch(batch, loader, data, graph, features, num_neighbors):
    """Recomputes a batch from its fields (see the module comment)."""
    assert isinstance(batch, HeteroLinkBatch)
    e = loader.edge_type
    src_t, dst_t = e[0], e[2]
    positives = loader.edges[:, batch.input_id]
    num_pos = positives.size(1)
    assert batch.sampling_seed == batch_key(loader.seed, batch.epoch, batch.index)
    nodes = {t: n.cpu().to(torch.int64) for t, n in batch.blocks.nodes.items()}
    if batch.edge_label_index is not None:  # binary or no negatives
        assert torch.equal(batch.src[:num_pos].cpu(), positives[0])
        assert torch.equal(batch.dst[:num_pos].cpu(), positives[1])
        num_neg = batch.src.numel() - num_pos
        expected_neg = 0 if loader.neg is None else math.ceil(loader.neg.amount * num_pos)
        assert num_neg == expected_neg
        index = batch.edge_label_index.cpu()
        assert torch.equal(nodes[src_t][index[0]], batch.src.cpu())
        assert torch.equal(nodes[dst_t][index[1]], batch.dst.cpu())
        label = batch.edge_label.cpu()
        if loader.edge_label is None:
            assert torch.equal(label[:num_pos], torch.ones(num_pos))
        else:
            assert torch.equal(label[:num_pos], loader.edge_label[batch.input_id].to(label.dtype))
        assert torch.equal(label[num_pos:], torch.zeros(num_neg, dtype=label.dtype))
        src_ends, dst_ends = batch.src.cpu().tolist(), batch.dst.cpu().tolist()
    else:  # triplet
        amount = int(loader.neg.amount)
        assert torch.equal(nodes[src_t][batch.src_index.cpu()], positives[0])
        assert torch.equal(nodes[dst_t][batch.dst_pos_index.cpu()], positives[1])
        neg_dst = nodes[dst_t][batch.dst_neg_index.cpu().view(-1)]
        assert torch.equal(neg_dst, batch.dst[num_pos:].cpu())
        assert batch.dst_neg_index.numel() == amount * num_pos
        src_ends, dst_ends = positives[0].tolist(), batch.dst.cpu().tolist()
    if loader.neg is not None:  # the negatives: the two-range Philox reference keyed by batch_key(key, 1)
        want, unresolved = reference_typed_negatives(data, e, positives[0], positives[1], loader.neg.mode,
                                                     loader.neg.amount, batch_key(batch.sampling_seed, 1),
                                                     loader.neg.strict, loader.neg.max_attempts)
        neg_src = (positives[0].repeat_interleave(int(loader.neg.amount)) if loader.neg.mode == "triplet"
                   else batch.src[num_pos:].cpu())
        assert list(zip(neg_src.tolist(), batch.dst[num_pos:].cpu().tolist())) == want
        assert int(batch.num_unresolved) == unresolved
    # one list for both endpoints when src and dst type are one type
    ends = {src_t: src_ends + dst_ends} if src_t == dst_t else {src_t: src_ends, dst_t: dst_ends}
    assert int(batch.src.min()) >= 0 and int(batch.src.max()) < NODE_COUNTS[src_t]
    assert int(batch.dst.min()) >= 0 and int(batch.dst.max()) < NODE_COUNTS[dst_t]
    # seeds per type: the distinct endpoints, sorted, first in the type's list
    seeds = {t: torch.tensor(sorted(set(v)), dtype=torch.int64) for t, v in ends.items()}
    for t in graph.node_types:
        want = seeds.get(t, torch.empty(0, dtype=torch.int64))
        assert batch.blocks.num_seeds[t] == want.numel(), t
        assert torch.equal(nodes[t][:want.numel()], want), t
    again = sample_typed_blocks(graph, seeds, num_neighbors, seed=batch.sampling_seed)
    assert as_lists(batch.blocks) == as_lists(again)
    if all(f == -1 for fs in num_neighbors.values() for f in fs):
        layers = len(next(iter(num_neighbors.values())))
        assert as_lists(batch.blocks) == reference_multi(graph, {t: v.tolist() for t, v in seeds.items()}, layers)
    for t, x in features.items():
        assert torch.equal(batch.x[t].cpu(), x[nodes[t]]), t
    return batch.input_id.tolist()


@pytest.mark.parametrize("edge_type", [WRITES, CITES])
@pytest.mark.parametrize("neg", [None, "binary", {"mode": "binary", "amount": 2.5, "strict": True},
                                 {"mode": "triplet", "amount": 2}])
def test_hetero_link_loader_batches_recomputed(seed, edge_type, neg):
    data = random_hetero_data(seed)
    graph = cpu_graph(data)
    num_neighbors = {e: [-1, -1] for e in EDGE_TYPES} if neg is None else {e: [3, 2] for e in EDGE_TYPES}
    features = {"paper": data["paper"].x, "author": data["author"].x}
    tables = {"paper": gd.Table(features["paper"].clone(), device="cpu"), "author": features["author"].clone(),
              "field": None}
    pairs = data[edge_type].edge_index
    edge_label = None
    if neg is None or (isinstance(neg, str)):
        edge_label = torch.randint(0, 2, (pairs.size(1),))
    loader = HeteroLinkNeighborLoader(graph, tables, edge_label_index=(edge_type, pairs), edge_label=edge_label,
                                      neg_sampling=neg, num_neighbors=num_neighbors, batch_size=16, shuffle=True,
                                      seed=seed)
    assert len(loader) == -(-pairs.size(1) // 16)
    for epoch in range(2):
        seen = []
        for batch in loader:
            assert batch.epoch == epoch
            seen += check_link_batch(batch, loader, data, graph, features, num_neighbors)
        assert sorted(seen) == list(range(pairs.size(1)))
    first = loader.batch(torch.arange(5), epoch=3, index=1)
    second = loader.batch(torch.arange(5), epoch=3, index=1)
    assert as_lists(first.blocks) == as_lists(second.blocks) and torch.equal(first.dst, second.dst)


def test_hetero_link_loader_to_pyg_is_hetero_data_with_link_fields(seed):
    from torch_geometric.data import HeteroData
    data = random_hetero_data(seed)
    graph = cpu_graph(data)
    loader = gd.HeteroLinkNeighborLoader(graph, {"author": data["author"].x},
                                         edge_label_index=("writes", data[WRITES].edge_index),
                                         neg_sampling="binary", num_neighbors=[2, 2], batch_size=8, seed=seed)
    batch = next(iter(loader))
    pyg = batch.to_pyg()
    assert isinstance(pyg, HeteroData)
    assert torch.equal(pyg[WRITES].edge_label_index, batch.edge_label_index)
    assert torch.equal(pyg[WRITES].edge_label, batch.edge_label)
    assert torch.equal(pyg[WRITES].input_id, batch.input_id)
    for t in graph.node_types:
        assert torch.equal(pyg[t].n_id, batch.blocks.nodes[t].to(torch.int64))
    assert torch.equal(pyg["author"].x, data["author"].x[batch.blocks.nodes["author"].to(torch.int64)])
    for e in EDGE_TYPES:
        index = pyg[e].edge_index
        assert index.size(0) == 2
        if index.numel():  # local ids inside the lists of the endpoint types
            assert int(index[0].max()) < pyg[e[0]].num_nodes and int(index[1].max()) < pyg[e[2]].num_nodes
    trip = gd.HeteroLinkNeighborLoader(graph, None, edge_label_index=(WRITES, data[WRITES].edge_index),
                                       neg_sampling="triplet", num_neighbors=[2], batch_size=8, seed=seed)
    p = next(iter(trip)).to_pyg()
    assert p["author"].src_index.numel() == 8 and p["paper"].dst_neg_index.shape == (8,)


def test_hetero_link_loader_bad_input_names_what_is_wrong(seed):
    data = random_hetero_data(seed)
    graph = cpu_graph(data)
    pairs = data[WRITES].edge_index
    make = lambda **kw: HeteroLinkNeighborLoader(graph, kw.pop("features", None),  # noqa: E731
                                                 edge_label_index=kw.pop("eli", (WRITES, pairs)),
                                                 num_neighbors=kw.pop("nn", [2]), **kw)
    with pytest.raises(ValueError, match="unknown edge type"):
        make(eli=(("paper", "writes", "author"), pairs))
    with pytest.raises(IndexError, match="node type 'author'"):
        make(eli=(WRITES, torch.tensor([[NODE_COUNTS["author"]], [0]])))
    with pytest.raises(IndexError, match="node type 'paper'"):
        make(eli=(WRITES, torch.tensor([[0], [NODE_COUNTS["paper"]]])))
    with pytest.raises(ValueError, match=r"\[2, num_edges\]"):
        make(eli=(WRITES, pairs[0]))
    with pytest.raises(TypeError, match="edge_label_index=\\(edge_type"):
        make(eli=pairs)
    with pytest.raises(TypeError, match="integer node ids"):
        make(eli=(WRITES, pairs.float()))
    with pytest.raises(ValueError, match="entries for"):
        make(edge_label=torch.ones(3))
    with pytest.raises(ValueError, match="triplet"):
        make(edge_label=torch.ones(pairs.size(1)), neg_sampling="triplet")
    with pytest.raises(ValueError, match="unknown node type 'venue'"):
        make(features={"venue": torch.zeros(3, 2)})
    with pytest.raises(ValueError, match="'author' has 3 rows"):
        make(features={"author": torch.zeros(3, 2)})
    with pytest.raises(ValueError, match="mode"):
        make(neg_sampling="pairs")
    with pytest.raises(ValueError, match="edge type"):
        make(nn={("paper", "x", "paper"): [2]})
    with pytest.raises(TypeError, match="HeteroGraph"):
        HeteroLinkNeighborLoader(object(), None, edge_label_index=(WRITES, pairs), num_neighbors=[2])


@cuda
@pytest.mark.parametrize("neg", ["binary", {"mode": "triplet", "amount": 2, "strict": True}])
def test_cuda_hetero_link_loader_equals_the_cpu_loader(seed, neg):
    from gnndirect_torch.hetero import HeteroGraph
    data = random_hetero_data(seed)
    cpu = cpu_graph(data)
    gpu = HeteroGraph.from_hetero_data(data, device="cuda")
    args = dict(edge_label_index=(WRITES, data[WRITES].edge_index), neg_sampling=neg,
                num_neighbors=[4, 3], batch_size=16, shuffle=True, seed=seed)
    a = HeteroLinkNeighborLoader(cpu, {"paper": gd.Table(data["paper"].x.clone(), device="cpu")}, **args)
    b = HeteroLinkNeighborLoader(gpu, {"paper": gd.Table(data["paper"].x.clone())}, **args)
    for x, y in zip(a, b):
        assert as_lists(x.blocks) == as_lists(y.blocks)
        assert torch.equal(x.x["paper"], y.x["paper"].cpu())
        for name in ("edge_label_index", "edge_label", "src_index", "dst_pos_index", "dst_neg_index", "dst"):
            u, v = getattr(x, name), getattr(y, name)
            assert (u is None and v is None) or torch.equal(u, v.cpu()), name


@cuda
@pytest.mark.parametrize("edge_type", [WRITES, CITES])
@pytest.mark.parametrize("mode,amount", [("binary", 1.5), ("triplet", 2)])
@pytest.mark.parametrize("strict", [False, True])
def test_cuda_typed_negatives_equal_the_cpu_ones(seed, edge_type, mode, amount, strict):
    from gnndirect_torch.hetero import HeteroGraph
    data = random_hetero_data(seed, max_degree=20)
    cpu = cpu_graph(data)
    gpu = HeteroGraph.from_hetero_data(data, device="cuda")
    pairs = data[edge_type].edge_index
    src, dst = pairs[0, :40], pairs[1, :40]
    a = sample_typed_negatives(cpu, edge_type, src, dst, mode=mode, amount=amount, seed=seed, strict=strict)
    b = sample_typed_negatives(gpu, edge_type, src.cuda(), dst.cuda(), mode=mode, amount=amount, seed=seed,
                               strict=strict)
    assert b.src.is_cuda and torch.equal(a.src, b.src.cpu()) and torch.equal(a.dst, b.dst.cpu())
    assert int(a.unresolved) == int(b.unresolved)
    c = sample_typed_negatives(gpu, edge_type, src, dst, mode=mode, amount=amount, seed=seed, strict=strict)
    assert not c.src.is_cuda and torch.equal(a.dst, c.dst), "CPU positives: the result comes back to the CPU"


@pytest.mark.parametrize("neg", ["binary", "triplet"])
def test_pyg_link_neighbor_loader_over_gnndirect_stores_cpu(seed, neg):
    """PyG's own LinkNeighborLoader with GnnDirectHeteroSampler.sample_from_edges: every batch's
    seeds per type are the distinct endpoints of its labelled pairs, its link fields map back to
    global pairs (positives = the batch's input edges) and its blocks equal our sampler's with
    the key the sampler used."""
    from torch_geometric.loader import LinkNeighborLoader
    from gnndirect_torch.pyg import GnnDirectFeatureStore, GnnDirectGraphStore
    from gnndirect_torch.pyg_hetero import GnnDirectHeteroSampler, put_hetero_data
    data = random_hetero_data(seed)
    fs, gs = GnnDirectFeatureStore(device="cpu"), GnnDirectGraphStore(device="cpu")
    put_hetero_data(data, fs, gs)
    num_neighbors = {e: [3, 2] for e in EDGE_TYPES}
    sampler = GnnDirectHeteroSampler((fs, gs), num_neighbors, seed=seed)
    keys = GnnDirectHeteroSampler(sampler.graph, num_neighbors, seed=seed)
    pairs = data[WRITES].edge_index
    loader = LinkNeighborLoader((fs, gs), num_neighbors, edge_label_index=(WRITES, pairs), neg_sampling=neg,
                                batch_size=10, neighbor_sampler=sampler)
    batches = 0
    for batch in loader:
        key = keys._next_seed()
        ids = batch[WRITES].input_id
        pos = pairs[:, ids]
        a = batch["author"].n_id
        p = batch["paper"].n_id
        if neg == "binary":
            index = batch[WRITES].edge_label_index
            label = batch[WRITES].edge_label
            assert torch.equal(a[index[0, :ids.numel()]], pos[0]) and torch.equal(p[index[1, :ids.numel()]], pos[1])
            assert label.tolist() == [1.0] * ids.numel() + [0.0] * ids.numel()
            src_ends, dst_ends = a[index[0]], p[index[1]]
        else:
            assert torch.equal(a[batch["author"].src_index], pos[0])
            assert torch.equal(p[batch["paper"].dst_pos_index], pos[1])
            src_ends = pos[0]
            dst_ends = torch.cat([pos[1], p[batch["paper"].dst_neg_index.view(-1)]])
        seeds = {"author": src_ends.unique(), "paper": dst_ends.unique()}
        own = sample_typed_blocks(sampler.graph, seeds, num_neighbors, seed=key)
        node, row, col, edge, nodes, edges = own.to_pyg()
        for t in NODE_COUNTS:
            assert torch.equal(batch[t].n_id, node[t]), t
            assert torch.equal(batch[t].x, data[t].x[node[t]]), t
        for e in EDGE_TYPES:
            assert torch.equal(batch[e].edge_index, torch.stack([row[e], col[e]])), e
        batches += 1
    assert batches == -(-pairs.size(1) // 10)


def test_opcheck_sample_typed_blocks_multi_cpu(seed):
    """Schema, fake kernel and dispatch of the multi-type op on CPU tensors."""
    from gnndirect_torch.hetero import _load
    data = random_hetero_data(seed)
    graph = cpu_graph(data)
    _load()
    src_types, dst_types, counts = graph._types()
    seeds = [torch.randint(0, n, (4,)) if t in ("paper", "author") else torch.empty(0, dtype=torch.int64)
             for t, n in graph.num_nodes.items()]
    fanouts = [f for _ in graph.edge_types for f in (3, 2)]
    torch.library.opcheck(torch.ops.gnndirect.sample_typed_blocks_multi.default,
                          ([graph.graphs[e].indptr for e in graph.edge_types],
                           [graph.graphs[e].indices for e in graph.edge_types], src_types, dst_types, counts, seeds,
                           fanouts, graph.max_degrees, seed, False, True, 1))
