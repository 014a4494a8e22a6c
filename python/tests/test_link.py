"""Link prediction and temporal sampling: sample_negatives and sample_temporal_blocks against
independent pure-Python references (Philox4x32-10 written here from the paper's definition), the
CUDA ops against the CPU ops bit for bit, gd.LinkNeighborLoader's batches, and PyG's
LinkNeighborLoader / temporal NeighborLoader over gnndirect's stores and sampler."""

import math

import pytest
import torch

import gnndirect_torch as gd
from gnndirect_torch.link import out_neighbour_csr, seed_edge_ids
from conftest import INDEX_DTYPES, cuda, random_csr

pytestmark = pytest.mark.usefixtures("_extension")

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


# --- independent references ---------------------------------------------------------------

def philox(counter, key):
    """Philox4x32-10 (Salmon et al., SC 2011) of 4 counter words under 2 key words."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for r in range(10):
        if r:
            k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
        p0, p1 = 0xD2511F53 * c0, 0xCD9E8D57 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & M32, (p0 >> 32) ^ c3 ^ k1, p0 & M32
    return c0, c1, c2, c3


def test_philox_known_answer():
    # Random123's kat_vectors for philox4x32_10: zero counter and key; all ones.
    assert philox((0, 0, 0, 0), (0, 0)) == (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)
    assert philox((M32,) * 4, (M32, M32)) == (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)


def below(bits, n):
    """Lemire's multiply-high of 64 random bits to [0, n)."""
    return (bits * n) >> 64


def ref_negatives(out_csr, src, dst, mode, amount, seed, batch=0, strict=False, max_attempts=8, num_dst=None):
    """PyG's 'binary'/'triplet' negatives with the library's documented draws
    (algorithms/negative_sampling.hpp): negative k's attempt a is Philox of {k lo, k hi,
    batch lo, a} keyed by the seed; words 0-1 the source in [0, rows), 2-3 the destination in
    [0, num_dst) (None: [0, rows); a typed relation's out-CSR otherwise)."""
    indptr, indices = out_csr
    n = indptr.numel() - 1
    m = n if num_dst is None else num_dst
    edges = {(u, int(v)) for u in range(n) for v in indices[int(indptr[u]):int(indptr[u + 1])].tolist()}
    num_pos = len(src)
    count = math.ceil(amount * num_pos) if mode == "binary" else int(amount) * num_pos
    key = (seed & M32, (seed & M64) >> 32)
    out, unresolved = [], 0
    for k in range(count):
        fixed = int(src[k // int(amount)]) if mode == "triplet" else None
        for a in range(max_attempts if strict else 1):
            b = philox((k & M32, k >> 32, batch & M32, a), key)
            s = fixed if fixed is not None else below(b[1] << 32 | b[0], n)
            d = below(b[3] << 32 | b[2], m)
            if not strict or (s, d) not in edges:
                break
        else:
            unresolved += 1
        out.append((s, d))
    return out, unresolved


def ref_temporal_blocks(indptr, indices, seeds, seed_times, fanouts, times, node_form, last, seed,
                        excluded=()):
    """Temporal blocks from the definitions in device/temporal_samplers.hpp and
    sample_temporal_blocks_async.cuh: per layer (src_nodes, offsets, local ids, edge ids)."""
    indptr, indices, times = indptr.tolist(), indices.tolist(), times.tolist()
    excluded = set(excluded)
    key = (seed & M32, (seed & M64) >> 32)
    dst, when, out = list(seeds), list(seed_times), []
    for layer, fanout in enumerate(fanouts):
        offsets, picked_all, rows = [0], [], []
        for r, v in enumerate(dst):
            first = indptr[v]
            t_of = (lambda p: times[indices[first + p]]) if node_form else (lambda p: times[first + p])
            ok = [p for p in range(indptr[v + 1] - first) if t_of(p) <= when[r] and first + p not in excluded]
            if len(ok) <= fanout:
                picked = ok
            elif last:
                picked = sorted(ok, key=lambda p: (t_of(p), p), reverse=True)[:fanout]
            else:
                n, ranks = len(ok), []
                for j in range(fanout):
                    b = philox((j, layer, v & M32, v >> 32), key)
                    c = below(b[1] << 32 | b[0], n - fanout + j + 1)
                    ranks.append(n - fanout + j if c in ranks else c)
                picked = [ok[i] for i in ranks]
            for p in sorted(picked):
                picked_all.append(first + p)
                rows.append(r)
            offsets.append(len(picked_all))
        src, local, nxt = list(dst), {}, list(when)
        for r, v in enumerate(dst):
            local.setdefault(v, r)
        ids = []
        for e, r in zip(picked_all, rows):
            u = indices[e]
            if u not in local:
                local[u] = len(src)
                src.append(u)
                nxt.append(2**63 - 1)
            ids.append(local[u])
            nxt[local[u]] = min(nxt[local[u]], when[r])
        out.append((src, offsets, ids, picked_all))
        dst, when = src, nxt
    return out


def _sorted_csr(num_nodes, max_degree, index_dtype=torch.int64):
    indptr, indices = random_csr(num_nodes, max_degree, index_dtype)
    for v in range(num_nodes):
        a, b = int(indptr[v]), int(indptr[v + 1])
        indices[a:b] = indices[a:b].sort().values
    return indptr, indices


def _bipartite_csr(num_src, num_dst, max_degree, index_dtype=torch.int64):
    """A random out-CSR of a typed relation: num_src rows, sorted distinct ids in [0, num_dst);
    row 0 links to every destination (strict draws from it never resolve)."""
    lists = [list(range(num_dst))]
    for _ in range(num_src - 1):
        degree = int(torch.randint(0, max_degree + 1, ()))
        lists.append(sorted(set(torch.randint(0, num_dst, (degree,)).tolist())))
    indptr = torch.tensor([0] + [len(x) for x in lists]).cumsum(0)
    indices = torch.tensor([u for x in lists for u in x], dtype=index_dtype)
    return indptr, indices


def _blocks_as_lists(blocks):
    return [(b.src_nodes.tolist(), b.offsets.tolist(), b.indices.tolist(), b.edge_ids.tolist()) for b in blocks]


# --- sample_negatives ---------------------------------------------------------------------

@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("mode,amount", [("binary", 1.0), ("binary", 2.5), ("binary", 0.3), ("triplet", 1),
                                         ("triplet", 3)])
@pytest.mark.parametrize("strict", [False, True])
def test_negatives_equal_reference(seed, index_dtype, mode, amount, strict):
    indptr, indices = _sorted_csr(60, 40, index_dtype)
    src = torch.randint(0, 60, (37,), dtype=index_dtype)
    dst = torch.randint(0, 60, (37,), dtype=index_dtype)
    out = gd.sample_negatives(indptr, src, dst, indices=indices, mode=mode, amount=amount, seed=seed,
                              batch=seed % 7, strict=strict, max_attempts=4)
    ref, unresolved = ref_negatives((indptr, indices), src, dst, mode, amount, seed, seed % 7, strict, 4)
    count = math.ceil(amount * 37) if mode == "binary" else amount * 37
    assert out.src.numel() == out.dst.numel() == count == len(ref)
    assert out.src.dtype == out.dst.dtype == index_dtype
    assert list(zip(out.src.tolist(), out.dst.tolist())) == ref
    assert int(out.unresolved) == unresolved
    assert int(out.src.min()) >= 0 and int(out.src.max()) < 60 and int(out.dst.max()) < 60
    if mode == "triplet":
        assert torch.equal(out.src, src.repeat_interleave(amount)), "negative k keeps src[k // amount]"
    if strict:
        edges = {(u, int(v)) for u in range(60) for v in indices[int(indptr[u]):int(indptr[u + 1])]}
        bad = sum((s, d) in edges for s, d in zip(out.src.tolist(), out.dst.tolist()))
        assert bad == int(out.unresolved), "strict: only the counted unresolved draws are edges"


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("mode,amount", [("binary", 1.0), ("binary", 2.5), ("triplet", 1), ("triplet", 3)])
@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("num_src,num_dst", [(40, 170), (90, 7), (1, 25)])
def test_negatives_two_ranges_equal_reference(seed, index_dtype, mode, amount, strict, num_src, num_dst):
    # A typed (bipartite) relation: sources over [0, num_src) (the CSR's rows), destinations over
    # [0, num_dst); fresh random relation and positives, bit for bit against the reference.
    indptr, indices = _bipartite_csr(num_src, num_dst, 30, index_dtype)
    src = torch.randint(0, num_src, (33,), dtype=index_dtype)
    src[0] = 0
    dst = torch.randint(0, num_dst, (33,), dtype=index_dtype)
    out = gd.sample_negatives(indptr, src, dst, indices=indices, mode=mode, amount=amount, seed=seed,
                              batch=seed % 5, strict=strict, max_attempts=4, num_dst=num_dst)
    ref, unresolved = ref_negatives((indptr, indices), src, dst, mode, amount, seed, seed % 5, strict, 4,
                                    num_dst=num_dst)
    count = math.ceil(amount * 33) if mode == "binary" else amount * 33
    assert out.src.numel() == out.dst.numel() == count == len(ref)
    assert out.src.dtype == out.dst.dtype == index_dtype
    assert list(zip(out.src.tolist(), out.dst.tolist())) == ref
    assert int(out.unresolved) == unresolved
    assert int(out.src.min()) >= 0 and int(out.src.max()) < num_src
    assert int(out.dst.min()) >= 0 and int(out.dst.max()) < num_dst
    if mode == "triplet":
        assert torch.equal(out.src, src.repeat_interleave(amount))
    if strict:
        edges = {(u, int(v)) for u in range(num_src) for v in indices[int(indptr[u]):int(indptr[u + 1])]}
        bad = sum((s, d) in edges for s, d in zip(out.src.tolist(), out.dst.tolist()))
        assert bad == int(out.unresolved), "strict: only the counted unresolved draws are edges"
        if mode == "triplet":
            assert int(out.unresolved) >= amount, "row 0 links to every destination"


@pytest.mark.parametrize("strict", [False, True])
def test_negatives_num_dst_none_is_one_range(seed, strict):
    # num_dst=None (and num_dst == the row count) draws exactly what the one-range op always drew.
    indptr, indices = _sorted_csr(70, 20)
    src, dst = torch.randint(0, 70, (50,)), torch.randint(0, 70, (50,))
    a = gd.sample_negatives(indptr, src, dst, indices=indices, seed=seed, batch=2, strict=strict)
    b = gd.sample_negatives(indptr, src, dst, indices=indices, seed=seed, batch=2, strict=strict, num_dst=70)
    c = torch.ops.gnndirect.sample_negatives.default(indptr, indices, src, dst, "binary", 1.0, seed, 2, strict)
    ref, unresolved = ref_negatives((indptr, indices), src, dst, "binary", 1.0, seed, 2, strict)
    for out in (a, b, gd.link.Negatives(*c)):
        assert list(zip(out.src.tolist(), out.dst.tolist())) == ref
        assert int(out.unresolved) == unresolved


def test_negatives_two_ranges_bad_input():
    indptr, indices = _bipartite_csr(30, 8, 5)
    src, dst = torch.arange(4), torch.tensor([0, 7, 2, 3])
    assert gd.sample_negatives(indptr, src, dst, indices=indices, num_dst=8).dst.max() < 8
    with pytest.raises(IndexError, match="positive dst"):  # 9 is inside [0, 30), outside [0, 8)
        gd.sample_negatives(indptr, src, torch.tensor([0, 9, 2, 3]), indices=indices, num_dst=8)
    with pytest.raises(IndexError, match="positive src"):
        gd.sample_negatives(indptr, torch.tensor([0, 30, 2, 3]), dst, indices=indices, num_dst=8)
    with pytest.raises(ValueError, match="num_dst"):
        gd.sample_negatives(indptr, src, dst, indices=indices, num_dst=-1)
    with pytest.raises(ValueError, match="num_dst"):
        torch.ops.gnndirect.sample_negatives.default(indptr, indices, src, dst, "binary", 1.0, 0, 0, False, 8, -2)
    with pytest.raises((ValueError, IndexError)):
        gd.sample_negatives(indptr, src, dst, indices=indices, num_dst=0)


def test_negatives_deterministic_by_seed(seed):
    indptr, indices = _sorted_csr(500, 10)
    src, dst = torch.randint(0, 500, (200,)), torch.randint(0, 500, (200,))
    a = gd.sample_negatives(indptr, src, dst, indices=indices, seed=seed)
    b = gd.sample_negatives(indptr, src, dst, indices=indices, seed=seed)
    c = gd.sample_negatives(indptr, src, dst, indices=indices, seed=seed + 1)
    d = gd.sample_negatives(indptr, src, dst, indices=indices, seed=seed, batch=1)
    assert torch.equal(a.src, b.src) and torch.equal(a.dst, b.dst)
    assert not torch.equal(a.dst, c.dst) and not torch.equal(a.dst, d.dst)


def test_strict_negatives_never_edges_and_full_node(seed):
    # A dense graph: strict negatives avoid every edge (8 attempts suffice at density ~1/2 for
    # almost all); node 0 links to every node, so its triplet negatives stay unresolved.
    n = 40
    lists = [list(range(n))] + [sorted(torch.randperm(n)[:n // 2].tolist()) for _ in range(n - 1)]
    indptr = torch.tensor([0] + [sum(len(x) for x in lists[:v + 1]) for v in range(n)])
    indices = torch.tensor([u for x in lists for u in x])
    src = torch.randint(1, n, (300,))
    dst = torch.randint(0, n, (300,))
    out = gd.sample_negatives(indptr, src, dst, indices=indices, seed=seed, strict=True, max_attempts=30)
    edges = {(u, v) for u in range(n) for v in lists[u]}
    pairs = list(zip(out.src.tolist(), out.dst.tolist()))
    assert sum(p in edges for p in pairs) == int(out.unresolved)
    assert all(p not in edges for p in pairs if p[0] != 0)
    full = gd.sample_negatives(indptr, torch.zeros(5, dtype=torch.int64), torch.ones(5, dtype=torch.int64),
                               indices=indices, mode="triplet", amount=2, seed=seed, strict=True)
    assert int(full.unresolved) == 10 and torch.equal(full.src, torch.zeros(10, dtype=torch.int64))


def test_negatives_bad_input():
    indptr, indices = _sorted_csr(20, 5)
    src = torch.arange(4)
    with pytest.raises(ValueError, match="amount"):
        gd.sample_negatives(indptr, src, src, indices=indices, amount=0.0)
    with pytest.raises(ValueError, match="amount"):
        gd.sample_negatives(indptr, src, src, indices=indices, amount=-1.0)
    with pytest.raises(ValueError, match="whole number"):
        gd.sample_negatives(indptr, src, src, indices=indices, mode="triplet", amount=1.5)
    with pytest.raises(ValueError, match="mode"):
        gd.sample_negatives(indptr, src, src, indices=indices, mode="pairs")
    with pytest.raises(IndexError, match="positive dst"):
        gd.sample_negatives(indptr, src, torch.tensor([0, 1, 20, 3]), indices=indices)
    with pytest.raises(ValueError, match="positives"):
        gd.sample_negatives(indptr, src, src[:3], indices=indices)
    with pytest.raises(TypeError):
        gd.sample_negatives(indptr, src, src.int(), indices=indices)


def test_opcheck_link_ops(seed):
    indptr, indices = _sorted_csr(100, 10)
    src, dst = torch.randint(0, 100, (30,)), torch.randint(0, 100, (30,))
    gd.sample_negatives(indptr, src, dst, indices=indices)  # loads the ops and their fake kernels
    torch.library.opcheck(torch.ops.gnndirect.sample_negatives.default,
                          (indptr, indices, src, dst, "binary", 1.5, seed, 2, True, 4))
    torch.library.opcheck(torch.ops.gnndirect.sample_negatives.default,
                          (indptr, indices, src, dst, "triplet", 2.0, seed, 0, False, 8))
    bip_ptr, bip_idx = _bipartite_csr(100, 130, 10)
    torch.library.opcheck(torch.ops.gnndirect.sample_negatives.default,
                          (bip_ptr, bip_idx, src, dst, "binary", 1.5, seed, 2, True, 4, 130))
    times = torch.randint(0, 20, (indices.numel(),))
    torch.library.opcheck(torch.ops.gnndirect.sample_temporal_blocks.default,
                          (indptr, indices, src.unique(), torch.full((src.unique().numel(),), 10), [4, 2], times,
                           "edge", "last", seed, None, True))


def test_out_neighbour_csr_is_the_transpose():
    indptr, indices = random_csr(50, 8)
    graph = gd.Graph(indptr, indices, device="cpu")
    out_ptr, out_idx = out_neighbour_csr(graph)
    csc = {(int(indices[e]), v) for v in range(50) for e in range(int(indptr[v]), int(indptr[v + 1]))}
    csr = {(u, int(out_idx[e])) for u in range(50) for e in range(int(out_ptr[u]), int(out_ptr[u + 1]))}
    assert csc == csr and out_idx.numel() == indices.numel()
    for u in range(50):
        seg = out_idx[int(out_ptr[u]):int(out_ptr[u + 1])]
        assert torch.equal(seg, seg.sort().values)


def test_out_neighbour_csr_of_a_bipartite_csc():
    # A typed relation's CSC (rows: 30 destination nodes, lists: ids of 70 source nodes): the
    # transpose has 70 rows, sorted lists of destination ids.
    indptr, indices = _bipartite_csr(30, 70, 12)
    graph = gd.Graph(indptr, indices, device="cpu", validate=False)
    out_ptr, out_idx = out_neighbour_csr(graph, 70)
    assert out_ptr.numel() == 71
    csc = {(int(indices[e]), v) for v in range(30) for e in range(int(indptr[v]), int(indptr[v + 1]))}
    csr = {(u, int(out_idx[e])) for u in range(70) for e in range(int(out_ptr[u]), int(out_ptr[u + 1]))}
    assert csc == csr and out_idx.numel() == indices.numel()
    for u in range(70):
        seg = out_idx[int(out_ptr[u]):int(out_ptr[u + 1])]
        assert torch.equal(seg, seg.sort().values)


# --- sample_temporal_blocks ---------------------------------------------------------------

def _temporal_graph(num_nodes=80, max_degree=30, index_dtype=torch.int64, offset_dtype=torch.int64):
    indptr, indices = random_csr(num_nodes, max_degree, index_dtype, offset_dtype)
    edge_times = torch.randint(-5, 30, (indices.numel(),))  # a small range: ties occur
    node_times = torch.randint(-5, 30, (num_nodes,))
    return indptr, indices, edge_times, node_times


@pytest.mark.parametrize("offset_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("form", ["edge", "node"])
@pytest.mark.parametrize("strategy", ["uniform", "last"])
def test_temporal_blocks_equal_reference(seed, offset_dtype, index_dtype, form, strategy):
    indptr, indices, edge_times, node_times = _temporal_graph(index_dtype=index_dtype, offset_dtype=offset_dtype)
    times = edge_times if form == "edge" else node_times
    seeds = torch.randperm(80)[:12].to(index_dtype)
    seed_times = torch.randint(0, 30, (12,))
    excluded = torch.randperm(indices.numel())[: indices.numel() // 8].sort().values
    blocks = gd.sample_temporal_blocks(indptr, seeds, seed_times, [5, 3], indices=indices, times=times,
                                       time_form=form, strategy=strategy, seed=seed, excluded=excluded)
    ref = ref_temporal_blocks(indptr, indices, seeds.tolist(), seed_times.tolist(), [5, 3], times,
                              form == "node", strategy == "last", seed, excluded.tolist())
    assert _blocks_as_lists(blocks) == [tuple(r) for r in ref]
    assert blocks[0].src_nodes.dtype == index_dtype and blocks[0].edge_ids.dtype == offset_dtype
    assert not set(excluded.tolist()) & set(torch.cat([b.edge_ids for b in blocks]).tolist())


@pytest.mark.parametrize("form", ["edge", "node"])
@pytest.mark.parametrize("strategy", ["uniform", "last"])
def test_temporal_blocks_never_later_than_a_seed(seed, form, strategy):
    """Walks each seed's tree: every edge reached from seed s is at or before s's time."""
    indptr, indices, edge_times, node_times = _temporal_graph(300, 40)
    seeds = torch.randperm(300)[:20]
    seed_times = torch.randint(0, 30, (20,))
    times = edge_times if form == "edge" else node_times
    blocks = gd.sample_temporal_blocks(indptr, seeds, seed_times, [6, 4, 3], indices=indices, times=times,
                                       time_form=form, strategy=strategy, seed=seed)
    assert sum(b.num_edges for b in blocks) > 0
    for s in range(20):
        rows = {s}
        for b in blocks:
            nxt = set()
            for r in rows:
                for k in range(int(b.offsets[r]), int(b.offsets[r + 1])):
                    e = int(b.edge_ids[k])
                    t = int(edge_times[e]) if form == "edge" else int(node_times[int(b.src_nodes[b.indices[k]])])
                    assert t <= int(seed_times[s]), f"edge {e} at {t} reached from seed {s} at {seed_times[s]}"
                    nxt.add(int(b.indices[k]))
            rows = nxt | rows  # a dst row is also its own src row in the next layer


def test_temporal_last_takes_the_most_recent(seed):
    indptr, indices, edge_times, _ = _temporal_graph(100, 40)
    seeds = torch.arange(100)
    limit = torch.full((100,), 20)
    blocks = gd.sample_temporal_blocks(indptr, seeds, limit, [4], indices=indices, times=edge_times,
                                       strategy="last")
    b = blocks[0]
    for v in range(100):
        first, last = int(indptr[v]), int(indptr[v + 1])
        ok = [e for e in range(first, last) if int(edge_times[e]) <= 20]
        expect = sorted(sorted(ok, key=lambda e: (int(edge_times[e]), e), reverse=True)[:4])
        got = b.edge_ids[int(b.offsets[v]):int(b.offsets[v + 1])].tolist()
        assert got == expect, v


def test_temporal_uniform_deterministic_and_within_eligible(seed):
    indptr, indices, edge_times, _ = _temporal_graph(100, 60)
    seeds, limit = torch.arange(100), torch.full((100,), 10)
    a = gd.sample_temporal_blocks(indptr, seeds, limit, [5], indices=indices, times=edge_times, seed=seed)[0]
    b = gd.sample_temporal_blocks(indptr, seeds, limit, [5], indices=indices, times=edge_times, seed=seed)[0]
    assert torch.equal(a.edge_ids, b.edge_ids)
    for v in range(100):
        got = a.edge_ids[int(a.offsets[v]):int(a.offsets[v + 1])].tolist()
        ok = [e for e in range(int(indptr[v]), int(indptr[v + 1])) if int(edge_times[e]) <= 10]
        assert len(got) == min(5, len(ok)) and set(got) <= set(ok) and got == sorted(set(got))


def test_temporal_bad_input():
    indptr, indices, edge_times, node_times = _temporal_graph()
    seeds = torch.arange(4)
    t = torch.zeros(4, dtype=torch.int64)
    with pytest.raises(ValueError, match="seed_times"):
        gd.sample_temporal_blocks(indptr, seeds, t[:3], [2], indices=indices, times=edge_times)
    with pytest.raises(TypeError, match="int64"):
        gd.sample_temporal_blocks(indptr, seeds, t.float(), [2], indices=indices, times=edge_times)
    with pytest.raises(TypeError, match="int64"):
        gd.sample_temporal_blocks(indptr, seeds, t, [2], indices=indices, times=edge_times.int())
    with pytest.raises(ValueError, match="edges"):
        gd.sample_temporal_blocks(indptr, seeds, t, [2], indices=indices, times=node_times)
    with pytest.raises(ValueError, match="nodes"):
        gd.sample_temporal_blocks(indptr, seeds, t, [2], indices=indices, times=edge_times, time_form="node")
    with pytest.raises(ValueError, match="strategy"):
        gd.sample_temporal_blocks(indptr, seeds, t, [2], indices=indices, times=edge_times, strategy="first")
    with pytest.raises(IndexError):
        gd.sample_temporal_blocks(indptr, torch.tensor([0, 80]), t[:2], [2], indices=indices, times=edge_times)
    with pytest.raises(ValueError, match="sorted"):
        gd.sample_temporal_blocks(indptr, seeds, t, [2], indices=indices, times=edge_times,
                                  excluded=torch.tensor([5, 2]))


# --- gd.LinkNeighborLoader ----------------------------------------------------------------

def _link_setup(device="cpu", num_nodes=200):
    edge_index = torch.randint(0, num_nodes, (2, 1500))
    graph = gd.Graph.from_edge_index(edge_index, num_nodes, device=device)
    x = torch.randn(num_nodes, 8)
    return edge_index, graph, x


def _check_link_batch(batch, x, pos, num_neg, neg_mode, graph):
    seeds = batch.n_id[:batch.num_seed_nodes].long().cpu()
    assert torch.equal(seeds, seeds.unique()), "seed nodes: distinct endpoints sorted by id (PyG)"
    assert torch.equal(batch.blocks[0].src_nodes[:batch.blocks[0].num_dst].long().cpu(), seeds)
    assert torch.equal(batch.x.cpu(), x[batch.n_id.long().cpu()])
    P = pos.size(1)
    if neg_mode in (None, "binary"):
        eli = batch.edge_label_index.cpu()
        assert eli.shape == (2, P + num_neg)
        glob = seeds[eli]
        assert torch.equal(glob[:, :P], pos), "local ids map back to the seed edges"
        assert torch.equal(glob[0, P:], batch.src[P:].long().cpu()) and torch.equal(glob[1, P:], batch.dst[P:].long().cpu())
        assert torch.equal(batch.edge_label.cpu(), torch.cat([torch.ones(P), torch.zeros(num_neg)]))
    else:
        amount = num_neg // P
        assert torch.equal(seeds[batch.src_index.cpu()], pos[0])
        assert torch.equal(seeds[batch.dst_pos_index.cpu()], pos[1])
        neg = seeds[batch.dst_neg_index.cpu()].view(P, -1)
        assert neg.shape == (P, amount)
        assert torch.equal(neg.reshape(-1), batch.dst[P:].long().cpu())
    # The blocks are the seed nodes' (in-)neighbourhoods: every sampled edge exists.
    ip, ix = graph.indptr.cpu(), graph.indices.cpu()
    for b in batch.blocks:
        dst_nodes = b.src_nodes[:b.num_dst].long().cpu()
        for r in range(b.num_dst):
            for k in range(int(b.offsets[r]), int(b.offsets[r + 1])):
                e = int(b.edge_ids[k])
                v = int(dst_nodes[r])
                assert int(ip[v]) <= e < int(ip[v + 1]) and int(ix[e]) == int(b.src_nodes[b.indices[k]])


@pytest.mark.parametrize("neg", [None, "binary", {"mode": "binary", "amount": 2}, {"mode": "triplet", "amount": 3}])
def test_link_loader_batches(seed, neg):
    edge_index, graph, x = _link_setup()
    label_edges = edge_index[:, :300]
    loader = gd.LinkNeighborLoader(graph, gd.Table(x, device="cpu"), label_edges, neg_sampling=neg,
                                   fanouts=[4, 3], batch_size=64, shuffle=True, seed=seed)
    assert len(loader) == 5
    mode = None if neg is None else (neg if isinstance(neg, str) else neg["mode"])
    amount = 0 if neg is None else (1 if isinstance(neg, str) else neg["amount"])
    for epoch in range(2):
        seen = []
        for b, batch in enumerate(loader):
            assert batch.epoch == epoch and batch.index == b
            pos = label_edges[:, batch.input_id]
            seen.append(batch.input_id)
            _check_link_batch(batch, x, pos, math.ceil(amount * pos.size(1)), mode, graph)
            data = batch.to_pyg()
            assert data.num_sampled_nodes[0] == batch.num_seed_nodes
        assert torch.equal(torch.cat(seen).sort().values, torch.arange(300))


def test_link_loader_labels_and_strict(seed):
    edge_index, graph, x = _link_setup()
    label_edges = edge_index[:, :100]
    labels = torch.randint(0, 3, (100,)).float()
    labels[0] = 0
    loader = gd.LinkNeighborLoader(graph, x, label_edges, labels, neg_sampling={"mode": "binary", "strict": True},
                                   fanouts=[3], batch_size=100, seed=seed)
    batch = next(iter(loader))
    assert torch.equal(batch.edge_label, torch.cat([labels + 1, torch.zeros(100)])), "PyG's +1 for labels with 0"
    existing = set(map(tuple, edge_index.t().tolist()))
    pairs = list(zip(batch.src[100:].tolist(), batch.dst[100:].tolist()))
    assert sum(p in existing for p in pairs) == int(batch.num_unresolved)


@pytest.mark.parametrize("strategy", ["uniform", "last"])
def test_link_loader_temporal(seed, strategy):
    edge_index, graph, x = _link_setup(num_nodes=150)
    edge_times = torch.randint(0, 100, (graph.num_edges,))
    label_edges = edge_index[:, :128]
    label_time = torch.randint(20, 100, (128,))
    loader = gd.LinkNeighborLoader(graph, x, label_edges, neg_sampling="binary", fanouts=[5, 3], batch_size=32,
                                   edge_label_time=label_time, edge_time=edge_times,
                                   temporal_strategy=strategy, seed=seed)
    for batch in loader:
        P = batch.input_id.numel()
        times = label_time[batch.input_id]
        assert torch.equal(batch.edge_label_time, times.repeat(2)[:2 * P])
        # Each seed node's query time is the earliest of its seed edges' times.
        eli = batch.edge_label_index
        expect = torch.full((batch.num_seed_nodes,), 2**63 - 1)
        t2 = batch.edge_label_time.repeat(2)
        expect.scatter_reduce_(0, eli.reshape(-1), t2, reduce="amin")
        assert torch.equal(batch.seed_node_time, expect)
        ref = ref_temporal_blocks(graph.indptr, graph.indices, batch.n_id[:batch.num_seed_nodes].tolist(),
                                  expect.tolist(), [5, 3], edge_times, False, strategy == "last",
                                  batch.sampling_seed)
        assert _blocks_as_lists(batch.blocks) == [tuple(r) for r in ref]


def _brute_seed_edge_ids(indptr, indices, src, dst, reverse):
    """Positions e of dst's list storing src (and of src's list storing dst with reverse)."""
    ip, ix = indptr.tolist(), indices.tolist()
    pairs = [(src, dst)] + ([(dst, src)] if reverse else [])
    return sorted(e for u, v in pairs for e in range(ip[v], ip[v + 1]) if ix[e] == u)


@pytest.mark.parametrize("reverse", [False, True])
def test_seed_edge_ids_match_brute_force(seed, reverse):
    torch.manual_seed(seed)
    edge_index = torch.randint(0, 60, (2, 900))  # parallel edges and self loops on purpose
    graph = gd.Graph.from_edge_index(edge_index, 60, device="cpu")
    seeds = torch.cat([edge_index[:, :50], torch.randint(0, 60, (2, 50))], 1)  # existing and random pairs
    ptr, ids = seed_edge_ids(graph, seeds, reverse=reverse)
    assert ptr.numel() == 101 and ptr[0] == 0
    for k in range(100):
        got = sorted(ids[ptr[k]:ptr[k + 1]].tolist())
        assert got == _brute_seed_edge_ids(graph.indptr, graph.indices, int(seeds[0, k]), int(seeds[1, k]),
                                           reverse), k
    assert all(ptr[k + 1] > ptr[k] for k in range(50)), "every existing seed edge matches a stored edge"


@pytest.mark.parametrize("exclude", ["self", "reverse"])
@pytest.mark.parametrize("temporal", [False, True])
def test_link_loader_excludes_seed_edges(seed, exclude, temporal):
    torch.manual_seed(seed)
    edge_index = torch.randint(0, 120, (2, 1500))
    edge_index = torch.cat([edge_index, edge_index.flip(0)], 1)  # undirected: both directions stored
    graph = gd.Graph.from_edge_index(edge_index, 120, device="cpu")
    label_edges = edge_index[:, :256]
    kw = {}
    if temporal:
        kw = dict(edge_time=torch.randint(0, 50, (graph.num_edges,)), edge_label_time=torch.randint(25, 50, (256,)))
    loader = gd.LinkNeighborLoader(graph, None, label_edges, neg_sampling="binary", fanouts=[6, 4], batch_size=64,
                                   shuffle=True, seed=seed, exclude=exclude, **kw)
    for batch in loader:
        pos = label_edges[:, batch.input_id]
        banned = sorted({e for k in range(pos.size(1)) for e in _brute_seed_edge_ids(
            graph.indptr, graph.indices, int(pos[0, k]), int(pos[1, k]), exclude == "reverse")})
        sampled = set(torch.cat([b.edge_ids for b in batch.blocks]).tolist())
        assert not sampled & set(banned), "an excluded seed edge was sampled"
        seeds = batch.n_id[:batch.num_seed_nodes].tolist()
        if temporal:
            times, node_form, when = kw["edge_time"], False, batch.seed_node_time.tolist()
        else:  # a static graph samples as the temporal sampler at node times 0
            times, node_form, when = torch.zeros(120, dtype=torch.int64), True, [0] * len(seeds)
        ref = ref_temporal_blocks(graph.indptr, graph.indices, seeds, when, [6, 4], times, node_form, False,
                                  batch.sampling_seed, excluded=banned)
        assert _blocks_as_lists(batch.blocks) == [tuple(r) for r in ref]
    # Without exclusion the seed edges do get sampled (the check above can fail).
    plain = gd.LinkNeighborLoader(graph, None, label_edges, fanouts=[10**4], batch_size=256, **kw)
    batch = next(iter(plain))
    own = _brute_seed_edge_ids(graph.indptr, graph.indices, int(label_edges[0, 0]), int(label_edges[1, 0]), False)
    if not temporal:
        assert set(own) <= set(batch.blocks[0].edge_ids.tolist())


def test_link_loader_bad_input():
    edge_index, graph, x = _link_setup()
    with pytest.raises(ValueError, match="amount"):
        gd.LinkNeighborLoader(graph, x, edge_index, neg_sampling={"mode": "binary", "amount": 0}, fanouts=[2])
    with pytest.raises(IndexError):
        gd.LinkNeighborLoader(graph, x, torch.tensor([[0], [200]]), fanouts=[2])
    with pytest.raises(ValueError, match="edge_label_time"):
        gd.LinkNeighborLoader(graph, x, edge_index, fanouts=[2], edge_time=torch.zeros(graph.num_edges, dtype=torch.int64))
    with pytest.raises(ValueError, match="entries"):
        gd.LinkNeighborLoader(graph, x, edge_index, fanouts=[2], edge_time=torch.zeros(3, dtype=torch.int64),
                              edge_label_time=torch.zeros(1500, dtype=torch.int64))
    with pytest.raises(ValueError, match="triplet"):
        gd.LinkNeighborLoader(graph, x, edge_index, torch.ones(1500), neg_sampling="triplet", fanouts=[2])
    with pytest.raises(ValueError, match="exclude must be"):
        gd.LinkNeighborLoader(graph, x, edge_index, fanouts=[2], exclude="reverse_id")
    with pytest.raises(ValueError, match="replace=False"):
        gd.LinkNeighborLoader(graph, x, edge_index, fanouts=[2], exclude="self", replace=True)


# --- GPU: CUDA equals CPU bit for bit -------------------------------------------------------

@cuda
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("mode,amount", [("binary", 1.0), ("binary", 1.7), ("triplet", 2)])
@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("placement", ["device", "registered"])
def test_negatives_cuda_equal_cpu(seed, index_dtype, mode, amount, strict, placement):
    indptr, indices = _sorted_csr(3000, 30, index_dtype)
    src = torch.randint(0, 3000, (5000,), dtype=index_dtype)
    dst = torch.randint(0, 3000, (5000,), dtype=index_dtype)
    cpu = gd.sample_negatives(indptr, src, dst, indices=indices, mode=mode, amount=amount, seed=seed,
                              batch=3, strict=strict)
    graph = gd.Graph(indptr, indices, placement=placement, indptr_placement=placement)
    gpu = gd.sample_negatives(graph, src.cuda(), dst.cuda(), mode=mode, amount=amount, seed=seed, batch=3,
                              strict=strict)
    assert gpu.src.is_cuda and torch.equal(gpu.src.cpu(), cpu.src) and torch.equal(gpu.dst.cpu(), cpu.dst)
    assert int(gpu.unresolved) == int(cpu.unresolved)
    with pytest.raises(IndexError, match="positive src"):
        bad = src.cuda().clone()
        bad[17] = 3000
        gd.sample_negatives(graph, bad, dst.cuda(), seed=seed)
    assert float((torch.ones(4, device="cuda") * 2).sum()) == 8.0, "context still usable"


@cuda
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("mode,amount", [("binary", 1.0), ("binary", 1.7), ("triplet", 2)])
@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("num_src,num_dst", [(2000, 700), (300, 4000)])
def test_negatives_two_ranges_cuda_equal_cpu(seed, index_dtype, mode, amount, strict, num_src, num_dst):
    indptr, indices = _bipartite_csr(num_src, num_dst, 30, index_dtype)
    src = torch.randint(0, num_src, (4000,), dtype=index_dtype)
    dst = torch.randint(0, num_dst, (4000,), dtype=index_dtype)
    src[5] = 0  # row 0 links to every destination
    cpu = gd.sample_negatives(indptr, src, dst, indices=indices, mode=mode, amount=amount, seed=seed, batch=4,
                              strict=strict, num_dst=num_dst)
    ref, unresolved = ref_negatives((indptr, indices), src[:40], dst[:40], mode, amount, seed, 4, strict, 8,
                                    num_dst=num_dst)
    assert list(zip(cpu.src.tolist(), cpu.dst.tolist()))[:len(ref)] == ref  # a prefix: k only
    gpu = gd.sample_negatives(indptr.cuda(), src.cuda(), dst.cuda(), indices=indices.cuda(), mode=mode,
                              amount=amount, seed=seed, batch=4, strict=strict, num_dst=num_dst)
    assert gpu.src.is_cuda and torch.equal(gpu.src.cpu(), cpu.src) and torch.equal(gpu.dst.cpu(), cpu.dst)
    assert int(gpu.unresolved) == int(cpu.unresolved)
    assert int(gpu.dst.max()) < num_dst and int(gpu.src.max()) < num_src
    with pytest.raises(IndexError, match="positive dst"):
        bad = dst.cuda().clone()
        bad[11] = num_dst
        gd.sample_negatives(indptr.cuda(), src.cuda(), bad, indices=indices.cuda(), seed=seed, num_dst=num_dst)
    assert float((torch.ones(4, device="cuda") * 2).sum()) == 8.0, "context still usable"


@cuda
@pytest.mark.parametrize("offset_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("form", ["edge", "node"])
@pytest.mark.parametrize("strategy", ["uniform", "last"])
@pytest.mark.parametrize("times_placement", ["device", "registered"])
def test_temporal_blocks_cuda_equal_cpu(seed, offset_dtype, index_dtype, form, strategy, times_placement):
    indptr, indices, edge_times, node_times = _temporal_graph(2000, 80, index_dtype, offset_dtype)
    times = edge_times if form == "edge" else node_times
    seeds = torch.randperm(2000)[:300].to(index_dtype)
    seed_times = torch.randint(0, 30, (300,))
    excluded = torch.randperm(indices.numel())[: indices.numel() // 10].sort().values
    cpu = gd.sample_temporal_blocks(indptr, seeds, seed_times, [10, 5, 3], indices=indices, times=times,
                                    time_form=form, strategy=strategy, seed=seed, excluded=excluded)
    graph = gd.Graph(indptr, indices, placement="registered")
    dev_times, keep = (times.cuda(), None) if times_placement == "device" else gd.to_placement(times, "registered")
    gpu = gd.sample_temporal_blocks(graph, seeds.cuda(), seed_times.cuda(), [10, 5, 3], times=dev_times,
                                    time_form=form, strategy=strategy, seed=seed, excluded=excluded.cuda())
    assert _blocks_as_lists(gpu) == _blocks_as_lists(cpu)


@cuda
@pytest.mark.parametrize("neg", ["binary", {"mode": "triplet", "amount": 2}])
@pytest.mark.parametrize("temporal", [False, True])
def test_link_loader_cuda_equals_cpu(seed, neg, temporal):
    edge_index = torch.randint(0, 2000, (2, 20000))
    x = torch.randn(2000, 16)
    kw = {}
    if temporal:
        edge_times = torch.randint(0, 100, (20000,))
        kw = dict(edge_label_time=torch.randint(0, 100, (4000,)), temporal_strategy="last")
    cpu_graph = gd.Graph.from_edge_index(edge_index, 2000, device="cpu")
    gpu_graph = gd.Graph.from_edge_index(edge_index, 2000)
    if temporal:
        perm = torch.argsort(edge_index[1], stable=True)  # the graph's position order
        kw_cpu = dict(kw, edge_time=edge_times[perm])
        kw_gpu = dict(kw, edge_time=edge_times[perm].cuda())
    else:
        kw_cpu = kw_gpu = kw
    a = gd.LinkNeighborLoader(cpu_graph, x, edge_index[:, :4000], neg_sampling=neg, fanouts=[8, 4],
                              batch_size=512, shuffle=True, seed=seed, **kw_cpu)
    b = gd.LinkNeighborLoader(gpu_graph, gd.Table(x, "registered"), edge_index[:, :4000], neg_sampling=neg,
                              fanouts=[8, 4], batch_size=512, shuffle=True, seed=seed, **kw_gpu)
    for p, q in zip(a, b):
        assert torch.equal(p.input_id, q.input_id)
        assert torch.equal(q.x.cpu(), x[q.n_id.long().cpu()])
        assert torch.equal(p.src, q.src.cpu()) and torch.equal(p.dst, q.dst.cpu()), "negatives bit for bit"
        for name in ("edge_label_index", "edge_label", "src_index", "dst_pos_index", "dst_neg_index"):
            u, v = getattr(p, name), getattr(q, name)
            assert (u is None) == (v is None) and (u is None or torch.equal(u, v.cpu())), name
        if not temporal:  # the static CPU blocks come from the fast CPU sampler (other draws)
            continue
        assert _blocks_as_lists([_cpu_block(b) for b in q.blocks]) == _blocks_as_lists(p.blocks)
        assert torch.equal(p.x, q.x.cpu()) and torch.equal(p.seed_node_time, q.seed_node_time.cpu())


@cuda
@pytest.mark.parametrize("exclude", ["self", "reverse"])
@pytest.mark.parametrize("placement", ["device", "registered"])
def test_link_loader_exclusion_cuda_equals_cpu(seed, exclude, placement):
    torch.manual_seed(seed)
    edge_index = torch.randint(0, 3000, (2, 15000))
    edge_index = torch.cat([edge_index, edge_index.flip(0)], 1)
    cpu_graph = gd.Graph.from_edge_index(edge_index, 3000, device="cpu")
    gpu_graph = gd.Graph.from_edge_index(edge_index, 3000, placement=placement)
    a = gd.LinkNeighborLoader(cpu_graph, None, edge_index[:, :2048], neg_sampling="binary", fanouts=[8, 4],
                              batch_size=512, shuffle=True, seed=seed, exclude=exclude)
    b = gd.LinkNeighborLoader(gpu_graph, None, edge_index[:, :2048], neg_sampling="binary", fanouts=[8, 4],
                              batch_size=512, shuffle=True, seed=seed, exclude=exclude)
    for p, q in zip(a, b):
        assert torch.equal(p.input_id, q.input_id)
        assert _blocks_as_lists([_cpu_block(blk) for blk in q.blocks]) == _blocks_as_lists(p.blocks)


def _cpu_block(b):
    return gd.Block(src_nodes=b.src_nodes.cpu(), num_dst=b.num_dst, offsets=b.offsets.cpu(), indices=b.indices.cpu(),
                    edge_ids=b.edge_ids.cpu())


# --- PyG's loaders over gnndirect's stores --------------------------------------------------

pyg = pytest.importorskip("torch_geometric")


DEVICES = ["cpu", pytest.param("cuda", marks=cuda)]


def _pyg_stores(x, edge_index, num_nodes, node_time=None, device="cuda"):
    from gnndirect_torch.pyg import GnnDirectFeatureStore, GnnDirectGraphStore
    fs, gs = GnnDirectFeatureStore(device=device), GnnDirectGraphStore(device=device)
    fs.put_tensor(x, group_name=None, attr_name="x", index=None)
    if node_time is not None:
        fs.put_tensor(node_time, group_name=None, attr_name="time", index=None)
    gs.put_edge_index(edge_index, edge_type=None, layout="coo", size=(num_nodes, num_nodes))
    return fs, gs


def _pyg_link_sampler_output(seed, neg):
    """sample_from_edges through PyG's types on a CPU Graph (runs without a GPU)."""
    from torch_geometric.sampler import EdgeSamplerInput, NegativeSampling
    from gnndirect_torch.pyg import GnnDirectSampler
    edge_index = torch.randint(0, 100, (2, 800))
    graph = gd.Graph.from_edge_index(edge_index, 100, device="cpu")
    sampler = GnnDirectSampler(graph, [4, 2], seed=seed)
    inp = EdgeSamplerInput(torch.arange(50), edge_index[0, :50], edge_index[1, :50])
    return edge_index, graph, sampler.sample_from_edges(inp, NegativeSampling(*neg) if neg else None)


@pytest.mark.parametrize("neg", [None, ("binary", 2), ("triplet", 3)])
def test_sample_from_edges_metadata(seed, neg):
    edge_index, graph, out = _pyg_link_sampler_output(seed, neg)
    node = out.node
    if neg is None:
        assert out.num_sampled_nodes[0] == edge_index[:, :50].reshape(-1).unique().numel()
    assert torch.equal(out.metadata[0], torch.arange(50))
    seeds = node[:out.num_sampled_nodes[0]]
    if neg is None or neg[0] == "binary":
        eli, label, time = out.metadata[1], out.metadata[2], out.metadata[3]
        num_neg = 0 if neg is None else 50 * neg[1]
        assert eli.shape == (2, 50 + num_neg) and label.shape == (50 + num_neg,) and time is None
        assert torch.equal(seeds[eli[:, :50]], edge_index[:, :50])
        assert torch.equal(label, torch.cat([torch.ones(50), torch.zeros(num_neg)]))
    else:
        src_index, dst_pos, dst_neg = out.metadata[1:4]
        assert torch.equal(seeds[src_index], edge_index[0, :50]) and torch.equal(seeds[dst_pos], edge_index[1, :50])
        assert dst_neg.shape == (50, 3)
    # row/col are local ids of node, each an edge of the graph (row = source, col = target).
    existing = set(map(tuple, edge_index.t().tolist()))
    assert all((int(node[r]), int(node[c])) in existing for r, c in zip(out.row, out.col))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("neg", ["binary", "triplet"])
def test_pyg_link_neighbor_loader_over_stores(seed, neg, device):
    """PyG's own LinkNeighborLoader class over gnndirect's stores, sampling with GnnDirectSampler."""
    from torch_geometric.loader import LinkNeighborLoader
    from torch_geometric.sampler import NegativeSampling
    from gnndirect_torch.pyg import GnnDirectSampler
    edge_index = torch.randint(0, 1000, (2, 8000))
    x = torch.randn(1000, 12)
    fs, gs = _pyg_stores(x, edge_index, 1000, device=device)
    sampler = GnnDirectSampler((fs, gs), [5, 3], seed=seed)
    loader = LinkNeighborLoader((fs, gs), num_neighbors=[5, 3], neighbor_sampler=sampler,
                                edge_label_index=(None, edge_index[:, :1000]),
                                neg_sampling=NegativeSampling(neg, 2), batch_size=256, shuffle=True)
    seen = []
    for data in loader:
        seen.append(data.input_id.cpu())
        assert torch.equal(data.x.cpu(), x[data.n_id.cpu()])
        P = data.input_id.numel()
        pos = edge_index[:, data.input_id.cpu()]
        if neg == "binary":
            glob = data.n_id[data.edge_label_index].cpu()
            assert torch.equal(glob[:, :P], pos), "edge_label_index maps back to the seed edges"
            assert torch.equal(data.edge_label.cpu(), torch.cat([torch.ones(P), torch.zeros(2 * P)]))
        else:
            assert torch.equal(data.n_id[data.src_index].cpu(), pos[0])
            assert torch.equal(data.n_id[data.dst_pos_index].cpu(), pos[1])
            assert data.dst_neg_index.shape == (P, 2)
        existing = set(map(tuple, edge_index.t().tolist()))
        n_id = data.n_id.cpu()
        assert all((int(n_id[r]), int(n_id[c])) in existing for r, c in data.edge_index.t().cpu().tolist())
    assert torch.equal(torch.cat(seen).sort().values, torch.arange(1000))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("strategy", ["uniform", "last"])
def test_pyg_temporal_neighbor_loader(seed, strategy, device):
    """PyG's NeighborLoader with time_attr / input_time over the stores: no sampled node is later
    than its batch's latest seed time (node times), and the blocks equal the CPU op's."""
    from torch_geometric.loader import NeighborLoader
    from gnndirect_torch.pyg import GnnDirectSampler
    edge_index = torch.randint(0, 1000, (2, 8000))
    x = torch.randn(1000, 12)
    node_time = torch.randint(0, 50, (1000,))
    fs, gs = _pyg_stores(x, edge_index, 1000, node_time, device=device)
    sampler = GnnDirectSampler((fs, gs), [5, 3], seed=seed, time_attr="time", temporal_strategy=strategy)
    seeds = torch.randperm(1000)[:300]
    input_time = torch.randint(10, 50, (300,))
    loader = NeighborLoader((fs, gs), num_neighbors=[5, 3], neighbor_sampler=sampler, input_nodes=seeds,
                            input_time=input_time, time_attr="time", batch_size=100)
    cpu_graph = gd.Graph.from_edge_index(edge_index, 1000, device="cpu")
    for b, data in enumerate(loader):
        n_id = data.n_id.cpu()
        batch_seeds, batch_times = seeds[b * 100:(b + 1) * 100], input_time[b * 100:(b + 1) * 100]
        assert torch.equal(n_id[:100], batch_seeds)
        assert n_id.numel() == 100 or int(node_time[n_id[100:]].max()) <= int(batch_times.max())
        assert torch.equal(data.x.cpu(), x[n_id])
        ref = gd.sample_temporal_blocks(cpu_graph, batch_seeds, batch_times, [5, 3], times=node_time,
                                        time_form="node", strategy=strategy, seed=sampler_key(seed, b))
        assert torch.equal(n_id, ref[-1].src_nodes.long())


def sampler_key(seed, b):
    """GnnDirectSampler's key of its batch b (SplitMix64 of seed * golden + b + 1)."""
    z = (seed * 0x9E3779B97F4A7C15 + b + 1) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    z ^= z >> 31
    return z - (1 << 64) if z >= (1 << 63) else z


@pytest.mark.parametrize("device", DEVICES)
def test_pyg_temporal_link_neighbor_loader(seed, device):
    """PyG's LinkNeighborLoader with edge_label_time and a node time_attr: each seed node is
    sampled at the earliest time of its seed edges (the CPU op reproduces the batch)."""
    from torch_geometric.loader import LinkNeighborLoader
    from gnndirect_torch.pyg import GnnDirectSampler
    edge_index = torch.randint(0, 500, (2, 5000))
    x = torch.randn(500, 4)
    node_time = torch.randint(0, 50, (500,))
    fs, gs = _pyg_stores(x, edge_index, 500, node_time, device=device)
    sampler = GnnDirectSampler((fs, gs), [4, 2], seed=seed, time_attr="time", temporal_strategy="uniform")
    label_time = torch.randint(10, 50, (400,))
    loader = LinkNeighborLoader((fs, gs), num_neighbors=[4, 2], neighbor_sampler=sampler,
                                edge_label_index=(None, edge_index[:, :400]), edge_label_time=label_time,
                                time_attr="time", neg_sampling="binary", batch_size=100)
    cpu_graph = gd.Graph.from_edge_index(edge_index, 500, device="cpu")
    for b, data in enumerate(loader):
        t = label_time[data.input_id.cpu()]
        assert data.input_id.numel() == 100 and torch.equal(data.edge_label_time.cpu(), t.repeat(2))
        eli = data.edge_label_index.cpu()
        num_seeds = data.num_sampled_nodes[0]
        when = torch.full((num_seeds,), 2**63 - 1).scatter_reduce_(0, eli.reshape(-1), t.repeat(4), reduce="amin")
        n_id = data.n_id.cpu()
        ref = gd.sample_temporal_blocks(cpu_graph, n_id[:num_seeds], when, [4, 2], times=node_time,
                                        time_form="node", seed=sampler_key(seed, b))
        assert torch.equal(n_id, ref[-1].src_nodes.long())
        assert n_id.numel() == num_seeds or int(node_time[n_id[num_seeds:]].max()) <= int(t.max())


def test_gnndirect_sampler_temporal_bad_input():
    from torch_geometric.sampler import EdgeSamplerInput, NodeSamplerInput
    from gnndirect_torch.pyg import GnnDirectSampler
    edge_index = torch.randint(0, 50, (2, 300))
    graph = gd.Graph.from_edge_index(edge_index, 50, device="cpu")
    with pytest.raises(ValueError, match="entries"):
        GnnDirectSampler(graph, [2], edge_time=torch.zeros(299, dtype=torch.int64))
    with pytest.raises(TypeError, match="int64"):
        GnnDirectSampler(graph, [2], node_time=torch.zeros(50, dtype=torch.int32))
    with pytest.raises(ValueError, match="one of"):
        GnnDirectSampler(graph, [2], node_time=torch.zeros(50, dtype=torch.int64),
                         edge_time=torch.zeros(300, dtype=torch.int64))
    with pytest.raises(ValueError, match="temporal_strategy"):
        GnnDirectSampler(graph, [2], node_time=torch.zeros(50, dtype=torch.int64), temporal_strategy="first")
    sampler = GnnDirectSampler(graph, [2], edge_time=torch.zeros(300, dtype=torch.int64))
    assert sampler.is_temporal
    with pytest.raises(ValueError, match="seed times"):
        sampler.sample_from_nodes(NodeSamplerInput(None, torch.arange(5)))
    with pytest.raises(ValueError, match="edge_label_time"):
        sampler.sample_from_edges(EdgeSamplerInput(None, edge_index[0, :5], edge_index[1, :5]))
    # With node times, a node seed without input_time is sampled at its own time (PyG's rule).
    node_time = torch.randint(0, 10, (50,))
    out = GnnDirectSampler(graph, [3], node_time=node_time).sample_from_nodes(NodeSamplerInput(None, torch.arange(5)))
    reached = out.node[5:]
    assert reached.numel() == 0 or int(node_time[reached].max()) <= int(node_time[:5].max())
