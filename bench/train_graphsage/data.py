"""The generated dataset: a planted-community graph shaped like ogbn-products or papers100M, its
"realistic" or "gaussian" features (see the package doc), created straight in their host
placement."""

from __future__ import annotations

import torch

import gnndirect_torch as gd


#: Rows (features) or elements (indices) moved per step into the host placement: bounds the extra
#: host memory of generation to one chunk.
GENERATE_CHUNK = 1 << 20


def host_tensor(shape, dtype, placement):
    """An empty CPU tensor to fill in place: gnndirect_torch.empty in `placement` (pinned /
    managed_host / auto, so that Table and Graph adopt it without a second copy), or a plain
    (pageable) tensor when `placement` is None (CPU runs, and 'registered', which pins it in
    place later)."""
    if placement is None:
        return torch.empty(shape, dtype=dtype)
    return gd.empty(shape, dtype, placement)


def realistic_feature_model(c, f, seed, device):
    """The fixed parts of the "realistic" features (see the module doc): class embeddings
    [c, r], a projection [r, f] scaled so each column's signal variance is that of the old
    generator's centroids, per-column scales (log-uniform over 2.5 decades) and offsets."""
    g = torch.Generator(device=device).manual_seed(seed + 1)
    r = min(16, f)
    classes = torch.randn(c, r, generator=g, device=device)
    projection = torch.randn(r, f, generator=g, device=device) / (r ** 0.5)
    scales = torch.pow(10.0, torch.rand(f, generator=g, device=device) * 2.5 - 1.25)
    offsets = torch.randn(f, generator=g, device=device) * 0.5 * scales
    return classes, projection, scales, offsets


def realistic_rows(model, labels, signal, g):
    """Feature rows of nodes with `labels`: (class signal + Student-t(5) noise of unit variance)
    * column scale + column offset."""
    classes, projection, scales, offsets = model
    n, f = labels.shape[0], projection.shape[1]
    rows = (classes[labels] @ projection) * signal
    z = torch.randn(n, f, generator=g, device=labels.device)
    chi2 = torch.randn(5, n, f, generator=g, device=labels.device).square().sum(0)
    rows += z * torch.rsqrt(chi2 / 5.0) * (0.6 ** 0.5)  # t(5) has variance 5/3 (kurtosis 9)
    return rows * scales + offsets


def generate(shape, seed, device, signal, p_in, placement=None, features="realistic"):
    """Planted-community graph: one community per class (Zipf-like sizes), log-normal in-degrees
    (spread shape["degree_sigma"], default 0.9), a fraction p_in of each node's in-neighbours from
    its own community, features "realistic" (see the module doc) or "gaussian" (class centroid *
    signal + N(0, 1) noise). Labels are learnable from features and neighbourhoods.
    Returns CPU tensors (indptr int64, indices int64, x fp32, y int64) and the splits. The
    features and indices are created straight in `placement` (see host_tensor) and filled chunk
    by chunk from `device`, so that the largest arrays exist once in host memory: the Table and
    Graph of the gnndirect path adopt them without a copy (papers100M at full scale)."""
    g = torch.Generator(device=device).manual_seed(seed)
    n, e, f, c = shape["num_nodes"], shape["num_edges"], shape["num_features"], shape["num_classes"]
    sizes = 1.0 / (torch.arange(c, device=device, dtype=torch.float64) + 4.0)
    y = torch.multinomial(sizes / sizes.sum(), n, replacement=True, generator=g)
    sigma = shape.get("degree_sigma", 0.9)  # log-normal spread of the degrees (twitter: heavier tail)
    weight = torch.exp(torch.randn(n, generator=g, device=device, dtype=torch.float64) * sigma)
    deg = torch.clamp((weight / weight.sum() * e).floor().to(torch.int64), min=1)
    indptr = torch.zeros(n + 1, dtype=torch.int64, device=device)
    torch.cumsum(deg, 0, out=indptr[1:])
    total = int(indptr[-1])
    dst = torch.repeat_interleave(torch.arange(n, device=device), deg, output_size=total)
    order = torch.argsort(y)
    counts = torch.bincount(y, minlength=c)
    starts = torch.cumsum(counts, 0) - counts
    community = y[dst]
    del dst
    pick = (torch.rand(total, generator=g, device=device) * counts[community]).floor().to(torch.int64)
    same = order[starts[community] + pick]
    del pick, community
    other = torch.randint(0, n, (total,), generator=g, device=device)
    indices = torch.where(torch.rand(total, generator=g, device=device) < p_in, same, other)
    del same, other
    if device.type == "cuda":  # the placement's choice and checks see the GPU's real free memory
        torch.cuda.empty_cache()
    placed_indices = host_tensor((total,), torch.int64, placement)
    for begin in range(0, total, GENERATE_CHUNK * 16):
        end = min(total, begin + GENERATE_CHUNK * 16)
        placed_indices[begin:end].copy_(indices[begin:end])
    del indices
    if device.type == "cuda":
        torch.cuda.empty_cache()
    centroids = torch.randn(c, f, generator=g, device=device)
    model = realistic_feature_model(c, f, seed, device) if features == "realistic" else None
    x = host_tensor((n, f), torch.float32, placement)
    for begin in range(0, n, GENERATE_CHUNK):  # one chunk of rows at a time on `device`
        end = min(n, begin + GENERATE_CHUNK)
        if model is not None:
            rows = realistic_rows(model, y[begin:end], signal, g)
        else:
            rows = centroids[y[begin:end]] * signal + torch.randn(end - begin, f, generator=g, device=device)
        x[begin:end].copy_(rows)
        del rows
    perm = torch.randperm(n, generator=g, device=device)
    train = perm[: shape["num_train"]]
    test = perm[shape["num_train"] + shape["num_val"]: shape["num_train"] + shape["num_val"] + shape["num_test"]]
    return (indptr.cpu(), placed_indices, x, y.cpu(), train.cpu(), test.cpu())
