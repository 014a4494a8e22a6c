"""Typed (heterogeneous) graphs: gnndirect_torch.hetero and the PyG adapter pyg_hetero.

CPU (device="cpu", the host reference): an independent pure-Python reference of the documented
semantics (docs/heterogeneous.md "Semantics") gives the whole result exactly where no random
numbers enter (fanout -1 and fanouts >= every degree, without replacement), and recomputes the
node lists and local ids from the sampled global ids for random fanouts (plus the sampling
invariants). GPU: CUDA equals the CPU op bit for bit over placements and dtypes, and PyG's
NeighborLoader over gnndirect's stores gives the blocks of our own sampler.
"""

import pytest
import torch

import gnndirect_torch as gd
from gnndirect_torch.hetero import HeteroGraph, sample_typed_blocks

from conftest import cuda, poison_cuda_cache

tg = pytest.importorskip("torch_geometric")
from torch_geometric.data import HeteroData  # noqa: E402

from gnndirect_torch.pyg import GnnDirectFeatureStore, GnnDirectGraphStore  # noqa: E402
from gnndirect_torch.pyg_hetero import (GnnDirectHeteroSampler, check_feature_store,  # noqa: E402
                                        hetero_graph_of, put_hetero_data)

NODE_COUNTS = {"paper": 60, "author": 45, "institution": 7, "field": 1}
EDGE_TYPES = [("paper", "cites", "paper"), ("author", "writes", "paper"), ("paper", "rev_writes", "author"),
              ("institution", "employs", "author"), ("author", "rev_employs", "institution")]


def random_relation(num_src, num_dst, max_degree, generator, sort=True):
    """A random [2, E] edge_index (row = src, col = dst) without repeated (src, dst) pairs, some
    dst nodes without edges; sorted by dst when `sort`."""
    rows, cols = [], []
    for v in range(num_dst):
        d = int(torch.randint(0, max_degree + 1, (1,), generator=generator)) if v % 7 else 0
        picks = torch.randperm(num_src, generator=generator)[:d]
        rows.append(picks)
        cols.append(torch.full((picks.numel(),), v, dtype=torch.int64))
    edge_index = torch.stack([torch.cat(rows), torch.cat(cols)])
    if not sort:
        edge_index = edge_index[:, torch.randperm(edge_index.shape[1], generator=generator)]
    return edge_index


def random_hetero_data(seed, max_degree=6, sort=True, features=8):
    g = torch.Generator().manual_seed(seed)
    data = HeteroData()
    for t, n in NODE_COUNTS.items():
        data[t].num_nodes = n
        data[t].x = torch.randn(n, features, generator=g)
    data["paper"].y = torch.randint(0, 3, (NODE_COUNTS["paper"],), generator=g)
    for e in EDGE_TYPES:
        data[e].edge_index = random_relation(NODE_COUNTS[e[0]], NODE_COUNTS[e[2]], max_degree, g, sort)
    return data


def csc_lists(graph):
    """{edge_type: (indptr list, indices list)} of a HeteroGraph (CPU copies)."""
    return {e: (graph.graphs[e].indptr.cpu().tolist(), graph.graphs[e].indices.cpu().tolist())
            for e in graph.edge_types}


def reference_typed(graph, seed_type, seeds, fanouts, draw):
    """The documented semantics in plain Python. `draw(l, e, v, begin, end)` returns the sampled
    CSC positions (absolute) of dst node v's list [begin, end) for edge type e at layer l.
    Returns (nodes {type: list}, counts {type: list}, layers [{e: (offsets, local, edge_ids)}])."""
    return reference_typed_seeds(graph, {seed_type: seeds}, len(fanouts[0]), draw)


def reference_typed_seeds(graph, seeds, num_layers, draw):
    """reference_typed from seeds of several types ({type: list}: each type's list starts with
    its own seeds, repeats as separate rows mapping to the first one's local id)."""
    csc = csc_lists(graph)
    nodes = {t: [] for t in graph.node_types}
    local = {t: {} for t in graph.node_types}
    for t in graph.node_types:
        for s in seeds.get(t, []):
            local[t].setdefault(s, len(nodes[t]))
            nodes[t].append(s)
    counts = {t: [len(nodes[t])] for t in graph.node_types}
    begin = {t: 0 for t in graph.node_types}
    layers = []
    for l in range(num_layers):
        frontier = {t: list(nodes[t][begin[t]:]) for t in graph.node_types}
        blocks = {}
        for r, e in enumerate(graph.edge_types):
            indptr, indices = csc[e]
            offsets, ids, edge_ids = [0], [], []
            for v in frontier[e[2]]:
                for p in draw(l, e, v, indptr[v], indptr[v + 1]):
                    u = indices[p]
                    if u not in local[e[0]]:
                        local[e[0]][u] = len(nodes[e[0]])
                        nodes[e[0]].append(u)
                    ids.append(local[e[0]][u])
                    edge_ids.append(p)
                offsets.append(len(ids))
            blocks[e] = (offsets, ids, edge_ids)
        for t in graph.node_types:
            begin[t] = counts[t][-1]
            counts[t].append(len(nodes[t]))
        layers.append(blocks)
    return nodes, counts, layers


def as_lists(blocks):
    nodes = {t: n.cpu().tolist() for t, n in blocks.nodes.items()}
    layers = [{e: (b.offsets.cpu().tolist(), b.indices.cpu().tolist(), b.edge_ids.cpu().tolist())
               for e, b in layer.items()} for layer in blocks.layers]
    return nodes, blocks.counts, layers


def cpu_graph(data, index_dtype=torch.int64):
    graph = HeteroGraph.from_hetero_data(data, device="cpu")
    if index_dtype == torch.int64:
        return graph
    return HeteroGraph({e: (graph.graphs[e].indptr, graph.graphs[e].indices.to(index_dtype))
                        for e in graph.edge_types}, graph.num_nodes, device="cpu",
                       edge_permutation=graph.edge_permutation)


def random_seeds(count, n, generator):
    seeds = torch.randperm(n, generator=generator)[:count]
    seeds[-1] = seeds[0]  # one repeated seed: its own row, the first one's local id
    return seeds


@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
@pytest.mark.parametrize("sort", [True, False])
def test_all_neighbours_equal_the_python_reference(seed, index_dtype, sort):
    data = random_hetero_data(seed, sort=sort)
    graph = cpu_graph(data, index_dtype)
    g = torch.Generator().manual_seed(seed + 1)
    seeds = random_seeds(9, NODE_COUNTS["paper"], g)
    # -1 everywhere but one edge type at 0 in layer 1 and one with a fanout above every degree
    num_neighbors = {e: [-1, -1, -1] for e in EDGE_TYPES}
    num_neighbors[("institution", "employs", "author")] = [-1, 0, 50]
    num_neighbors[("paper", "cites", "paper")] = [100, -1, -1]
    fanouts = graph.fanouts(num_neighbors)
    blocks = sample_typed_blocks(graph, "paper", seeds.to(index_dtype), num_neighbors, seed=seed)

    def take_all(l, e, v, begin, end):
        return [] if fanouts[graph.edge_types.index(e)][l] == 0 else list(range(begin, end))

    expected = reference_typed(graph, "paper", seeds.tolist(), fanouts, take_all)
    assert as_lists(blocks) == expected
    for t, n in blocks.nodes.items():
        assert n.dtype == index_dtype, t
    # edge ids map back to the edge_index the graph was built from
    for layer in blocks.layers:
        for e, b in layer.items():
            perm = graph.edge_permutation[e]
            assert (perm is None) == sort
            original = b.edge_ids if perm is None else perm.cpu()[b.edge_ids.cpu()]
            src = blocks.nodes[e[0]][b.indices.long()]
            dst = blocks.nodes[e[2]][b.edge_index()[1]]
            assert torch.equal(data[e].edge_index[0][original], src.long())
            assert torch.equal(data[e].edge_index[1][original], dst.long())


@pytest.mark.parametrize("replace", [False, True])
def test_random_fanouts_keep_the_semantics(seed, replace):
    data = random_hetero_data(seed, max_degree=9)
    graph = cpu_graph(data)
    g = torch.Generator().manual_seed(seed + 2)
    seeds = random_seeds(12, NODE_COUNTS["paper"], g)
    num_neighbors = {("paper", "cites", "paper"): [3, 2], ("author", "writes", "paper"): [2, 4],
                     "rev_writes": [4, 1], "employs": [1, 2]}
    blocks = sample_typed_blocks(graph, "paper", seeds, num_neighbors, default=[2, 2], seed=seed, replace=replace)
    fanouts = graph.fanouts(num_neighbors, default=[2, 2])
    csc = csc_lists(graph)
    # Replay the op's own draws through the Python relabelling: node lists and local ids must
    # follow from the sampled global ids alone.
    drawn = {(l, e): b.edge_ids.tolist() for l, layer in enumerate(blocks.layers) for e, b in layer.items()}
    cursor = {}

    def replay(l, e, v, begin, end):
        b = blocks.layers[l][e]
        row = cursor.get((l, e), 0)
        cursor[(l, e)] = row + 1
        positions = drawn[(l, e)][int(b.offsets[row]):int(b.offsets[row + 1])]
        indptr = csc[e][0]
        assert all(indptr[v] <= p < indptr[v + 1] for p in positions), (l, e, v)
        degree = indptr[v + 1] - indptr[v]
        fanout = fanouts[graph.edge_types.index(e)][l]
        assert len(positions) == (fanout if replace and degree > 0 else min(fanout, degree))
        if not replace:
            assert len(set(positions)) == len(positions)
        return positions

    expected = reference_typed(graph, "paper", seeds.tolist(), fanouts, replay)
    assert as_lists(blocks) == expected
    for t, n in blocks.nodes.items():
        assert len(set(n.tolist())) == n.numel() - (1 if t == "paper" else 0), t  # the one repeated seed
    # reproducible, and the key matters
    again = sample_typed_blocks(graph, "paper", seeds, num_neighbors, default=[2, 2], seed=seed, replace=replace)
    assert as_lists(again) == as_lists(blocks)
    other = sample_typed_blocks(graph, "paper", seeds, num_neighbors, default=[2, 2], seed=seed + 1, replace=replace)
    assert as_lists(other) != as_lists(blocks)


def test_pyg_output_layout(seed):
    data = random_hetero_data(seed)
    graph = cpu_graph(data)
    seeds = torch.arange(5)
    blocks = sample_typed_blocks(graph, "paper", seeds, [-1, 2], seed=seed)
    node, row, col, edge, nodes, edges = blocks.to_pyg()
    assert node["paper"][:5].tolist() == list(range(5))
    for t in graph.node_types:
        assert sum(nodes[t]) == node[t].numel()
        assert len(nodes[t]) == 3
    assert nodes["author"][0] == 0
    for e in graph.edge_types:
        assert edges[e] == [blocks.layers[0][e].num_edges, blocks.layers[1][e].num_edges]
        assert row[e].numel() == col[e].numel() == edge[e].numel() == sum(edges[e])
        if row[e].numel():
            assert int(row[e].max()) < node[e[0]].numel() and int(col[e].max()) < node[e[2]].numel()
        # layer 0 rows are the seeds (for the seed type), layer 1 rows the nodes new at layer 0
        b0, b1 = blocks.layers[0][e], blocks.layers[1][e]
        assert b0.dst_begin == 0 and b0.num_dst == (5 if e[2] == "paper" else 0)
        assert b1.dst_begin == blocks.counts[e[2]][0] and b1.num_dst == nodes[e[2]][1]


def test_no_seeds_give_empty_blocks(seed):
    graph = cpu_graph(random_hetero_data(seed))
    blocks = sample_typed_blocks(graph, "author", torch.empty(0, dtype=torch.int64), [-1, 3], seed=seed)
    assert all(n.numel() == 0 for n in blocks.nodes.values())
    assert all(c == [0, 0, 0] for c in blocks.counts.values())
    for layer in blocks.layers:
        for b in layer.values():
            assert b.num_dst == 0 and b.offsets.tolist() == [0] and b.num_edges == 0


def test_bad_input_names_what_is_wrong(seed):
    data = random_hetero_data(seed)
    graph = cpu_graph(data)
    seeds = torch.arange(4)
    with pytest.raises(ValueError, match="unknown node type 'venue'"):
        sample_typed_blocks(graph, "venue", seeds, [2])
    with pytest.raises(ValueError, match=r"names edge type \('paper', 'cites', 'author'\), which the graph"):
        sample_typed_blocks(graph, "paper", seeds, {("paper", "cites", "author"): [2]}, default=[1])
    with pytest.raises(ValueError, match=r"no fanouts for edge type \('author', 'writes', 'paper'\)"):
        sample_typed_blocks(graph, "paper", seeds, {("paper", "cites", "paper"): [2]})
    with pytest.raises(ValueError, match="same number of layers"):
        sample_typed_blocks(graph, "paper", seeds, {"cites": [2, 2]}, default=[1])
    with pytest.raises(ValueError, match="fanout -2"):
        sample_typed_blocks(graph, "paper", seeds, [-2])
    with pytest.raises(TypeError, match="bool"):
        sample_typed_blocks(graph, "paper", seeds, [True])
    with pytest.raises(TypeError, match="integer tensor"):
        sample_typed_blocks(graph, "paper", seeds.float(), [2])
    # ids outside their own type's range: author ids are fine for authors, not for papers
    with pytest.raises(IndexError, match="seeds \\(node type 'paper'\\)"):
        sample_typed_blocks(graph, "paper", torch.tensor([0, NODE_COUNTS["paper"]]), [2])
    sample_typed_blocks(graph, "author", torch.tensor([NODE_COUNTS["author"] - 1]), [2])
    with pytest.raises(IndexError, match="seeds \\(node type 'institution'\\)"):
        sample_typed_blocks(graph, "institution", torch.tensor([NODE_COUNTS["institution"]]), [2])
    # a relation whose dst count disagrees with its type
    relations = {e: (graph.graphs[e].indptr, graph.graphs[e].indices) for e in graph.edge_types}
    counts = dict(NODE_COUNTS, paper=NODE_COUNTS["paper"] + 1)
    with pytest.raises(ValueError, match=r"edge type \('paper', 'cites', 'paper'\).*dst node type 'paper' has 61"):
        HeteroGraph(relations, counts, device="cpu")
    # neighbour ids outside their src type (but inside the dst type's range)
    counts = dict(NODE_COUNTS)
    bad = dict(relations)
    indptr, indices = relations[("institution", "employs", "author")]
    indices = indices.clone()
    indices[0] = NODE_COUNTS["institution"] + 3
    bad[("institution", "employs", "author")] = (indptr, indices)
    with pytest.raises(ValueError, match=r"edge type \('institution', 'employs', 'author'\)"):
        HeteroGraph(bad, counts, device="cpu")
    truncated = dict(relations)
    truncated[("author", "writes", "paper")] = (relations[("author", "writes", "paper")][0],
                                                relations[("author", "writes", "paper")][1][:-1])
    with pytest.raises(ValueError, match=r"corrupt CSR graph: edge type \('author', 'writes', 'paper'\)"):
        HeteroGraph(truncated, counts, device="cpu")
    with pytest.raises(ValueError, match="src node type 'venue' is not in num_nodes"):
        HeteroGraph({("venue", "has", "paper"): relations[("paper", "cites", "paper")]}, counts, device="cpu")
    with pytest.raises(ValueError, match="unknown edge type"):
        graph.edge_type(("paper", "writes", "author"))
    with pytest.raises(TypeError, match="same dtypes"):
        mixed = dict(relations)
        mixed[("paper", "cites", "paper")] = (relations[("paper", "cites", "paper")][0],
                                              relations[("paper", "cites", "paper")][1].int())
        HeteroGraph(mixed, counts, device="cpu")
    # tables whose rows do not match their node type
    graph.check_tables({"paper": data["paper"].x, "author": data["author"].x})
    with pytest.raises(ValueError, match="node type 'author' has 44 rows, the type has 45"):
        graph.check_tables({"author": data["author"].x[:44]})
    with pytest.raises(ValueError, match="unknown node type 'venue'"):
        graph.check_tables({"venue": data["author"].x})


def test_opcheck_cpu_op(seed):
    data = random_hetero_data(seed)
    graph = cpu_graph(data)
    sample_typed_blocks(graph, "paper", torch.arange(3), [1])  # loads the op and its fake kernel
    src, dst, counts = graph._types()
    fanouts = [f for fs in graph.fanouts({e: [3, -1] for e in EDGE_TYPES}) for f in fs]
    torch.library.opcheck(torch.ops.gnndirect.sample_typed_blocks.default,
                          ([graph.graphs[e].indptr for e in graph.edge_types],
                           [graph.graphs[e].indices for e in graph.edge_types], src, dst, counts, 0,
                           torch.randint(0, NODE_COUNTS["paper"], (10,)), fanouts, graph.max_degrees, seed, False,
                           True, 1))


def cpu_stores(data):
    fs, gs = GnnDirectFeatureStore(device="cpu"), GnnDirectGraphStore(device="cpu")
    put_hetero_data(data, fs, gs)
    return fs, gs


def test_stores_check_their_tables(seed):
    data = random_hetero_data(seed, sort=False)
    fs, gs = cpu_stores(data)
    graph = hetero_graph_of(gs)  # 'field' has no edges: not a node type of the graph store's graph
    assert graph.num_nodes == {t: n for t, n in NODE_COUNTS.items() if t != "field"}
    assert graph.edge_types == EDGE_TYPES
    with pytest.raises(ValueError, match="group 'field', which is no node type"):
        check_feature_store(graph, fs)
    sampler = GnnDirectHeteroSampler((fs, gs), [2])  # node types without edges from the feature store
    assert sampler.graph.num_nodes == NODE_COUNTS
    fs.put_tensor(torch.randn(NODE_COUNTS["author"] + 1, 4), group_name="author", attr_name="z", index=None)
    with pytest.raises(ValueError, match="'z' of node type 'author' has 46 rows, the type has 45"):
        GnnDirectHeteroSampler((fs, gs), [2])
    fs.remove_tensor(group_name="author", attr_name="z", index=None)
    gs.put_edge_index(data[EDGE_TYPES[1]].edge_index, edge_type=("author", "cites", "paper"), layout="coo",
                      size=(NODE_COUNTS["author"] + 2, NODE_COUNTS["paper"]))
    with pytest.raises(ValueError, match="node type 'author' has 45 nodes by edge type .* but 47 by edge type"):
        GnnDirectHeteroSampler((fs, gs), [2])


def loader_over_stores(data, num_neighbors, batch_size, seed, device="cpu"):
    from torch_geometric.loader import NeighborLoader
    fs = GnnDirectFeatureStore(device=device)
    gs = GnnDirectGraphStore(device=device)
    put_hetero_data(data, fs, gs)
    sampler = GnnDirectHeteroSampler((fs, gs), num_neighbors, seed=seed)
    train = torch.arange(NODE_COUNTS["paper"])
    loader = NeighborLoader((fs, gs), num_neighbors, input_nodes=("paper", train), batch_size=batch_size,
                            neighbor_sampler=sampler)
    return loader, sampler


def check_loader_batches(data, loader, sampler, num_neighbors, seed):
    """Every batch equals our own sampler's blocks with the key the sampler used."""
    keys = GnnDirectHeteroSampler(sampler.graph, num_neighbors, seed=seed)
    batches = 0
    for batch in loader:
        seeds = batch["paper"].n_id[:batch["paper"].batch_size]
        own = sample_typed_blocks(sampler.graph, "paper", seeds.to(sampler.graph.device), num_neighbors,
                                  seed=keys._next_seed())
        node, row, col, edge, nodes, edges = own.to_pyg()
        for t in NODE_COUNTS:
            assert torch.equal(batch[t].n_id.cpu(), node[t].cpu()), t
            assert batch[t].num_sampled_nodes == nodes[t]
            assert torch.equal(batch[t].x.cpu(), data[t].x[node[t].cpu()]), t
        assert torch.equal(batch["paper"].y.cpu(), data["paper"].y[node["paper"].cpu()])
        for e in EDGE_TYPES:
            assert torch.equal(batch[e].edge_index.cpu(), torch.stack([row[e], col[e]]).cpu()), e
            assert batch[e].num_sampled_edges == edges[e]
            perm = sampler.graph.edge_permutation[e]
            expected = edge[e].cpu() if perm is None else perm.cpu()[edge[e].cpu()]
            assert torch.equal(batch[e].e_id.cpu(), expected), e
        batches += 1
    assert batches == (NODE_COUNTS["paper"] + 15) // 16


@pytest.mark.parametrize("sort", [True, False])
def test_pyg_neighbor_loader_over_gnndirect_stores_cpu(seed, sort):
    data = random_hetero_data(seed, sort=sort)
    num_neighbors = {e: [3, 2] for e in EDGE_TYPES}
    num_neighbors[("paper", "cites", "paper")] = [-1, 4]
    loader, sampler = loader_over_stores(data, num_neighbors, 16, seed)
    check_loader_batches(data, loader, sampler, num_neighbors, seed)


def train_step(loader, device):
    from torch_geometric.nn import SAGEConv, to_hetero

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = SAGEConv((-1, -1), 16)
            self.conv2 = SAGEConv((-1, -1), 3)

        def forward(self, x, edge_index):
            return self.conv2(self.conv1(x, edge_index).relu(), edge_index)

    types = [t for t in NODE_COUNTS if t != "field"]  # 'field' has no edges: no messages to update it
    batch = next(iter(loader)).to(device)
    model = to_hetero(Net(), (types, EDGE_TYPES), aggr="sum").to(device)
    with torch.no_grad():
        model({t: batch[t].x for t in types}, batch.edge_index_dict)  # initialises the lazy layers
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    before = [p.detach().clone() for p in model.parameters()]
    losses = []
    for batch in loader:
        batch = batch.to(device)
        size = batch["paper"].batch_size
        assert batch["paper"].x.device.type == torch.device(device).type
        out = model({t: batch[t].x for t in types}, batch.edge_index_dict)["paper"][:size]
        loss = torch.nn.functional.cross_entropy(out, batch["paper"].y[:size])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert len(losses) > 0 and all(abs(l) < float("inf") for l in losses)  # finite (NaN fails too)
    assert any(not torch.equal(a, p.detach()) for a, p in zip(before, model.parameters()))
    return losses


def test_to_hetero_sage_training_step_cpu(seed):
    data = random_hetero_data(seed)
    loader, _ = loader_over_stores(data, {e: [4, 2] for e in EDGE_TYPES}, 16, seed)
    train_step(loader, "cpu")


# --- GPU -------------------------------------------------------------------------------------


def cuda_graph(cpu, placement, index_dtype):
    return HeteroGraph({e: (cpu.graphs[e].indptr, cpu.graphs[e].indices.to(index_dtype)) for e in cpu.edge_types},
                       cpu.num_nodes, placement=placement, device="cuda")


@cuda
@pytest.mark.parametrize("placement", ["registered", "pinned", "managed_host", "device"])
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
@pytest.mark.parametrize("replace", [False, True])
def test_cuda_equals_cpu_bit_for_bit(seed, placement, index_dtype, replace):
    data = random_hetero_data(seed, max_degree=12)
    cpu = cpu_graph(data, index_dtype)
    gpu = cuda_graph(cpu, placement, index_dtype)
    g = torch.Generator().manual_seed(seed + 3)
    seeds = random_seeds(40, NODE_COUNTS["paper"], g).to(index_dtype)
    num_neighbors = {e: [5, 3, 2] for e in EDGE_TYPES}
    num_neighbors[("author", "rev_employs", "institution")] = [-1, 0, -1]
    poison_cuda_cache()
    expected = sample_typed_blocks(cpu, "paper", seeds, num_neighbors, seed=seed, replace=replace)
    got = sample_typed_blocks(gpu, "paper", seeds.cuda(), num_neighbors, seed=seed, replace=replace)
    for t in NODE_COUNTS:
        assert got.nodes[t].is_cuda
    assert as_lists(got) == as_lists(expected)


@cuda
def test_cuda_mixed_placements_and_bad_seeds(seed):
    data = random_hetero_data(seed)
    cpu = cpu_graph(data)
    relations = {}
    for i, e in enumerate(cpu.edge_types):  # every other relation's lists in host memory
        relations[e] = gd.Graph(cpu.graphs[e].indptr, cpu.graphs[e].indices, validate=False,
                                placement="pinned" if i % 2 else "device")
    gpu = HeteroGraph(relations, cpu.num_nodes)
    seeds = torch.arange(8)
    expected = sample_typed_blocks(cpu, "paper", seeds, [4, 3], seed=seed)
    assert as_lists(sample_typed_blocks(gpu, "paper", seeds.cuda(), [4, 3], seed=seed)) == as_lists(expected)
    none = torch.empty(0, dtype=torch.int64)
    assert as_lists(sample_typed_blocks(gpu, "author", none.cuda(), [-1, 2], seed=seed)) == \
        as_lists(sample_typed_blocks(cpu, "author", none, [-1, 2], seed=seed))
    with pytest.raises(IndexError, match="seeds \\(node type 'paper'\\)"):
        sample_typed_blocks(gpu, "paper", torch.tensor([0, NODE_COUNTS["paper"] + 5], device="cuda"), [2])
    torch.cuda.synchronize()
    assert float((torch.ones(4, device="cuda") * 2).sum()) == 8.0  # the context stays usable


@cuda
@pytest.mark.parametrize("sort", [True, False])
def test_pyg_neighbor_loader_over_gnndirect_stores_gpu(seed, sort):
    data = random_hetero_data(seed, sort=sort)
    num_neighbors = {e: [3, 2] for e in EDGE_TYPES}
    num_neighbors[("paper", "cites", "paper")] = [-1, 4]
    loader, sampler = loader_over_stores(data, num_neighbors, 16, seed, device="cuda")
    check_loader_batches(data, loader, sampler, num_neighbors, seed)


@cuda
def test_to_hetero_sage_training_step_gpu(seed):
    data = random_hetero_data(seed)
    loader, _ = loader_over_stores(data, {e: [4, 2] for e in EDGE_TYPES}, 16, seed, device="cuda")
    train_step(loader, "cuda")

