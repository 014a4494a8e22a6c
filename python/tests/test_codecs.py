"""Row codecs through the extension: Table(x, codec=...) encodes on the host, gather decodes.

References, all independent of the kernel under test:
- the host decode reference (the op's CPU kernel, gnndirect::host_decode_row) on a CPU copy of
  the same encoded rows: the GPU gather must equal it bit for bit;
- a decoder written here in torch from the documented layouts (fp16/bf16 codes, int8/int4
  per-row affine scale * code + offset with the low nibble first, fp8 e4m3 * per-row scale);
- the encoder's documented error bounds against the fp32 input (device/codecs.hpp).
Outputs are poisoned first (recycled caching-allocator memory set to 0xFF: NaN for floats).
"""

import os
import sys

import pytest
import torch

import gnndirect_torch as gd
from gnndirect_torch._codecs import CODECS, canonical_codec

from conftest import ALL_PLACEMENTS, HOST_PLACEMENTS, cuda, poison_cuda_cache

LOSSY = ["fp16", "bf16", "int8", "fp8", "int4"]
OUT_DTYPES = [torch.float32, torch.float16, torch.bfloat16]


def features(rows, cols, generator=None, dtype=torch.float32):
    """Features shaped like real embeddings: heavy-tailed (Student-t, 3 dof) columns with scales
    over 3 decades and offsets; one all-equal row and one all-zero row (the affine codecs' scale-0
    case)."""
    z = torch.randn(rows, cols, generator=generator)
    chi2 = torch.randn(3, rows, cols, generator=generator).square().sum(0)
    scales = torch.pow(10.0, torch.rand(cols, generator=generator) * 3 - 1.5)
    x = z * torch.rsqrt(chi2 / 3) * scales + torch.randn(cols, generator=generator) * scales
    if rows > 2:
        x[1] = 0.75
        x[2] = 0.0
    return x.to(dtype)


def torch_decode(codec, codes, meta, cols):
    """The documented decode, in torch (float32 out), of encoded rows `codes` [n, stride] uint8."""
    name = canonical_codec(codec)
    if name in ("fp16", "bf16"):
        dtype = torch.float16 if name == "fp16" else torch.bfloat16
        return codes[:, : 2 * cols].contiguous().view(dtype).float()
    if name == "int8_affine":
        return codes[:, :cols].double() * meta[:, :1].double() + meta[:, 1:2].double()
    if name == "int4_affine":
        k = torch.arange(cols)
        nibbles = (codes[:, k // 2].int() >> (4 * (k % 2)).int()) & 0xF
        return nibbles.double() * meta[:, :1].double() + meta[:, 1:2].double()
    assert name == "fp8_e4m3"
    return codes[:, :cols].contiguous().view(torch.float8_e4m3fn).float() * meta[:, :1]


def error_bound(codec, x):
    """Per-value bound of |decode(encode(x)) - x| (device/codecs.hpp), as float64 [rows, cols]."""
    x = x.double()
    name = canonical_codec(codec)
    hi, lo = x.max(1, keepdim=True).values, x.min(1, keepdim=True).values
    amax = x.abs().max(1, keepdim=True).values
    slack = 1e-6 * x.abs() + 1e-30  # fp32 rounding of the decode itself
    if name == "fp16":
        return x.abs() * 2.0 ** -11 + 2.0 ** -25 + slack
    if name == "bf16":
        return x.abs() * 2.0 ** -8 + slack
    if name == "int8_affine":
        return (hi - lo) / 510 * (1 + 1e-5) + slack + 1e-6 * amax
    if name == "int4_affine":
        return (hi - lo) / 30 * (1 + 1e-5) + slack + 1e-6 * amax
    return x.abs() / 16 + amax * 2.0 ** -18 + slack + 1e-6 * amax


def cpu_reference(table, index, dtype):
    """The host decode reference on a CPU copy of `table`'s encoded rows."""
    meta = None if table.meta is None else table.meta.cpu()
    return torch.ops.gnndirect.gather_encoded(table.tensor.cpu(), meta, table.cols, table.codec,
                                              index.cpu(), None, None, dtype, True)


# -- pure Python (no extension needed) -----------------------------------------------------------

def test_codec_names():
    assert canonical_codec(None) is None
    assert canonical_codec("int8") == "int8_affine" and canonical_codec("INT4") == "int4_affine"
    assert canonical_codec("fp8") == "fp8_e4m3" and canonical_codec("bf16") == "bf16"
    assert set(CODECS.values()) == {"fp32", "fp16", "bf16", "int8_affine", "fp8_e4m3", "int4_affine"}
    with pytest.raises(ValueError, match="unknown codec 'int3'"):
        canonical_codec("int3")
    with pytest.raises(TypeError):
        canonical_codec(8)


def test_table_refuses_bad_codec_arguments_before_any_work():
    x = torch.randn(8, 4)
    with pytest.raises(ValueError, match="unknown codec"):
        gd.Table(x, codec="int5", device="cpu")
    with pytest.raises(TypeError, match="float32, float16 or bfloat16"):
        gd.Table(torch.ones(8, 4, dtype=torch.int32), codec="int8", device="cpu")
    with pytest.raises(TypeError, match="float32, float16 or bfloat16"):
        gd.Table(x.double(), codec="int8", device="cpu")
    with pytest.raises(ValueError, match="non-empty"):
        gd.Table(torch.empty(0, 4), codec="int8", device="cpu")
    with pytest.raises(ValueError, match="non-empty"):
        gd.Table(torch.empty(5, 0), codec="fp8", device="cpu")


# -- host-reference mode (the extension, no GPU) --------------------------------------------------

@pytest.mark.parametrize("codec", LOSSY)
@pytest.mark.parametrize("cols", [1, 7, 100, 128])
def test_cpu_table_decodes_as_documented(_extension, seed, codec, cols):
    g = torch.Generator().manual_seed(seed)
    rows = 67
    x = features(rows, cols, g)
    table = gd.Table(x, codec=codec, device="cpu")
    assert table.shape == (rows, cols) and table.dtype == torch.float32 and table.encoded
    _name, stride, meta_floats, payload = _extension.codec_layout(codec, cols)
    assert table.tensor.dtype == torch.uint8 and table.tensor.shape == (rows, stride)
    assert stride % 64 == 0 and stride >= payload
    assert (table.meta is None) == (meta_floats == 0)
    index = torch.randint(0, rows, (301,), generator=g)
    out = table.gather(index)
    expected = torch_decode(codec, table.tensor, table.meta, cols).double()[index]
    # one float32 rounding apart at most (the kernel's fused multiply-add vs float64 here)
    magnitude = expected.abs()
    if table.meta is not None and table.meta.shape[1] == 2:
        magnitude = magnitude + table.meta[index, 1:2].double().abs()
    assert bool(((out.double() - expected).abs() <= magnitude * 2.0 ** -23 + 1e-38).all())
    err = (out.double() - x.double()[index]).abs()
    assert bool((err <= error_bound(codec, x)[index]).all()), float((err - error_bound(codec, x)[index]).max())
    # the all-equal and the all-zero rows decode exactly with the affine codecs
    if canonical_codec(codec).endswith("affine"):
        both = table.gather(torch.tensor([1, 2]))
        assert bool((both[0] == 0.75).all()) and bool((both[1] == 0).all())


@pytest.mark.parametrize("codec", LOSSY)
def test_codec_error_report_is_the_measured_error(_extension, seed, codec):
    g = torch.Generator().manual_seed(seed)
    x = features(500, 33, g)
    table = gd.Table(x, codec=codec, device="cpu")
    decoded = table.gather(torch.arange(500)).double()
    err = (decoded - x.double()).abs()
    report = table.codec_error
    torch.testing.assert_close(report.max_abs, err.max(0).values, rtol=0, atol=0)
    torch.testing.assert_close(report.mean_abs, err.mean(0), rtol=1e-9, atol=1e-300)
    peak = x.double().abs().max(0).values
    torch.testing.assert_close(report.relative, torch.where(peak > 0, err.max(0).values / peak,
                                                            torch.zeros_like(peak)), rtol=1e-12, atol=0)
    assert report.summary()["max_abs"] == float(err.max())


@pytest.mark.parametrize("input_dtype", [torch.float16, torch.bfloat16])
def test_half_inputs_encode_from_their_values(_extension, seed, input_dtype):
    g = torch.Generator().manual_seed(seed)
    x = features(64, 20, g, input_dtype)
    table = gd.Table(x, codec="int8", device="cpu")
    reference = gd.Table(x.float(), codec="int8", device="cpu")
    assert torch.equal(table.tensor, reference.tensor) and torch.equal(table.meta, reference.meta)


@pytest.mark.parametrize("codec", ["int8", "fp8", "int4", "fp16", "bf16", "fp32"])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_values_are_named(_extension, codec, bad):
    x = torch.randn(40, 6)
    x[17, 4] = bad
    with pytest.raises(ValueError, match="row 17 column 4"):
        gd.Table(x, codec=codec, device="cpu")


def test_fp16_range_is_checked(_extension):
    x = torch.randn(10, 3)
    x[3, 2] = 1e6
    with pytest.raises(ValueError, match="row 3 column 2"):
        gd.Table(x, codec="fp16", device="cpu")
    gd.Table(x, codec="bf16", device="cpu")  # within bf16's range


def test_gather_dtype_rules(_extension):
    x = torch.randn(16, 8)
    table = gd.Table(x, codec="int8", device="cpu")
    assert table.gather(torch.arange(4), dtype=torch.bfloat16).dtype == torch.bfloat16
    for bad in (torch.float64, torch.int8, torch.uint8):
        with pytest.raises(TypeError, match="float32, float16 or bfloat16"):
            table.gather(torch.arange(4), dtype=bad)
    plain = gd.Table(x, device="cpu")
    with pytest.raises(TypeError, match="own dtype"):
        plain.gather(torch.arange(4), dtype=torch.float16)
    identity = gd.Table(x.half(), codec="fp32", device="cpu")
    assert identity.tensor.dtype == torch.float32
    out = identity.gather(torch.arange(4), dtype=torch.bfloat16)
    assert torch.equal(out, x.half().float()[:4].bfloat16())
    with pytest.raises(IndexError):
        table.gather(torch.tensor([0, 16]))


def test_loader_decodes_float32_in_the_pipeline_and_half_dtypes_after_the_batch():
    from gnndirect_torch.loader import decodes_after_batch
    for dtype in (None, torch.float32):
        assert not decodes_after_batch(True, dtype)  # the pipeline's own feature gather decodes
    for dtype in (torch.float16, torch.bfloat16):
        assert decodes_after_batch(True, dtype)  # the table's gather, after the batch
    for dtype in (None, torch.float32, torch.float16):
        assert not decodes_after_batch(False, dtype)  # plain tables: nothing to decode


def test_pipeline_binding_checks_encoded_arguments_on_the_host(_extension):
    # refused before any GPU work (the checks run on CPU tensors too)
    n, cols = 50, 12
    indptr = torch.arange(n + 1, dtype=torch.int64)
    indices = (torch.arange(n, dtype=torch.int64) + 1) % n
    labels = torch.zeros(n, dtype=torch.int64)
    train = torch.arange(10, dtype=torch.int64)
    config = _extension.PipelineOptions()
    _name, stride, _meta_floats, payload = _extension.codec_layout("fp16", cols)
    codes = torch.zeros((n, stride), dtype=torch.uint8)
    with pytest.raises(ValueError, match="unknown codec .int3."):
        _extension.Pipeline(indptr, indices, codes, labels, train, config, codec="int3", cols=cols)
    with pytest.raises(TypeError, match="uint8"):
        _extension.Pipeline(indptr, indices, codes.float(), labels, train, config, codec="fp16", cols=cols)
    with pytest.raises(ValueError, match="cannot hold"):
        _extension.Pipeline(indptr, indices, codes, labels, train, config, codec="fp16", cols=stride)
    with pytest.raises(ValueError, match="packed"):
        _extension.Pipeline(indptr, indices, codes[:, :payload], labels, train, config, codec="fp16", cols=cols)
    with pytest.raises(ValueError, match="metadata"):
        _extension.Pipeline(indptr, indices, codes, labels, train, config, codec="int8", cols=cols)
    with pytest.raises(ValueError, match="pass codec"):
        _extension.Pipeline(indptr, indices, torch.zeros((n, cols)), labels, train, config,
                            meta=torch.zeros((n, 2)))


def test_scatter_encodes_on_the_fly_cpu(_extension, seed):
    g = torch.Generator().manual_seed(seed)
    x = features(50, 12, g)
    table = gd.Table(x, codec="int4", device="cpu")
    index = torch.tensor([3, 9, 3, 49])
    src = features(4, 12, g)
    table.scatter(index, src)
    expected = x.clone()
    expected[9], expected[3], expected[49] = src[1], src[2], src[3]  # last duplicate wins
    reference = gd.Table(expected, codec="int4", device="cpu")
    assert torch.equal(table.tensor, reference.tensor) and torch.equal(table.meta, reference.meta)
    with pytest.raises(IndexError, match="index\\[1\\] = 50"):
        table.scatter(torch.tensor([0, 50]), src[:2])
    bad = src[:1].clone()
    bad[0, 5] = float("nan")
    before = table.tensor.clone()
    with pytest.raises(ValueError, match="column 5"):
        table.scatter(torch.tensor([7]), bad)
    assert torch.equal(table.tensor, before)  # nothing written
    with pytest.raises(TypeError):
        table.scatter(torch.tensor([7]), src[:1].double())


@pytest.mark.parametrize("codec", ["int8", "fp16", "fp32", None])
def test_from_npy_encodes_while_streaming(_extension, seed, tmp_path, monkeypatch, codec):
    np = pytest.importorskip("numpy")
    import gnndirect_torch.table as table_module
    monkeypatch.setattr(table_module, "_ENCODE_CHUNK_BYTES", 1000)  # many chunks
    g = torch.Generator().manual_seed(seed)
    x = features(300, 10, g)
    path = tmp_path / "x.npy"
    np.save(path, x.numpy())
    table = gd.Table.from_npy(path, codec=codec, device="cpu")
    reference = gd.Table(x, codec=codec, device="cpu")
    assert torch.equal(table.tensor, reference.tensor)
    if codec == "int8":
        assert torch.equal(table.meta, reference.meta)
        torch.testing.assert_close(table.codec_error.max_abs, reference.codec_error.max_abs, rtol=0, atol=0)
        torch.testing.assert_close(table.codec_error.mean_abs, reference.codec_error.mean_abs, rtol=1e-12, atol=0)
    bad = x.numpy().copy()
    bad[123, 7] = np.inf
    np.save(path, bad)
    if codec is not None and codec != "fp32":
        with pytest.raises(ValueError, match="row 123 column 7"):
            gd.Table.from_npy(path, codec=codec, device="cpu")
    np.save(path, np.arange(12, dtype=np.int32).reshape(4, 3))
    if codec in ("int8", "fp16"):
        with pytest.raises(TypeError, match="floating-point"):
            gd.Table.from_npy(path, codec=codec, device="cpu")


# -- GPU ---------------------------------------------------------------------------------------

@cuda
@pytest.mark.parametrize("codec", LOSSY)
@pytest.mark.parametrize("placement", ALL_PLACEMENTS)
@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
def test_gpu_gather_equals_host_decode(_extension, seed, codec, placement, out_dtype, index_dtype):
    g = torch.Generator().manual_seed(seed)
    rows, cols = 1000, [100, 128, 602][seed % 3]
    x = features(rows, cols, g)
    table = gd.Table(x, placement, codec=codec)
    assert table.placement == placement and table.tensor.is_cuda == (placement == "device")
    assert table.meta is None or table.meta.is_cuda
    index = torch.randint(0, rows, (777,), generator=g).to(index_dtype)
    poison_cuda_cache()
    out = table.gather(index.cuda(), dtype=out_dtype)
    assert out.is_cuda and out.dtype == out_dtype and out.shape == (777, cols)
    reference = cpu_reference(table, index, out_dtype)
    assert torch.equal(out.cpu().view(torch.int16 if out_dtype != torch.float32 else torch.int32),
                       reference.view(torch.int16 if out_dtype != torch.float32 else torch.int32))
    if out_dtype == torch.float32:
        err = (out.cpu().double() - x.double()[index.long()]).abs()
        assert bool((err <= error_bound(codec, x)[index.long()]).all())


@cuda
@pytest.mark.parametrize("codec", ["int8", "int4", "fp8"])
def test_gpu_bad_index_raises_and_context_survives(_extension, codec):
    from conftest import context_usable
    table = gd.Table(torch.randn(100, 16), "managed_host", codec=codec)
    with pytest.raises(IndexError, match="100"):
        table.gather(torch.tensor([1, 100, 2], device="cuda"))
    with pytest.raises(IndexError):
        table.gather(torch.tensor([-1], device="cuda"))
    assert context_usable()


@cuda
@pytest.mark.parametrize("codec", ["int8", "int4", "fp16"])
@pytest.mark.parametrize("placement", HOST_PLACEMENTS)
def test_encoded_cache_tier_holds_encoded_rows(_extension, seed, codec, placement):
    g = torch.Generator().manual_seed(seed)
    rows, cols = 2000, 100
    x = features(rows, cols, g)
    plain = gd.Table(x, placement, codec=codec)
    hot = torch.randperm(rows, generator=g)[:300]
    tiered = gd.Table(x, placement, codec=codec, cache_bytes=300 * plain.row_stride_bytes, hot_rows=hot)
    assert tiered.cached_rows == 300
    assert tiered.cache_rows_tensor.dtype == torch.uint8
    assert tiered.cache_rows_tensor.shape[1] == plain.row_stride_bytes
    # the same budget of fp32 rows would hold cols * 4 / stride times fewer rows
    assert plain.row_stride_bytes < cols * 4
    index = torch.cat([hot[:200], torch.randint(0, rows, (400,), generator=g)])
    index = index[torch.randperm(index.numel(), generator=g)].cuda()
    poison_cuda_cache()
    assert torch.equal(tiered.gather(index), plain.gather(index))
    # scatter keeps the tier coherent (encoded on the fly)
    src = features(3, cols, g)
    targets = torch.stack([hot[0], hot[1], torch.tensor(int(hot[0]))])  # a cached duplicate
    tiered.scatter(targets.cuda(), src.cuda())
    plain.scatter(targets.cuda(), src.cuda())
    assert torch.equal(tiered.gather(index), plain.gather(index))
    expected = gd.Table(src[1:], codec=codec, device="cpu").gather(torch.tensor([1, 0]))
    assert torch.equal(tiered.gather(targets[:2].cuda()).cpu(), expected)


@cuda
@pytest.mark.parametrize("placement", ALL_PLACEMENTS)
def test_gpu_scatter_into_encoded_table(_extension, seed, placement):
    g = torch.Generator().manual_seed(seed)
    x = features(500, 40, g)
    table = gd.Table(x, placement, codec="fp8")
    index = torch.randint(0, 500, (64,), generator=g)
    src = features(64, 40, g)
    table.scatter(index.cuda(), src.cuda())
    expected = x.clone()
    for i in range(64):  # sequential: the last duplicate wins
        expected[int(index[i])] = src[i]
    reference = gd.Table(expected, codec="fp8", device="cpu")
    everything = torch.arange(500)
    assert torch.equal(table.gather(everything.cuda()).cpu(), reference.gather(everything))


@cuda
def test_from_npy_codec_into_placements(_extension, seed, tmp_path):
    np = pytest.importorskip("numpy")
    g = torch.Generator().manual_seed(seed)
    x = features(400, 24, g)
    path = tmp_path / "x.npy"
    np.save(path, x.numpy())
    index = torch.randint(0, 400, (100,), generator=g)
    reference = gd.Table(x, codec="int8", device="cpu").gather(index)
    for placement in ALL_PLACEMENTS:
        table = gd.Table.from_npy(path, placement, codec="int8")
        assert table.placement == placement
        assert torch.equal(table.gather(index.cuda()).cpu(), reference)


def _loader_setup(g, n=3000, cols=64, index_dtype=torch.int64):
    """(indptr, indices, x, labels, train) of a random graph for the loader tests."""
    from conftest import random_csr
    indptr, indices = random_csr(n, 12, index_dtype, generator=g)
    x = features(n, cols, g)
    labels = torch.randint(0, 5, (n,), generator=g)
    train = torch.randperm(n, generator=g)[:700].to(index_dtype)
    return indptr, indices, x, labels, train


def _check_decoded_batches(loader, table, labels):
    """Every batch of one epoch: x float32, equal bit for bit to the table's own decoding gather
    and to the host decode of a CPU copy of the encoded rows (independent of both kernels);
    labels of the seeds. Returns the decoded bytes the batches hold."""
    decoded = 0
    batches = 0
    for batch in loader:
        n_id = batch.n_id
        assert batch.x.dtype == torch.float32 and batch.x.shape == (n_id.numel(), table.cols)
        reference = cpu_reference(table, n_id, torch.float32)
        assert torch.equal(batch.x.cpu().view(torch.int32), reference.view(torch.int32))
        assert torch.equal(batch.x, table.gather(n_id))
        assert torch.equal(batch.y.cpu(), labels[n_id[: batch.batch_size].long().cpu()])
        decoded += n_id.numel() * table.cols * 4
        batches += 1
    assert batches == len(loader)
    return decoded


@cuda
@pytest.mark.parametrize("codec", LOSSY)
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
@pytest.mark.parametrize("tier", [False, True])
def test_neighbor_loader_decodes_in_the_pipeline(_extension, seed, codec, index_dtype, tier):
    g = torch.Generator().manual_seed(seed)
    n = 3000
    indptr, indices, x, labels, train = _loader_setup(g, n, index_dtype=index_dtype)
    table = gd.Table(x, "managed_host", codec=codec)
    graph = gd.Graph(indptr, indices)
    poison_cuda_cache()  # the pipeline's slots come from the caching allocator
    loader = gd.NeighborLoader(graph, table, labels, train, fanouts=[5, 3], batch_size=128,
                               seed=seed,
                               cache_fraction=0.2 if tier else None)
    # the pipeline's tier holds encoded rows: the budget counts encoded bytes
    assert loader.cached_rows == (int(n * 0.2) if tier else 0)
    assert loader.cache_bytes == (int(n * 0.2) * table.row_stride_bytes if tier else 0)
    decoded = _check_decoded_batches(loader, table, labels)
    assert loader.counters()["feature_bytes"] == decoded  # decoded float32 bytes, not encoded ones
    # scatter reaches the pipeline (codes, metadata and its tier): hot (highest-degree) rows
    # and others, with a duplicate (the last one wins)
    hot = torch.topk(indptr[1:] - indptr[:-1], 8).indices
    targets = torch.cat([hot, torch.randint(0, n, (8,), generator=g), hot[:1]])
    table.scatter(targets.cuda(), features(targets.numel(), table.cols, g).cuda())
    _check_decoded_batches(loader, table, labels)
    loader.close()


@cuda
def test_neighbor_loader_decodes_half_dtypes_after_the_batch(_extension, seed):
    g = torch.Generator().manual_seed(seed)
    indptr, indices, x, labels, train = _loader_setup(g)
    table = gd.Table(x, "managed_host", codec="int8", cache_fraction=0.1)
    graph = gd.Graph(indptr, indices)
    with pytest.raises(ValueError, match="own cache tier"):
        gd.NeighborLoader(graph, table, labels, train, fanouts=[5, 3], batch_size=128, cache_bytes=1 << 20,
                          dtype=torch.bfloat16)
    with pytest.raises(TypeError):
        gd.NeighborLoader(graph, table, labels, train, fanouts=[5, 3], batch_size=128, dtype=torch.float64)
    loader = gd.NeighborLoader(graph, table, labels, train, fanouts=[5, 3], batch_size=128,
                               dtype=torch.bfloat16)
    assert loader.cached_rows == 0  # the placeholder column is device-resident: no pipeline tier
    batches = 0
    for batch in loader:
        assert batch.x.dtype == torch.bfloat16 and batch.x.shape == (batch.n_id.numel(), 64)
        assert torch.equal(batch.x.cpu(), cpu_reference(table, batch.n_id, torch.bfloat16))
        assert torch.equal(batch.y.cpu(), labels[batch.n_id[: batch.batch_size].cpu()])
        batches += 1
    assert batches == len(loader)
    loader.close()


@cuda
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
def test_pipeline_binding_reads_fp32_codes_as_plain_rows(_extension, seed, index_dtype):
    # the identity codec's codes (padded float32 rows) go through the plain pipeline: only the
    # binding reaches this (Table(codec="fp32") stores plain rows)
    g = torch.Generator().manual_seed(seed)
    n, cols = 1000, 37
    indptr, indices, x, labels, train = _loader_setup(g, n, cols, index_dtype)
    _name, stride, _meta_floats, _payload = _extension.codec_layout("fp32", cols)
    codes = torch.empty((n, stride), dtype=torch.uint8)
    _extension.encode_rows(x, "fp32", codes, torch.empty((n, 0)), torch.zeros((3, cols), dtype=torch.float64), 0)
    graph = gd.Graph(indptr, indices)
    config = _extension.PipelineOptions()
    config.set("fanouts", [4])
    config.set("batch_size", 200)
    pipeline = _extension.Pipeline(graph.indptr, graph.indices, codes.cuda(), labels.cuda(), train, config,
                                   codec="fp32", cols=cols)
    pipeline.start_epoch(0)
    out = pipeline.next()
    n_id = out.layers[0]
    assert out.x.dtype == torch.float32 and torch.equal(out.x.cpu(), x[n_id.long().cpu()])
    del out, pipeline


@cuda
def test_feature_store_returns_decoded_tensors(_extension, seed):
    pytest.importorskip("torch_geometric")
    from gnndirect_torch.pyg import GnnDirectFeatureStore
    g = torch.Generator().manual_seed(seed)
    x = features(800, 50, g)
    with pytest.raises(ValueError, match="unknown codec"):
        GnnDirectFeatureStore(codec="int2")
    with pytest.raises(TypeError):
        GnnDirectFeatureStore(codec="int8", dtype=torch.int8)
    fs = GnnDirectFeatureStore("managed_host", codec="int4", dtype=torch.float16)
    fs.put_tensor(x, group_name=None, attr_name="x", index=None)
    index = torch.randint(0, 800, (200,), generator=g)
    out = fs.get_tensor(group_name=None, attr_name="x", index=index)
    reference = gd.Table(x, codec="int4", device="cpu").gather(index, dtype=torch.float16)
    assert out.is_cuda and out.dtype == torch.float16 and torch.equal(out.cpu(), reference)
    whole = fs.get_tensor(group_name=None, attr_name="x", index=None)
    assert whole.shape == (800, 50) and whole.dtype == torch.float16 and whole.is_cuda
    assert tuple(fs.get_tensor_size(group_name=None, attr_name="x")) == (800, 50)


# -- the GraphSAGE training benchmark and the accuracy bench --------------------------------

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench")


def test_train_graphsage_codec_option_parses():
    sys.path.insert(0, BENCH)
    train_graphsage = pytest.importorskip("train_graphsage")
    assert train_graphsage.parse_args([]).codec is None
    assert train_graphsage.parse_args(["--codec", "none"]).codec is None
    for codec in ("fp32", "bf16", "int8", "fp8", "int4"):
        args = train_graphsage.parse_args(["--codec", codec])
        assert args.codec == codec and canonical_codec(args.codec) is not None
    with pytest.raises(SystemExit):
        train_graphsage.parse_args(["--codec", "int2"])
    assert train_graphsage.parse_args(["--features", "gaussian"]).features == "gaussian"


def test_realistic_features_are_heavy_tailed_with_spread_scales():
    sys.path.insert(0, BENCH)
    train_graphsage = pytest.importorskip("train_graphsage")
    model = train_graphsage.realistic_feature_model(8, 100, 0, torch.device("cpu"))
    labels = torch.randint(0, 8, (20000,))
    x = train_graphsage.realistic_rows(model, labels, 0.2, torch.Generator().manual_seed(1))
    assert x.shape == (20000, 100) and bool(torch.isfinite(x).all())
    std = x.std(0)
    assert float(std.max() / std.min()) > 30  # column scales over ~2.5 decades
    z = (x - x.mean(0)) / std
    assert float((z ** 4).mean(0).median()) > 4  # heavier tails than a Gaussian's 3
    # labels are learnable: class means differ by more than their standard error
    means = torch.stack([z[labels == c].mean(0) for c in range(8)])
    assert float(means.std(0).mean()) > 0.05


def test_codec_accuracy_bench_commands(capsys):
    sys.path.insert(0, BENCH)
    import codec_accuracy
    assert codec_accuracy.main(["--dry-run", "--codecs", "fp32,int8", "--shape", "papers100m",
                                "--scale", "0.25", "--", "--cache-fraction", "0.2"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "train_graphsage.py" in line]
    assert len(lines) == 2
    assert "--paths gnndirect,gpu --codec fp32" in lines[0] and "--paths gnndirect --codec int8" in lines[1]
    assert all("--scale 0.25" in line and line.endswith("--cache-fraction 0.2") for line in lines)
    with pytest.raises(SystemExit):
        codec_accuracy.parse_args(["--codecs", "int2"])


@pytest.mark.parametrize("codec", ["int8", "fp16", "int4"])
def test_gather_encoded_opcheck_cpu(_extension, codec):
    # schema, fake kernel (torch.compile / FakeTensor) and dispatch of the op on CPU tensors
    table = gd.Table(torch.randn(40, 10), codec=codec, device="cpu")
    index = torch.randint(0, 40, (17,))
    for dtype in (None, torch.bfloat16):
        torch.library.opcheck(torch.ops.gnndirect.gather_encoded.default,
                              (table.tensor, table.meta, table.cols, table.codec, index, None, None, dtype, True))


@cuda
@pytest.mark.parametrize("codec", ["int8", "fp8"])
def test_gather_encoded_opcheck_cuda(_extension, codec):
    # device-placed codes: opcheck clones its inputs, which would make host-placed codes pageable
    table = gd.Table(torch.randn(40, 10), "device", codec=codec)
    index = torch.randint(0, 40, (17,), device="cuda")
    torch.library.opcheck(torch.ops.gnndirect.gather_encoded.default,
                          (table.tensor, table.meta, table.cols, table.codec, index, None, None, torch.float16, True))
