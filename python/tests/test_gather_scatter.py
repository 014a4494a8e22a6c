"""gather/scatter equal torch references (index_select / index_copy_) for every dtype, index
type and placement; opcheck; cache tier; errors; registration lifetime."""

import gc
import weakref

import pytest
import torch

import gnndirect_torch as gd
from conftest import (ALL_PLACEMENTS, DTYPES, HOST_PLACEMENTS, INDEX_DTYPES, context_usable, cuda,
                      poison_cuda_cache)

pytestmark = pytest.mark.usefixtures("_extension")


def _table(rows, cols, dtype):
    return torch.randn(rows, cols).to(dtype)


# -- CPU (host reference) ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_gather_cpu_equals_index_select(seed, dtype, index_dtype):
    src = _table(301, 37, dtype)
    index = torch.randint(0, 301, (999,), dtype=index_dtype)
    out = gd.gather(src, index)
    assert torch.equal(out, src.index_select(0, index.long()))


def test_scatter_cpu_equals_index_copy(seed):
    table = torch.randn(100, 9)
    expect = table.clone()
    index = torch.randperm(100)[:40]
    src = torch.randn(40, 9)
    gd.scatter(table, index, src)
    expect.index_copy_(0, index, src)
    assert torch.equal(table, expect)


def test_opcheck_cpu(seed):
    ops = torch.ops.gnndirect
    table = torch.randn(50, 8)
    torch.library.opcheck(ops.gather.default, (table, torch.randint(0, 50, (20,))))
    torch.library.opcheck(ops.scatter_rows.default, (table.clone(), torch.randperm(50)[:10], torch.randn(10, 8)))


def test_cpu_errors():
    table = torch.randn(10, 4)
    with pytest.raises(IndexError, match=r"indices\[2\] = 10"):
        gd.gather(table, torch.tensor([0, 1, 10, 3]))
    with pytest.raises(TypeError):
        gd.gather(table, torch.tensor([0.5]))
    with pytest.raises(ValueError):
        gd.gather(table.reshape(-1), torch.tensor([0]))
    with pytest.raises(ValueError):
        gd.gather(table, torch.zeros(2, 2, dtype=torch.int64))
    with pytest.raises(TypeError):
        gd.gather("not a table", torch.tensor([0]))


# -- GPU ----------------------------------------------------------------------------------------

@cuda
@pytest.mark.parametrize("placement", ALL_PLACEMENTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_gather_equals_index_select(seed, placement, dtype, index_dtype):
    rows, cols = 5003, 67  # odd row size: unaligned rows
    src = _table(rows, cols, dtype)
    table = gd.Table(src, placement)
    for count in (0, 1, 31, 5000, 20000):  # 20000 > sort threshold: sorted path
        index = torch.randint(0, rows, (count,), dtype=index_dtype, device="cuda")
        poison_cuda_cache()
        out = table.gather(index)
        assert out.is_cuda and out.dtype == dtype and out.shape == (count, cols)
        assert torch.equal(out.cpu(), src.index_select(0, index.long().cpu())), (placement, count)


@cuda
@pytest.mark.parametrize("placement", HOST_PLACEMENTS)
def test_gather_strided_rows(seed, placement):
    base = torch.randn(400, 48)
    view = base[:, :33]  # row stride 48, 33 columns
    if placement == "registered":
        table = gd.Table(view, "registered")
        assert table.tensor.stride(0) == 48
    else:
        table = gd.Table(view, placement)
    index = torch.randint(0, 400, (777,), device="cuda")
    assert torch.equal(table.gather(index).cpu(), view.index_select(0, index.cpu()))


@cuda
@pytest.mark.parametrize("placement", ALL_PLACEMENTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_scatter_equals_index_copy(seed, placement, dtype, index_dtype):
    rows, cols = 2001, 19
    initial = _table(rows, cols, dtype)
    table = gd.Table(initial.clone(), placement)
    index = torch.randperm(rows)[:900].to(index_dtype)
    src = _table(900, cols, dtype)
    table.scatter(index.cuda(), src.cuda())
    expect = initial.clone().index_copy_(0, index.long(), src)
    assert torch.equal(table.tensor.cpu(), expect)


@cuda
def test_scatter_into_plain_registered_tensor(seed):
    data = torch.randn(300, 8)
    handle = gd.register_tensor(data)
    index = torch.randperm(300)[:50]
    src = torch.randn(50, 8)
    expect = data.clone().index_copy_(0, index, src)
    gd.scatter(data, index.cuda(), src.cuda())
    assert torch.equal(data, expect)
    handle.close()


@cuda
def test_opcheck_cuda(seed):
    # opcheck clones its inputs with torch.clone, which turns a host-placed CPU tensor into a
    # pageable one that the CUDA kernel rightly rejects; so opcheck runs on device-placed tables
    # and test_compile_host_placements covers host placements through torch.compile.
    ops = torch.ops.gnndirect
    table = gd.Table(torch.randn(300, 16), "device")
    index = torch.randint(0, 300, (100,), device="cuda")
    torch.library.opcheck(ops.gather.default, (table.tensor, index))
    target = gd.Table(torch.randn(300, 16), "device")
    torch.library.opcheck(ops.scatter_rows.default,
                          (target.tensor, torch.randperm(300, device="cuda")[:50], torch.randn(50, 16, device="cuda")))


@cuda
@pytest.mark.parametrize("placement", HOST_PLACEMENTS)
def test_compile_host_placements(seed, placement):
    table = gd.Table(torch.randn(400, 16), placement)

    def step(index, weight):
        rows = torch.ops.gnndirect.gather(table.tensor, index)
        return (rows * weight).sum(dim=1)

    compiled = torch.compile(step, backend="aot_eager", fullgraph=True, dynamic=True)
    for count in (64, 129):
        index = torch.randint(0, 400, (count,), device="cuda")
        weight = torch.randn(16, device="cuda")
        assert torch.allclose(compiled(index, weight), step(index, weight))


@cuda
def test_opcheck_cuda_cache_tier(seed):
    table = gd.Table(torch.randn(500, 16), "device", cache_fraction=0.2)
    index = torch.randint(0, 500, (300,), device="cuda")
    torch.library.opcheck(torch.ops.gnndirect.gather.default,
                          (table.tensor, index, table.cache_rows_tensor, table.slot_of))


@cuda
@pytest.mark.parametrize("dtype", DTYPES)
def test_cache_tier_gather_and_scatter(seed, dtype):
    rows = 3000
    src = _table(rows, 24, dtype)
    indptr = torch.zeros(rows + 1, dtype=torch.int64)
    torch.cumsum(torch.randint(0, 50, (rows,)), 0, out=indptr[1:])
    table = gd.Table(src.clone(), "managed_host", cache_bytes=500 * 24 * src.element_size(), graph=indptr)
    assert table.cached_rows == 500
    index = torch.randint(0, rows, (8000,), device="cuda")
    assert torch.equal(table.gather(index).cpu(), src.index_select(0, index.cpu()))
    # scatter keeps the cached copies coherent
    upd = torch.randperm(rows)[:1000]
    new = _table(1000, 24, dtype)
    table.scatter(upd.cuda(), new.cuda())
    expect = src.clone().index_copy_(0, upd, new)
    assert torch.equal(table.gather(index).cpu(), expect.index_select(0, index.cpu()))


@cuda
@pytest.mark.parametrize("placement", ALL_PLACEMENTS)
def test_gpu_errors_and_context_survives(placement):
    table = gd.Table(torch.randn(100, 8), placement)
    bad = torch.tensor([0, 5, 99, 100, 7], device="cuda")
    with pytest.raises(IndexError, match=r"indices\[3\] = 100"):
        table.gather(bad)
    assert context_usable()
    with pytest.raises(IndexError, match=r"indices\[0\] = -1"):
        table.gather(torch.tensor([-1], device="cuda", dtype=torch.int32))
    with pytest.raises(IndexError, match=r"indices\[1\]"):
        table.scatter(torch.tensor([3, 1000], device="cuda"), torch.randn(2, 8, device="cuda"))
    with pytest.raises(TypeError):
        table.gather(torch.tensor([1.0], device="cuda"))
    with pytest.raises(ValueError):
        table.gather(torch.zeros(2, 2, dtype=torch.int64, device="cuda"))
    with pytest.raises(TypeError):
        table.scatter(torch.tensor([1], device="cuda"), torch.randn(1, 8, device="cuda", dtype=torch.float16))
    with pytest.raises(ValueError):
        table.scatter(torch.tensor([1], device="cuda"), torch.randn(1, 9, device="cuda"))
    assert context_usable()
    # a correct call after the errors gives correct rows
    index = torch.randint(0, 100, (50,), device="cuda")
    assert torch.equal(table.gather(index).cpu(), table.tensor.cpu().index_select(0, index.cpu()))


@cuda
def test_pageable_table_is_rejected():
    with pytest.raises(ValueError, match="pageable"):
        gd.gather(torch.randn(10, 4), torch.tensor([1], device="cuda"))
    assert context_usable()


@cuda
def test_placements_are_what_they_say():
    src = torch.randn(64, 4)
    assert gd.placement_of(src) == "pageable"
    assert gd.placement_of(gd.Table(torch.randn(64, 4), "pinned").tensor) == "pinned"
    assert gd.placement_of(gd.Table(torch.randn(64, 4), "managed_host").tensor) == "managed_host"
    assert gd.placement_of(gd.Table(torch.randn(64, 4), "device").tensor) == "device"
    assert gd.Table(torch.randn(64, 4), "auto").placement in ("managed_host", "pinned")


@cuda
def test_registered_table_lifetime():
    src = torch.randn(256, 16)
    alive = weakref.ref(src)
    table = gd.Table(src, "registered")
    assert gd.placement_of(src) == "pinned"
    del src
    gc.collect()
    assert alive() is not None, "a registered table must keep its source alive"
    index = torch.randint(0, 256, (100,), device="cuda")
    assert torch.equal(table.gather(index).cpu(), alive().index_select(0, index.cpu()))
    del table
    gc.collect()
    assert alive() is None, "deleting the table must release the source"

    again = torch.randn(256, 16)
    table = gd.Table(again, "registered")
    del table
    gc.collect()
    assert gd.placement_of(again) == "pageable", "deleting the handle must unregister"
    # registering again works (the first registration is gone)
    handle = gd.register_tensor(again)
    assert handle.active and gd.placement_of(again) == "pinned"
    with pytest.raises(ValueError):
        gd.register_tensor(again)  # overlapping registration
    handle.close()
    assert not handle.active and gd.placement_of(again) == "pageable"
    handle.close()  # idempotent
