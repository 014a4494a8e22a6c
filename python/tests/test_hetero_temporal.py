"""Temporal sampling through typed graphs (gnndirect_torch.hetero_temporal and the temporal
GnnDirectHeteroSampler): the CPU op against a Python reference written from the documented
semantics, against the untimed typed sampler where every time is eligible, the CUDA op against the
CPU op bit for bit (times in every placement), PyG's NeighborLoader with time_attr over our
stores, and the bad-input errors."""

import pytest
import torch

import gnndirect_torch as gd
from gnndirect_torch.hetero import HeteroGraph, sample_typed_blocks
from gnndirect_torch.hetero_temporal import relation_times, sample_typed_temporal_blocks

from conftest import HOST_PLACEMENTS, context_usable, cuda, poison_cuda_cache
from test_hetero import EDGE_TYPES, NODE_COUNTS, as_lists, cpu_graph, csc_lists, random_hetero_data
from test_link import M32, M64, below, philox, sampler_key

pytestmark = pytest.mark.usefixtures("_extension")

MAX_TIME = 40


def random_times(data, seed):
    """Node times per type and edge times per edge type (stored edge_index order), in a small
    range so that ties occur and about half the neighbours are eligible at a mid query time."""
    g = torch.Generator().manual_seed(seed + 7)
    node = {t: torch.randint(0, MAX_TIME, (n,), generator=g) for t, n in NODE_COUNTS.items()}
    edge = {e: torch.randint(0, MAX_TIME, (data[e].edge_index.shape[1],), generator=g) for e in EDGE_TYPES}
    return node, edge


def reference_typed_temporal(graph, seeds, seed_times, fanouts, times, node_form, last, seed):
    """Typed temporal blocks from the definitions (algorithms/sample_typed_temporal_blocks_async.cuh,
    device/temporal_samplers.hpp) in plain Python: per layer, relation (schema order), row; the
    eligible neighbours (time <= the row's time), the `last` (time descending, later position
    first) or Floyd's uniform draws over the eligible ranks with Philox counter (j, l + 65536 r,
    v lo, v hi); a node new at layer l gets the minimum time of the rows that sampled it.
    `times[r]`: relation r's edge times (CSC order) or its src type's node times (lists)."""
    csc = csc_lists(graph)
    key = (seed & M32, (seed & M64) >> 32)
    nodes = {t: [] for t in graph.node_types}
    when = {t: [] for t in graph.node_types}
    local = {t: {} for t in graph.node_types}
    for t in graph.node_types:
        for s, w in zip(seeds.get(t, []), seed_times.get(t, [])):
            local[t].setdefault(s, len(nodes[t]))
            nodes[t].append(s)
            when[t].append(w)
    counts = {t: [len(nodes[t])] for t in graph.node_types}
    begin = {t: 0 for t in graph.node_types}
    layers = []
    for l in range(len(fanouts[0])):
        rows = {t: (nodes[t][begin[t]:], when[t][begin[t]:]) for t in graph.node_types}
        blocks = {}
        for r, e in enumerate(graph.edge_types):
            indptr, indices = csc[e]
            fanout = fanouts[r][l]
            if fanout == -1:
                fanout = graph.max_degrees[r]
            offsets, ids, edge_ids = [0], [], []
            for v, limit in zip(*rows[e[2]]):
                first = indptr[v]
                t_of = (lambda p: times[r][indices[first + p]]) if node_form else (lambda p: times[r][first + p])
                ok = [p for p in range(indptr[v + 1] - first) if t_of(p) <= limit]
                if len(ok) <= fanout:
                    picked = ok
                elif last:
                    picked = sorted(ok, key=lambda p: (t_of(p), p), reverse=True)[:fanout]
                else:
                    n, ranks = len(ok), []
                    for j in range(fanout):
                        b = philox((j, l + 65536 * r, v & M32, v >> 32), key)
                        c = below(b[1] << 32 | b[0], n - fanout + j + 1)
                        ranks.append(n - fanout + j if c in ranks else c)
                    picked = [ok[i] for i in ranks]
                for p in sorted(picked):
                    u = indices[first + p]
                    if u not in local[e[0]]:
                        local[e[0]][u] = len(nodes[e[0]])
                        nodes[e[0]].append(u)
                        when[e[0]].append(2**63 - 1)
                    at = local[e[0]][u]
                    when[e[0]][at] = min(when[e[0]][at], limit)
                    ids.append(at)
                    edge_ids.append(first + p)
                offsets.append(len(ids))
            blocks[e] = (offsets, ids, edge_ids)
        for t in graph.node_types:
            begin[t] = counts[t][-1]
            counts[t].append(len(nodes[t]))
        layers.append(blocks)
    return nodes, counts, layers


def seeds_of(seed, count=10):
    g = torch.Generator().manual_seed(seed + 3)
    seeds = {"paper": torch.randperm(NODE_COUNTS["paper"], generator=g)[:count],
             "author": torch.randperm(NODE_COUNTS["author"], generator=g)[:count // 2]}
    seeds["paper"][-1] = seeds["paper"][0]  # a repeated seed: its own row, the first one's local id
    seed_times = {t: torch.randint(MAX_TIME // 4, MAX_TIME, (s.numel(),), generator=g) for t, s in seeds.items()}
    return seeds, seed_times


NUM_NEIGHBORS = {("paper", "cites", "paper"): [3, 2], ("author", "writes", "paper"): [2, -1],
                 ("paper", "rev_writes", "author"): [4, 1], ("institution", "employs", "author"): [1, 2],
                 ("author", "rev_employs", "institution"): [-1, 3]}


@pytest.mark.parametrize("form", ["node", "edge"])
@pytest.mark.parametrize("strategy", ["uniform", "last"])
@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
def test_typed_temporal_equals_the_python_reference(seed, form, strategy, sort, index_dtype):
    data = random_hetero_data(seed, max_degree=9, sort=sort)
    graph = cpu_graph(data, index_dtype)
    node_time, edge_time = random_times(data, seed)
    kw = {"node_time": node_time} if form == "node" else {"edge_time": edge_time}
    seeds, seed_times = seeds_of(seed)
    blocks = sample_typed_temporal_blocks(graph, {t: s.to(index_dtype) for t, s in seeds.items()}, seed_times,
                                          NUM_NEIGHBORS, strategy=strategy, seed=seed, **kw)
    per_relation, got_form = relation_times(graph, **kw)
    assert got_form == form
    # the reference reads edge times in CSC order: permute the stored order independently here
    if form == "edge":
        for r, e in enumerate(graph.edge_types):
            perm = graph.edge_permutation[e]
            assert (perm is None) == sort
            expected = edge_time[e] if perm is None else edge_time[e][perm]
            assert torch.equal(per_relation[r], expected)
    times = [t.tolist() for t in per_relation]
    expected = reference_typed_temporal(graph, {t: s.tolist() for t, s in seeds.items()},
                                        {t: s.tolist() for t, s in seed_times.items()},
                                        graph.fanouts(NUM_NEIGHBORS), times, form == "node", strategy == "last", seed)
    assert as_lists(blocks) == expected
    assert sum(b.num_edges for layer in blocks.layers for b in layer.values()) > 0, "a sample that draws nothing"
    assert blocks.num_seeds == {t: seeds[t].numel() if t in seeds else 0 for t in graph.node_types}


@pytest.mark.parametrize("form", ["node", "edge"])
def test_every_time_eligible_equals_the_untimed_sampler(seed, form):
    """With every time at or before the query times, 'uniform' draws what sample_typed_blocks
    draws (the same Floyd draws): the untimed typed sampler is an independent oracle."""
    data = random_hetero_data(seed, max_degree=9)
    graph = cpu_graph(data)
    node_time, edge_time = random_times(data, seed)
    kw = {"node_time": node_time} if form == "node" else {"edge_time": edge_time}
    seeds, _ = seeds_of(seed)
    late = {t: torch.full((s.numel(),), MAX_TIME) for t, s in seeds.items()}
    timed = sample_typed_temporal_blocks(graph, seeds, late, NUM_NEIGHBORS, seed=seed, **kw)
    plain = sample_typed_blocks(graph, seeds, NUM_NEIGHBORS, seed=seed)
    assert as_lists(timed) == as_lists(plain)
    early = {t: torch.full((s.numel(),), -1) for t, s in seeds.items()}  # nothing eligible
    none = sample_typed_temporal_blocks(graph, seeds, early, NUM_NEIGHBORS, seed=seed, **kw)
    assert all(b.num_edges == 0 for layer in none.layers for b in layer.values())


@cuda
@pytest.mark.parametrize("form", ["node", "edge"])
@pytest.mark.parametrize("strategy", ["uniform", "last"])
@pytest.mark.parametrize("times_placement", ["device"] + HOST_PLACEMENTS)
def test_typed_temporal_cuda_equals_cpu(seed, form, strategy, times_placement):
    data = random_hetero_data(seed, max_degree=12, sort=False)
    cpu = cpu_graph(data)
    gpu = HeteroGraph.from_hetero_data(data, device="cuda", placement="pinned")
    node_time, edge_time = random_times(data, seed)
    keep = []

    def place(t):
        if times_placement == "device":
            return t.cuda()
        placed, owner = gd.to_placement(t, times_placement)
        keep.append(owner)
        return placed

    if form == "node":
        kw_cpu, kw_gpu = {"node_time": node_time}, {"node_time": {t: place(x) for t, x in node_time.items()}}
    else:
        kw_cpu, kw_gpu = {"edge_time": edge_time}, {"edge_time": {e: place(x) for e, x in edge_time.items()}}
    seeds, seed_times = seeds_of(seed, 24)
    poison_cuda_cache()
    a = sample_typed_temporal_blocks(cpu, seeds, seed_times, NUM_NEIGHBORS, strategy=strategy, seed=seed, **kw_cpu)
    b = sample_typed_temporal_blocks(gpu, {t: s.cuda() for t, s in seeds.items()},
                                     {t: s.cuda() for t, s in seed_times.items()}, NUM_NEIGHBORS,
                                     strategy=strategy, seed=seed, **kw_gpu)
    assert as_lists(a) == as_lists(b)
    assert all(n.is_cuda for n in b.nodes.values())
    # a bad seed on the GPU: a clear error naming the type, the context still usable
    bad = {"paper": torch.tensor([0, NODE_COUNTS["paper"]], device="cuda")}
    with pytest.raises(IndexError, match="node type 'paper'"):
        sample_typed_temporal_blocks(gpu, bad, {"paper": torch.zeros(2, dtype=torch.int64, device="cuda")},
                                     NUM_NEIGHBORS, **kw_gpu)
    assert context_usable()


def test_opcheck_typed_temporal(seed):
    data = random_hetero_data(seed)
    graph = cpu_graph(data)
    node_time, _ = random_times(data, seed)
    seeds, seed_times = seeds_of(seed)
    sample_typed_temporal_blocks(graph, seeds, seed_times, [2, 2], node_time=node_time)  # loads the fake kernel
    per_relation, form = relation_times(graph, node_time=node_time)
    src_types, dst_types, counts = graph._types()
    seed_list = [seeds.get(t, torch.empty(0, dtype=torch.int64)) for t in graph.node_types]
    time_list = [seed_times.get(t, torch.empty(0, dtype=torch.int64)) for t in graph.node_types]
    torch.library.opcheck(torch.ops.gnndirect.sample_typed_temporal_blocks.default,
                          ([graph.graphs[e].indptr for e in graph.edge_types],
                           [graph.graphs[e].indices for e in graph.edge_types], src_types, dst_types, counts,
                           seed_list, time_list, [2] * (2 * len(graph.edge_types)), graph.max_degrees,
                           per_relation, form, "last", seed, True))


def test_typed_temporal_bad_input(seed):
    data = random_hetero_data(seed)
    graph = cpu_graph(data)
    node_time, edge_time = random_times(data, seed)
    seeds, seed_times = seeds_of(seed)
    run = lambda **kw: sample_typed_temporal_blocks(graph, kw.pop("s", seeds), kw.pop("w", seed_times),  # noqa: E731
                                                    [2, 2], **({"node_time": node_time} | kw))
    with pytest.raises(ValueError, match="exactly one of node_time and edge_time"):
        run(edge_time=edge_time)
    with pytest.raises(ValueError, match="strategy"):
        run(strategy="first")
    missing = {t: x for t, x in node_time.items() if t != "institution"}
    with pytest.raises(ValueError, match="no times for node type 'institution'"):
        run(node_time=missing)
    with pytest.raises(ValueError, match=r"node_time\['author'\] has 44 entries, expected 45"):
        run(node_time=node_time | {"author": node_time["author"][:-1]})
    with pytest.raises(TypeError, match="int64"):
        run(node_time=node_time | {"paper": node_time["paper"].int()})
    with pytest.raises(ValueError, match="edge_time has no times for edge type"):
        sample_typed_temporal_blocks(graph, seeds, seed_times, [2, 2],
                                     edge_time={e: x for e, x in edge_time.items() if e != EDGE_TYPES[1]})
    with pytest.raises(ValueError, match="one query time per seed"):
        run(w={"paper": seed_times["paper"]})  # the author seeds without times
    with pytest.raises(ValueError, match="seed_times of node type 'paper' has 9 entries for 10 seeds"):
        run(w=seed_times | {"paper": seed_times["paper"][:-1]})
    with pytest.raises(TypeError, match="int64"):
        run(w=seed_times | {"paper": seed_times["paper"].float()})
    with pytest.raises(IndexError, match=r"seeds \(node type 'author'\)"):
        run(s=seeds | {"author": torch.tensor([0, NODE_COUNTS["author"]] + [1] * 3)})
    with pytest.raises(ValueError, match="unknown|no node type|not a node type"):
        run(s=seeds | {"venue": torch.tensor([0])}, w=seed_times | {"venue": torch.tensor([0])})


# --- PyG's NeighborLoader with time_attr over gnndirect's stores -----------------------------

pyg = pytest.importorskip("torch_geometric")
DEVICES = ["cpu", pytest.param("cuda", marks=cuda)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("strategy", ["uniform", "last"])
def test_pyg_temporal_hetero_neighbor_loader(seed, device, strategy):
    """NeighborLoader((fs, gs), time_attr="time", input_time=...) over a HeteroData in the stores:
    each batch equals sample_typed_temporal_blocks with the sampler's key of that batch, and no
    sampled node is later than its batch's latest seed time."""
    from torch_geometric.loader import NeighborLoader
    from gnndirect_torch.pyg import GnnDirectFeatureStore, GnnDirectGraphStore
    from gnndirect_torch.pyg_hetero import GnnDirectHeteroSampler, put_hetero_data
    data = random_hetero_data(seed, max_degree=9, sort=False)
    node_time, _ = random_times(data, seed)
    for t in NODE_COUNTS:
        data[t].time = node_time[t]
    fs, gs = GnnDirectFeatureStore(device=device), GnnDirectGraphStore(device=device)
    put_hetero_data(data, fs, gs, attrs=("x", "y", "time"))
    sampler = GnnDirectHeteroSampler((fs, gs), NUM_NEIGHBORS, seed=seed, time_attr="time",
                                     temporal_strategy=strategy)
    g = torch.Generator().manual_seed(seed + 5)
    train = torch.randperm(NODE_COUNTS["paper"], generator=g)[:40]
    input_time = torch.randint(MAX_TIME // 4, MAX_TIME, (40,), generator=g)
    loader = NeighborLoader((fs, gs), NUM_NEIGHBORS, input_nodes=("paper", train), input_time=input_time,
                            time_attr="time", batch_size=16, neighbor_sampler=sampler)
    cpu = cpu_graph(data)
    batches = 0
    for b, batch in enumerate(loader):
        seeds, times = train[16 * b:16 * (b + 1)], input_time[16 * b:16 * (b + 1)]
        assert torch.equal(batch["paper"].n_id[:batch["paper"].batch_size].cpu(), seeds)
        own = sample_typed_temporal_blocks(cpu, {"paper": seeds}, {"paper": times}, NUM_NEIGHBORS,
                                           node_time=node_time, strategy=strategy, seed=sampler_key(seed, b))
        for t in NODE_COUNTS:
            n_id = batch[t].n_id.cpu()
            assert torch.equal(n_id, own.nodes[t].long()), t
            assert torch.equal(batch[t].x.cpu(), data[t].x[n_id]), t
            later = n_id[batch["paper"].batch_size:] if t == "paper" else n_id
            assert later.numel() == 0 or int(node_time[t][later].max()) <= int(times.max()), t
        batches += 1
    assert batches == 3
    with pytest.raises(ValueError, match="temporal link sampling"):
        from torch_geometric.sampler import EdgeSamplerInput
        e = EDGE_TYPES[1]
        sampler.sample_from_edges(EdgeSamplerInput(torch.arange(2), data[e].edge_index[0, :2],
                                                   data[e].edge_index[1, :2], input_type=e))
