"""Full-scale data without a second copy (issue #33) and the PyTorch defects of issue #31 item 6:
placed tensors (empty), .npy streaming (Table.from_npy, Graph.from_npy), the host-capacity check
(MemoryError naming the bytes, never the OOM killer), auto falling back to registered, scatter
from a second thread, boolean training masks, and scatter under torch.compile."""

import threading
import warnings

import pytest
import torch

import gnndirect_torch as gd
from gnndirect_torch._util import seed_ids
from conftest import HOST_PLACEMENTS, cuda, random_csr

np = pytest.importorskip("numpy")


# -- pure Python (no extension, no GPU) ---------------------------------------------------------

def test_seed_ids_boolean_mask_is_nonzero_never_ids(seed):
    n = 1000
    mask = torch.rand(n) < 0.3
    mask[1] = False  # the old bug took a mask as ids: [0, 1, ...]
    ids = seed_ids(mask, n)
    assert torch.equal(ids, torch.arange(n)[mask])  # independent reference
    ints = torch.randint(0, n, (50,))
    assert torch.equal(seed_ids(ints, n), ints)
    with pytest.raises(TypeError, match="boolean mask"):
        seed_ids(torch.rand(10), n)
    with pytest.raises(ValueError, match="one entry per node"):
        seed_ids(torch.ones(n - 1, dtype=torch.bool), n)


def test_from_npy_refuses_unknown_codecs(tmp_path):
    # codecs are supported now (python/tests/test_codecs.py); an unknown one is a ValueError
    path = tmp_path / "x.npy"
    np.save(path, np.zeros((4, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="unknown codec"):
        gd.Table.from_npy(path, codec="int3")


# -- placed memory without a second copy ---------------------------------------------------------

@cuda
@pytest.mark.parametrize("placement", ["pinned", "managed_host"])
def test_empty_is_adopted_without_a_copy(seed, placement):
    x = gd.empty((3000, 24), torch.float32, placement)
    assert not x.is_cuda and gd.placement_of(x) == placement
    x.copy_(torch.randn(3000, 24))  # filled in place
    for requested in ("auto", placement):
        table = gd.Table(x, requested)
        assert table.tensor.data_ptr() == x.data_ptr(), "no second copy"
        assert table.placement == placement
        index = torch.randint(0, 3000, (500,), device="cuda")
        assert torch.equal(table.gather(index).cpu(), x.index_select(0, index.cpu()))
    indptr, indices = random_csr(800, 9)
    placed = gd.empty(indices.shape, torch.int64, placement)
    placed.copy_(indices)
    graph = gd.Graph(indptr, placed, placement="auto")
    assert graph.indices.data_ptr() == placed.data_ptr()
    assert gd.empty((0, 4), torch.float32, placement).numel() == 0
    with pytest.raises(ValueError, match="registered"):
        gd.empty((4, 4), torch.float32, "registered")


@cuda
@pytest.mark.parametrize("placement", HOST_PLACEMENTS + ["device"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64])
def test_table_from_npy_every_placement(seed, tmp_path, placement, dtype):
    rng = np.random.default_rng(seed)
    rows, cols = int(rng.integers(1, 5000)), int(rng.integers(1, 40))
    data = (rng.standard_normal((rows, cols)) * 100).astype(dtype)
    path = tmp_path / "x.npy"
    np.save(path, data)
    table = gd.Table.from_npy(path, placement)
    assert table.placement == placement
    assert tuple(table.shape) == (rows, cols)
    index = torch.randint(0, rows, (777,), device="cuda")
    expect = torch.from_numpy(data).index_select(0, index.cpu())
    assert torch.equal(table.gather(index).cpu(), expect)
    one_d = tmp_path / "v.npy"
    np.save(one_d, data[:, 0].copy())
    assert tuple(gd.Table.from_npy(one_d, placement).shape) == (rows, 1)


@cuda
@pytest.mark.parametrize("placement", HOST_PLACEMENTS + ["device"])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_graph_from_npy_every_placement(seed, tmp_path, placement, index_dtype):
    indptr, indices = random_csr(1500, 12)
    np.save(tmp_path / "indptr.npy", indptr.numpy())
    np.save(tmp_path / "indices.npy", indices.numpy().astype(index_dtype))
    graph = gd.Graph.from_npy(tmp_path / "indptr.npy", tmp_path / "indices.npy", placement=placement)
    assert graph.placement == placement
    assert torch.equal(graph.indptr.cpu(), indptr)
    assert torch.equal(graph.indices.cpu().long(), indices)
    seeds = torch.randint(0, 1500, (300,), device="cuda", dtype=graph.indices.dtype)  # the ids' dtype
    a = graph.sample_neighbors(seeds, 5, seed=seed)
    b = gd.Graph(indptr, indices.to(graph.indices.dtype), placement="device").sample_neighbors(seeds, 5, seed=seed)
    for x, y in zip(a, b):
        assert torch.equal(x.cpu(), y.cpu())
    np.save(tmp_path / "bad.npy", np.zeros((3, 3), dtype=np.int64))
    with pytest.raises(ValueError):
        gd.Graph.from_npy(tmp_path / "bad.npy", tmp_path / "indices.npy", placement=placement)


# -- capacity: MemoryError, never the OOM killer -------------------------------------------------

@cuda
@pytest.mark.parametrize("placement", ["pinned", "managed_host"])
def test_oversized_placement_raises_memory_error(placement):
    info = gd.host_memory_info()
    if not info["known"]:
        pytest.skip("nothing readable about host memory here")
    too_many = info["available"] + (1 << 30)
    with pytest.raises(MemoryError) as error:
        gd.empty((too_many,), torch.uint8, placement)
    text = str(error.value)
    assert str(too_many) in text
    assert "registered" in text  # the zero-copy alternatives are named
    # the process and the context are fine afterwards
    small = gd.empty((1 << 20,), torch.uint8, placement)
    small.fill_(7)
    assert int(small[12345]) == 7


@cuda
def test_explicit_copy_beyond_the_limit_raises_memory_error(monkeypatch):
    x = torch.randn(1 << 22, 8)  # 128 MiB
    monkeypatch.setenv("GNNDIRECT_HOST_MEMORY_LIMIT", "64M")
    info = gd.host_memory_info()
    assert info["available"] == 64 << 20 and info["source"] == "GNNDIRECT_HOST_MEMORY_LIMIT"
    for placement in ("pinned", "managed_host"):
        with pytest.raises(MemoryError) as error:
            gd.Table(x, placement)
        assert str(x.numel() * 4) in str(error.value)


@cuda
def test_auto_falls_back_to_registered_when_a_copy_would_not_fit(monkeypatch):
    import gnndirect_torch._placement as placement_module  # where auto decides
    x = torch.randn(1 << 20, 8)  # 32 MiB
    real = placement_module.host_memory_info()
    tight = dict(real, known=True, available=16 << 20, source="test: 16 MiB available")
    monkeypatch.setattr(placement_module, "host_memory_info", lambda: tight)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = gd.Table(x, "auto")
    assert table.placement == "registered"
    assert table.tensor.data_ptr() == x.data_ptr(), "adopted in place, no copy"
    assert any("registered" in str(w.message) for w in caught)
    index = torch.randint(0, x.shape[0], (1000,), device="cuda")
    assert torch.equal(table.gather(index).cpu(), x.index_select(0, index.cpu()))
    table.close()
    # With room, auto copies into the library's choice as before.
    monkeypatch.setattr(placement_module, "host_memory_info", lambda: dict(tight, available=1 << 40))
    assert gd.Table(x, "auto").placement in ("managed_host", "pinned")


# -- issue #31 item 6 ---------------------------------------------------------------------------

@cuda
@pytest.mark.parametrize("placement", HOST_PLACEMENTS)
def test_scatter_from_a_second_thread(seed, placement):
    rows, cols = 4000, 16
    src = torch.randn(rows, cols)
    table = gd.Table(src.clone(), placement)
    upd = torch.randperm(rows)[:1000]
    new = torch.randn(1000, cols)
    errors = []

    def writer():
        try:
            table.scatter(upd.cuda(), new.cuda())
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    thread = threading.Thread(target=writer)
    thread.start()
    index = torch.randint(0, rows, (5000,), device="cuda")
    for _ in range(20):
        table.gather(index)  # the main thread gathers meanwhile
    thread.join()
    assert not errors, errors
    expect = src.index_copy(0, upd, new)
    assert torch.equal(table.gather(torch.arange(rows, device="cuda")).cpu(), expect)


@cuda
def test_neighbor_loader_boolean_mask_trains_on_the_masked_nodes(seed):
    n = 2000
    indptr, indices = random_csr(n, 8)
    graph = gd.Graph(indptr, indices, placement="managed_host")
    table = gd.Table(torch.randn(n, 8), "managed_host")
    y = torch.randint(0, 5, (n,))
    mask = torch.rand(n) < 0.25
    mask[0] = mask[1] = False
    loader = gd.NeighborLoader(graph, table, y, mask, fanouts=[4], batch_size=100)
    seen = torch.cat([b.n_id[: b.batch_size].cpu().long() for b in loader])
    assert torch.equal(seen.sort().values, torch.arange(n)[mask])
    with pytest.raises(TypeError):
        gd.NeighborLoader(graph, table, y, mask.float(), fanouts=[4], batch_size=100)


@cuda
@pytest.mark.parametrize("placement", HOST_PLACEMENTS)
def test_compile_scatter_into_host_table_refuses_clearly(seed, placement):
    src = torch.randn(500, 8)
    table = gd.Table(src.clone(), placement)

    def step(index, rows):
        torch.ops.gnndirect.scatter_rows(table.tensor, index, rows)
        return rows.sum()

    compiled = torch.compile(step, backend="aot_eager", fullgraph=True)
    index = torch.randperm(500, device="cuda")[:50]
    rows = torch.randn(50, 8, device="cuda")
    with pytest.raises(Exception, match="cannot run inside torch.compile"):
        compiled(index, rows)
    assert torch.equal(table.tensor, src), "nothing was written by the refused call"
    table.scatter(index, rows)  # eager still works, in place
    assert torch.equal(table.gather(index).cpu(), rows.cpu())
