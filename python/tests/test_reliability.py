"""Reliability defects of the PyTorch extension, and the memory it takes from torch:
CSR validation at the entry points, cache coherence of Table.scatter (last duplicate wins),
processes (pickling, mp.Queue, spawn and fork DataLoader workers), threads (loader lock,
close refused under a loader), the pinned cache event, slot_of checks, and the torch caching
allocator as gnndirect's memory resource.

Tests marked ``cuda`` need a GPU; the others run on any machine with the extension built."""

import contextlib
import pickle
import queue
import threading
import time
import types

import pytest
import torch

import gnndirect_torch as gd
from gnndirect_torch import testing
from gnndirect_torch import _process
from gnndirect_torch._cache import update_cached_rows
from conftest import HOST_PLACEMENTS, context_usable, cuda, random_csr

pytestmark = pytest.mark.usefixtures("_extension")


def _truncated(num_nodes=500, max_degree=20, drop=7):
    indptr, indices = random_csr(num_nodes, max_degree)
    assert indices.numel() > drop
    return indptr, indices, indices[:-drop].clone()


# -- item 4: CSR validation ---------------------------------------------------------------------

def test_graph_validates_at_construction_cpu(seed):
    indptr, indices, truncated = _truncated()
    gd.Graph(indptr, indices, device="cpu")  # valid: accepted
    with pytest.raises(ValueError, match="indptr"):
        gd.Graph(indptr, truncated, device="cpu")
    bad = indices.clone()
    bad[5] = indptr.numel() - 1  # == num_nodes: out of range
    with pytest.raises(ValueError, match=r"indices\[5\]"):
        gd.Graph(indptr, bad, device="cpu")
    shuffled = indptr.clone()
    shuffled[3], shuffled[4] = int(indptr[4]) + 1, int(indptr[3])
    with pytest.raises(ValueError, match="indptr"):
        gd.Graph(shuffled, indices, device="cpu")


@pytest.mark.parametrize("op", ["sample_neighbors", "sample_blocks"])
def test_cpu_ops_check_indptr_end(seed, op):
    indptr, _, truncated = _truncated()
    seeds = torch.arange(indptr.numel() - 1)
    with pytest.raises(ValueError, match="indices has"):
        if op == "sample_neighbors":
            gd.sample_neighbors(indptr, seeds, 10, indices=truncated)
        else:
            gd.sample_blocks(indptr, seeds, [10, 5], indices=truncated)


@cuda
@pytest.mark.parametrize("placement", HOST_PLACEMENTS + ["device"])
def test_graph_validates_at_construction_gpu(seed, placement):
    indptr, indices, truncated = _truncated()
    graph = gd.Graph(indptr, indices, placement=placement)
    assert graph.num_edges == indices.numel()
    with pytest.raises(ValueError, match="indptr"):
        gd.Graph(indptr, truncated, placement=placement)
    bad = indices.clone()
    bad[11] = -3
    with pytest.raises(ValueError, match=r"indices\[11\] = -3"):
        gd.Graph(indptr, bad, placement=placement)
    assert context_usable()


@cuda
@pytest.mark.parametrize("op", ["sample_neighbors", "sample_blocks"])
def test_gpu_ops_check_indptr_end(seed, op):
    indptr, _, truncated = _truncated()
    seeds = torch.arange(indptr.numel() - 1, device="cuda")
    for ptr in (indptr.cuda(), gd.to_placement(indptr, "pinned")[0]):
        with pytest.raises(ValueError, match="indices has"):
            if op == "sample_neighbors":
                gd.sample_neighbors(ptr, seeds, 10, indices=truncated.cuda())
            else:
                gd.sample_blocks(ptr, seeds, [10, 5], indices=truncated.cuda())
    assert context_usable()


@cuda
def test_loader_refuses_unvalidated_truncated_graph(seed):
    indptr, _, truncated = _truncated()
    graph = gd.Graph(indptr, truncated, placement="pinned", validate=False)
    table = gd.Table(torch.randn(indptr.numel() - 1, 8), "pinned")
    labels = torch.zeros(indptr.numel() - 1, dtype=torch.int64)
    with pytest.raises(ValueError, match="indices has"):
        gd.NeighborLoader(graph, table, labels, torch.arange(100), fanouts=[5])
    assert context_usable()


# -- item 5: Table.scatter and cached copies (last duplicate wins) ------------------------------

def test_cpu_scatter_duplicates_last_wins(seed):
    table = torch.randn(50, 6)
    index = torch.tensor([3, 7, 3, 9, 7, 3])
    src = torch.randn(6, 6)
    gd.scatter(table, index, src)
    assert torch.equal(table[3], src[5]) and torch.equal(table[7], src[4]) and torch.equal(table[9], src[3])


def test_update_cached_rows_last_wins(seed):
    rows, cols = 40, 5
    slot_of = torch.full((rows,), -1, dtype=torch.int32)
    hot = torch.randperm(rows)[:12]
    slot_of[hot] = torch.arange(12, dtype=torch.int32)
    cache = torch.randn(12, cols)
    before = cache.clone()
    index = torch.randint(0, rows, (60,))  # many duplicates
    src = torch.randn(60, cols)
    update_cached_rows(cache, slot_of, index, src)
    expect = before.clone()
    for i in range(60):  # sequential: the last occurrence wins
        slot = int(slot_of[index[i]])
        if slot >= 0:
            expect[slot] = src[i]
    assert torch.equal(cache, expect)
    update_cached_rows(cache, slot_of, torch.tensor([rows, -1]), torch.randn(2, cols))  # skipped
    assert torch.equal(cache, expect)


def _loader_setup(num_nodes=2000, cols=12, cache_fraction=0.5):
    indptr, indices = random_csr(num_nodes, 15)
    x = torch.randn(num_nodes, cols)
    y = torch.randint(0, 5, (num_nodes,))
    graph = gd.Graph(indptr, indices, placement="pinned")
    table = gd.Table(x.clone(), "managed_host", cache_fraction=cache_fraction, graph=indptr)
    return indptr, x, y, graph, table


@cuda
def test_scatter_updates_the_loaders_cache(seed):
    indptr, x, y, graph, table = _loader_setup()
    loader = gd.NeighborLoader(graph, table, y, torch.randperm(2000)[:600], fanouts=[5, 5],
                               batch_size=200, cache_fraction=0.5)
    assert loader.cached_rows == 1000
    for _ in loader:  # one epoch with the old values
        pass
    index = torch.randperm(2000)[:1500]  # hits cached and uncached rows
    new = torch.randn(1500, x.shape[1])
    table.scatter(index.cuda(), new.cuda())
    x[index] = new
    for batch in loader:
        assert torch.equal(batch.x.cpu(), x.index_select(0, batch.n_id.long().cpu())), "stale rows"
    assert torch.equal(table.gather(torch.arange(2000, device="cuda")).cpu(), x)


@cuda
def test_scatter_duplicates_last_wins_with_cache(seed):
    # Needs the library's scatter to follow the rule for the host-resident rows too.
    indptr, x, y, graph, table = _loader_setup()
    index = torch.randint(0, 2000, (5000,))
    src = torch.randn(5000, x.shape[1])
    table.scatter(index.cuda(), src.cuda())
    for i in range(5000):
        x[index[i]] = src[i]
    assert torch.equal(table.gather(torch.arange(2000, device="cuda")).cpu(), x)
    assert torch.equal(table.tensor.cpu(), x)


# -- item 6: processes --------------------------------------------------------------------------

def _fake_placed_table():
    """A CPU-mode table whose device says CUDA: what the pickling refusal looks at (so that the
    refusal itself is tested without a GPU; the GPU tests below use real placed tables)."""
    table = gd.Table(torch.randn(10, 4), device="cpu")
    table.device, table.placement = torch.device("cuda", 0), "pinned"
    return table


def test_pickling_refused_with_a_clear_error():
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(_fake_placed_table())
    cpu_table = gd.Table(torch.randn(10, 4), device="cpu")  # host-reference mode may travel
    again = pickle.loads(pickle.dumps(cpu_table))
    assert torch.equal(again.tensor, cpu_table.tensor)
    indptr, indices = random_csr(30, 5)
    graph = pickle.loads(pickle.dumps(gd.Graph(indptr, indices, device="cpu")))
    assert torch.equal(graph.indices, indices)


class _GatherDataset(torch.utils.data.Dataset):
    def __init__(self, table):
        self.table = table

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.table.gather(torch.tensor([i]))


class _CheckDataset(torch.utils.data.Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        _process.check_cuda_allowed("the test's dataset")
        return torch.tensor([i])


def test_fork_after_cuda_use_is_detected():
    _process.note_cuda_use()  # as if this process had used CUDA through gnndirect
    loader = torch.utils.data.DataLoader(_CheckDataset(), num_workers=1,
                                         multiprocessing_context="fork")
    with pytest.raises(RuntimeError, match="forked"):
        list(loader)
    # host-reference tables need no CUDA and stay usable in forked workers
    table = gd.Table(torch.arange(40.0).reshape(10, 4), device="cpu")
    loader = torch.utils.data.DataLoader(_GatherDataset(table), num_workers=1,
                                         multiprocessing_context="fork")
    assert [int(b[0, 0, 0]) for b in loader] == [0, 4, 8, 12]


@cuda
@pytest.mark.parametrize("placement", HOST_PLACEMENTS)
def test_placed_table_refuses_pickle_and_queue(placement):
    src = torch.randn(64, 8)
    table = gd.Table(src.clone(), placement)
    ptr = table.tensor.data_ptr()
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(table)
    graph = gd.Graph(*random_csr(50, 5), placement=placement)
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(graph)
    ctx = torch.multiprocessing.get_context("spawn")
    q = ctx.Queue()
    q.put(table)  # pickled in the feeder thread: refused there, nothing is sent
    with pytest.raises(queue.Empty):
        q.get(timeout=2)
    q.close()
    # the table is untouched: same memory, same placement, correct rows
    assert table.tensor.data_ptr() == ptr and not table.tensor.is_shared()
    assert gd.placement_of(table.tensor) in ("pinned", "managed_host")
    index = torch.randint(0, 64, (100,), device="cuda")
    assert torch.equal(table.gather(index).cpu(), src.index_select(0, index.cpu()))


@cuda
def test_spawn_dataloader_refuses_the_table():
    table = gd.Table(torch.randn(16, 4), "pinned")
    loader = torch.utils.data.DataLoader(_GatherDataset(table), num_workers=1,
                                         multiprocessing_context="spawn")
    with pytest.raises(TypeError, match="cannot be pickled"):
        list(loader)
    assert gd.placement_of(table.tensor) == "pinned"
    assert context_usable()


@cuda
def test_fork_dataloader_worker_gets_a_clear_error():
    table = gd.Table(torch.randn(16, 4), "pinned")
    table.gather(torch.tensor([1], device="cuda"))  # CUDA is initialised in the parent
    loader = torch.utils.data.DataLoader(_GatherDataset(table), num_workers=1,
                                         multiprocessing_context="fork")
    with pytest.raises(RuntimeError, match="forked"):
        list(loader)
    assert context_usable()


# -- item 7: threads and close ------------------------------------------------------------------

class _FakePipeline:
    """Stands in for the C++ pipeline: next() sleeps without the GIL (as the real one waits for
    a batch) and records whether two callers were ever inside at once."""

    def __init__(self, batches):
        self.left = batches
        self.busy = 0
        self.overlaps = 0
        self.guard = threading.Lock()
        self.entered = threading.Event()

    def start_epoch(self, epoch):
        self.epoch = epoch

    def next(self):
        with self.guard:
            self.busy += 1
            self.overlaps += self.busy > 1
        self.entered.set()
        time.sleep(0.02)
        with self.guard:
            self.busy -= 1
            if self.left == 0:
                return None
            self.left -= 1
            index = self.left
        ids = torch.tensor([index])
        return types.SimpleNamespace(epoch=self.epoch, index=index, num_seeds=1, sampling_seed=0,
                                     layers=[ids, torch.tensor([0, 0]), ids[:0], ids[:0]],
                                     x=torch.zeros(1, 2), y=torch.zeros(1))


def _fake_loader(pipeline):
    from gnndirect_torch.loader import _Pipeline  # the loader's one wrapper, around the stand-in
    loader = gd.NeighborLoader.__new__(gd.NeighborLoader)
    owner = types.SimpleNamespace(device=None, _users=set())
    loader.__dict__.update(_pipeline=_Pipeline(pipeline, None), _epoch=0, _decode=False, _active=None, graph=owner, features=owner,
                           _num_batches=pipeline.left, _lock=threading.RLock(), _timeline=None)
    return loader


def test_loader_serialises_threads_and_close(monkeypatch):
    # the fake loader has no device: entering torch.cuda.device needs none, and the loader's
    # no-GPU check (which points to device="cpu") must let it run on a machine without one
    monkeypatch.setattr(torch.cuda, "device", lambda device: contextlib.nullcontext())
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    pipeline = _FakePipeline(batches=24)
    loader = _fake_loader(pipeline)
    iterator = iter(loader)
    got, errors = [], []

    def consume():
        try:
            for batch in iterator:
                got.append(batch.index)
        except RuntimeError as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=consume) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and pipeline.overlaps == 0, "two threads were inside pipeline.next()"
    assert sorted(got) == list(range(24)), "each batch once"

    pipeline = _FakePipeline(batches=1000)
    loader = _fake_loader(pipeline)
    iterator = iter(loader)
    worker = threading.Thread(target=lambda: next(iterator))
    worker.start()
    assert pipeline.entered.wait(5)  # the worker is inside next()
    loader.close()
    assert pipeline.busy == 0, "close() returned while next() was running"
    worker.join()
    with pytest.raises(RuntimeError, match="invalidated"):
        next(iterator)


@cuda
def test_graph_close_refused_under_a_loader(seed):
    indptr, x, y, graph, table = _loader_setup(cache_fraction=0.0)
    loader = gd.NeighborLoader(graph, table, y, torch.arange(300), fanouts=[4], batch_size=100)
    iterator = iter(loader)
    next(iterator)
    with pytest.raises(RuntimeError, match="NeighborLoader"):
        graph.close()
    with pytest.raises(RuntimeError, match="NeighborLoader"):
        table.close()
    loader.close()
    graph.close()
    table.close()
    assert context_usable()


@cuda
def test_loader_shared_between_threads(seed):
    indptr, x, y, graph, table = _loader_setup(cache_fraction=0.1)
    train = torch.randperm(2000)[:1000]
    # depth > 2 x threads: each thread holds one batch (two while in next()), so no batch is
    # detached under another thread's use (see NeighborLoader's docstring)
    loader = gd.NeighborLoader(graph, table, y, train, fanouts=[5, 3], batch_size=50, depth=10)
    iterator = iter(loader)
    seen, errors = [], []

    def consume():
        try:
            for batch in iterator:
                assert torch.equal(batch.x.cpu(), x.index_select(0, batch.n_id.long().cpu()))
                seen.append(batch.n_id[: batch.batch_size].cpu())
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=consume) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert torch.equal(torch.cat(seen).sort().values, train.sort().values)
    # close from another thread while one iterates
    iterator = iter(loader)
    stop = threading.Thread(target=loader.close)
    next(iterator)
    stop.start()
    stop.join()
    with pytest.raises(RuntimeError):
        next(iterator)
    assert context_usable()


# -- item 11: memory, slot_of, pinned cache -----------------------------------------------------

@cuda
def test_sample_blocks_memory_is_returned(seed):
    indptr, indices = random_csr(20000, 40)
    graph = gd.Graph(indptr, indices, placement="device")
    seeds = torch.arange(20000, device="cuda")
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    free_before = torch.cuda.mem_get_info()[0]
    blocks = gd.sample_blocks(graph, seeds, [40, 40])
    del blocks
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    free_after = torch.cuda.mem_get_info()[0]
    assert free_before - free_after < (8 << 20), "sampling temporaries stay reserved"


@cuda
def test_tiered_gather_checks_slot_of(seed):
    table = gd.Table(torch.randn(500, 8), "pinned", cache_fraction=0.1)
    index = torch.randint(0, 500, (100,), device="cuda")
    bad = table.slot_of.clone()
    bad[7] = table.cached_rows  # one past the cache
    with pytest.raises(ValueError, match="slot_of"):
        gd._extension._call(torch.ops.gnndirect.gather.default, table.tensor, index,
                            table.cache_rows_tensor, bad, True)
    bad[7] = -2
    with pytest.raises(ValueError, match="slot_of"):
        gd._extension._call(torch.ops.gnndirect.gather.default, table.tensor, index,
                            table.cache_rows_tensor, bad, True)
    assert context_usable()


@cuda
def test_pin_memory_table_block_not_recycled_under_unchecked_gather(seed):
    rows, cols = 4096, 64
    reference = torch.randn(rows, cols)
    src = reference.pin_memory()
    address = src.data_ptr()
    index = torch.randint(0, rows, (200000,), device="cuda")
    torch.cuda._sleep(200_000_000)  # the stream is busy: the gather below cannot have run yet
    out = gd.gather(src, index, check=False)
    del src
    again = torch.empty(rows, cols).pin_memory()
    assert again.data_ptr() != address, "torch reused the pinned block under the kernel"
    again.fill_(float("nan"))
    torch.cuda.synchronize()
    assert torch.equal(out.cpu(), reference.index_select(0, index.cpu()))


# -- torch's caching allocator as the memory resource; copy counter --------------------

@cuda
def test_caching_allocator_resource():
    ext = gd.load_extension()
    before, during, after = ext.resource_self_check(torch.cuda.current_device(), 3 << 20)
    assert during - before >= 3 << 20, "the buffer did not come from torch's allocator"
    assert after == before


def _check_batch(batch, indptr, indices, x, y, fanouts):
    """A loader batch equals its references: features, labels and the blocks re-sampled on the
    CPU with the batch's sampling seed."""
    seeds = batch.n_id[: batch.batch_size].long().cpu()
    assert torch.equal(batch.x.cpu(), x.index_select(0, batch.n_id.long().cpu())), "x"
    assert torch.equal(batch.y.cpu(), y.index_select(0, seeds)), "y"
    ref = testing.reference_sample_blocks(indptr, indices, seeds.to(indices.dtype), fanouts,
                                          seed=batch.sampling_seed)
    for g, c in zip(batch.blocks, ref):
        for name in ("src_nodes", "offsets", "indices", "edge_ids"):
            assert torch.equal(getattr(g, name).cpu().long(), getattr(c, name).long()), name


def _loader_graph(num_nodes=2000, cols=12):
    indptr, indices = random_csr(num_nodes, 15)
    x = torch.randn(num_nodes, cols)
    y = torch.randint(0, 5, (num_nodes,))
    graph = gd.Graph(indptr, indices, placement="pinned")
    table = gd.Table(x.clone(), "managed_host", cache_fraction=0.0)
    return indptr, indices, x, y, graph, table


@cuda
def test_device_copy_bytes_per_batch(seed, record_property):
    # Batches are views of the pipeline's memory and GPU sample_blocks returns
    # views of its outputs: no device-to-device byte beyond the gathers' own outputs.
    indptr, indices, x, y, graph, table = _loader_graph()
    train = torch.randperm(2000)[:400]
    loader = gd.NeighborLoader(graph, table, y, train, fanouts=[5, 5], batch_size=100)
    gd.ops.device_copy_bytes(reset=True)
    counted, held, before = [], [], []
    for batch in loader:
        counted.append(gd.ops.device_copy_bytes(reset=True))
        held.append(loader._pipeline.held_batches)
        # what the copy-out hand-off (before the zero-copy hand-off) copied: every tensor of the batch
        tensors = [batch.x, batch.y] + [t for b in batch.blocks
                                        for t in (b.src_nodes, b.offsets, b.indices, b.edge_ids)]
        before.append(sum(t.numel() * t.element_size() for t in tensors))
        _check_batch(batch, indptr, indices, x, y, [5, 5])
        del tensors  # else the previous batch is still referenced while the loop takes the next
    print(f"[d2d] NeighborLoader bytes copied per batch: {counted} (copy-out hand-off: {before})")
    record_property("d2d_bytes_per_batch", counted)
    record_property("d2d_bytes_per_batch_copy_out", before)
    assert counted == [0] * len(loader)
    assert held == [1] * len(loader), "the previous batch's slot was not given back"
    del batch
    assert loader._pipeline.held_batches == 0
    blocks = graph.sample_blocks(train[:64].cuda(), [5, 5], seed=seed)
    assert gd.ops.device_copy_bytes(reset=True) == 0
    assert blocks[1].src_nodes.is_contiguous() and blocks[1].src_nodes.storage_offset() == 0


@cuda
def test_loader_memory_comes_from_torch(seed):
    indptr, indices, x, y, graph, table = _loader_graph()
    labels = y.cuda()  # the loader would copy pageable labels to the GPU and keep them
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    loader = gd.NeighborLoader(graph, table, labels, torch.arange(500), fanouts=[5, 5], batch_size=100)
    batch = next(iter(loader))
    during = torch.cuda.memory_allocated()
    assert during - before >= batch.x.numel() * batch.x.element_size(), \
        "the pipeline's slots are not torch allocations"
    del batch
    loader.close()
    torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() == before, "the pipeline's memory was not returned"


@cuda
def test_loader_held_batches_are_detached_not_overwritten(seed):
    # Batches kept beyond the pipeline's depth, across a new epoch and past close() stay valid:
    # their slots are reused only after they were copied out (detached).
    indptr, indices, x, y, graph, table = _loader_graph()
    train = torch.randperm(2000)[:1000]
    loader = gd.NeighborLoader(graph, table, y, train, fanouts=[5, 3], batch_size=100, depth=3)
    gd.ops.device_copy_bytes(reset=True)
    kept = list(loader)  # 10 batches through 3 slots: next() detaches the oldest held ones
    assert len(kept) == 10 and loader._pipeline.held_batches <= 3
    assert gd.ops.device_copy_bytes(reset=True) > 0
    for batch in kept:
        _check_batch(batch, indptr, indices, x, y, [5, 3])
    # a new epoch: the batches still held are detached before the workers reuse their slots
    iterator = iter(loader)
    assert loader._pipeline.held_batches == 0
    assert gd.ops.device_copy_bytes(reset=True) > 0
    fresh = [next(iterator) for _ in range(5)]
    torch.cuda.synchronize()
    for batch in kept + fresh:
        _check_batch(batch, indptr, indices, x, y, [5, 3])
    # close(): the pipeline goes, the held batches stay (as copies)
    loader.close()
    graph.close()
    table.close()
    for batch in fresh:
        _check_batch(batch, indptr, indices, x, y, [5, 3])
    del kept, fresh
    assert context_usable()


@cuda
def test_loader_batch_views_survive_the_batch(seed):
    # A view of a batch tensor keeps the whole slot: the slot comes back only when it is gone.
    indptr, indices, x, y, graph, table = _loader_graph()
    loader = gd.NeighborLoader(graph, table, y, torch.randperm(2000)[:600], fanouts=[4],
                               batch_size=100, depth=2)
    iterator = iter(loader)
    batch = next(iterator)
    rows = batch.x[: batch.batch_size]  # a view
    expect = x.index_select(0, batch.n_id[: batch.batch_size].long().cpu())
    del batch
    assert loader._pipeline.held_batches == 1
    for _ in range(3):
        torch.cuda._sleep(50_000_000)  # the consumer stream is busy: release ordering matters
        other = next(iterator)
        del other
    assert torch.equal(rows.cpu(), expect), "a view's memory was reused"
    del rows
    assert loader._pipeline.held_batches == 0
    assert sum(1 for _ in iterator) == 2


# -- issue #42 item 7: bool fanouts, scatter_rows under torch.compile ---------------------------

@pytest.mark.parametrize("fanouts", [[True], [False], [5, True], [3, False, 2]])
def test_sample_blocks_refuses_bool_fanouts(seed, fanouts):
    # bool is an int subclass (True == 1): the documented TypeError, never a fanout of 1 or 0.
    indptr, indices = random_csr(200, 12)
    seeds = torch.randint(0, 200, (30,))
    with pytest.raises(TypeError, match="bool"):
        gd.sample_blocks(indptr, seeds, fanouts, indices=indices)
    graph = gd.Graph(indptr, indices, device="cpu")
    with pytest.raises(TypeError, match="bool"):
        graph.sample_blocks(seeds, fanouts)
    with pytest.raises(TypeError, match="bool"):
        gd.sample_neighbors(indptr, seeds, next(f for f in fanouts if isinstance(f, bool)), indices=indices)
    # integers (and integer-like values) still work and agree with the plain ints
    fans = [int(f) + 3 for f in fanouts]
    blocks = gd.sample_blocks(indptr, seeds, fans, indices=indices, seed=seed)
    same = gd.sample_blocks(indptr, seeds, [torch.tensor(f) for f in fans], indices=indices, seed=seed)
    assert len(blocks) == len(same) == len(fans)
    for a, b in zip(blocks, same):
        assert torch.equal(a.src_nodes, b.src_nodes)


@cuda
@pytest.mark.parametrize("placement", HOST_PLACEMENTS)
def test_compile_scatter_into_host_table_fullgraph_is_a_clear_refusal(seed, placement):
    # fullgraph=True: the refusal is Dynamo's "unsupported" error carrying the library's message
    # (before: a failure inside the fake tensor call, "Dynamo failed to run FX node with fake
    # tensors"); nothing is written, and eager scatter still works in place.
    src = torch.randn(500, 8)
    table = gd.Table(src.clone(), placement)

    def step(index, rows):
        torch.ops.gnndirect.scatter_rows(table.tensor, index, rows)
        return rows.sum()

    compiled = torch.compile(step, backend="aot_eager", fullgraph=True)
    index = torch.randperm(500, device="cuda")[:50]
    rows = torch.randn(50, 8, device="cuda")
    with pytest.raises(Exception) as refused:
        compiled(index, rows)
    text = str(refused.value)
    assert "cannot run inside torch.compile" in text
    assert "fullgraph=True" in text
    assert "failed to run FX node with fake tensors" not in text
    assert torch.equal(table.tensor, src), "nothing was written by the refused call"
    table.scatter(index, rows)
    assert torch.equal(table.gather(index).cpu(), rows.cpu())
    assert context_usable()


@cuda
@pytest.mark.parametrize("placement", HOST_PLACEMENTS)
def test_compile_scatter_into_host_table_runs_in_place_without_fullgraph(seed, placement):
    # Without fullgraph the op is a graph break: it runs eagerly, in place, between the compiled
    # parts, and the result equals the eager function's.
    src = torch.randn(500, 8)
    table = gd.Table(src.clone(), placement)
    before = table.tensor.data_ptr()

    def step(index, rows):
        scaled = rows * 2
        torch.ops.gnndirect.scatter_rows(table.tensor, index, scaled)
        return torch.ops.gnndirect.gather(table.tensor, index).sum(dim=1)

    compiled = torch.compile(step, backend="aot_eager")
    index = torch.randperm(500, device="cuda")[:64]
    rows = torch.randn(64, 8, device="cuda")
    got = compiled(index, rows)
    expect = src.clone()
    expect[index.cpu()] = (rows * 2).cpu()
    assert table.tensor.data_ptr() == before, "the table was replaced, not written in place"
    assert torch.equal(table.tensor, expect)
    assert torch.allclose(got.cpu(), expect[index.cpu()].sum(dim=1))


# -- issue #42 item 4: a FIFO or a directory passed as a .npy file -----------------------------

@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_from_npy_refuses_non_regular_files_without_blocking(tmp_path, kind):
    import os

    path = tmp_path / "features.npy"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    outcome = {}

    def load():
        try:
            gd.Table.from_npy(path, "pinned" if torch.cuda.is_available() else "auto")
            outcome["result"] = "accepted"
        except Exception as error:  # noqa: BLE001 - the type is asserted below
            outcome["result"] = error

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(10)
    blocked = worker.is_alive()
    if blocked and kind == "fifo":  # release a blocked open() so that the thread ends
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        worker.join(10)
    assert not blocked, "the loader blocked on a non-regular file"
    error = outcome["result"]
    assert isinstance(error, ValueError), repr(error)
    assert ("FIFO" if kind == "fifo" else "directory") in str(error)
    assert "not a regular file" in str(error)
