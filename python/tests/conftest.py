"""Shared fixtures of the gnndirect_torch tests: devices, random graphs, poisoning."""

import os
import random

import pytest
import torch

import gnndirect_torch as gd

HAS_CUDA = torch.cuda.is_available()
#: Marks tests that need a GPU (skipped, not failed, without one).
cuda = pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")

#: Host placements every GPU test runs over ("device" is added where it applies).
HOST_PLACEMENTS = ["registered", "pinned", "managed_host"]
ALL_PLACEMENTS = HOST_PLACEMENTS + ["device"]
DTYPES = [torch.float32, torch.float16, torch.bfloat16]
INDEX_DTYPES = [torch.int32, torch.int64]


@pytest.fixture(scope="session")
def _extension():
    """Loads the compiled extension (an ImportError here means the build failed)."""
    return gd.load_extension()


@pytest.fixture
def seed(request):
    """A fresh random seed per test, printed so that a failure can be replayed
    (GNNDIRECT_TEST_SEED=... overrides)."""
    value = int(os.environ.get("GNNDIRECT_TEST_SEED", random.SystemRandom().randrange(2**31)))
    torch.manual_seed(value)
    print(f"[seed] {request.node.name}: GNNDIRECT_TEST_SEED={value}")
    return value


def random_csr(num_nodes, max_degree, index_dtype=torch.int64, offset_dtype=torch.int64,
               generator=None):
    """A random CSR without duplicate neighbours in a list (degrees 0..max_degree, some 0)."""
    degrees = torch.randint(0, max_degree + 1, (num_nodes,), generator=generator)
    degrees[:: max(1, num_nodes // 10)] = 0
    neighbours = []
    for v in range(num_nodes):
        d = int(degrees[v])
        neighbours.append(torch.randperm(num_nodes, generator=generator)[:d])
    indices = torch.cat(neighbours) if neighbours else torch.empty(0, dtype=torch.int64)
    indptr = torch.zeros(num_nodes + 1, dtype=torch.int64)
    torch.cumsum(degrees, 0, out=indptr[1:])
    return indptr.to(offset_dtype), indices.to(index_dtype)


def poison_cuda_cache(num_bytes=64 << 20):
    """Fill memory of torch's caching allocator with 0xFF and give it back, so that an op that
    leaves part of its (cache-recycled) output unwritten shows NaN/garbage."""
    if HAS_CUDA:
        block = torch.full((num_bytes,), 0xFF, dtype=torch.uint8, device="cuda")
        del block


def context_usable():
    """True when the CUDA context still runs kernels (no sticky error)."""
    torch.cuda.synchronize()
    return float((torch.ones(4, device="cuda") * 2).sum().item()) == 8.0
