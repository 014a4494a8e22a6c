"""Errors as the Python user sees them: no build-machine paths in messages (the library's
"file:line: " moved to ``gnndirect_location``), and without a GPU errors that point to
device="cpu" instead of torch's or the CUDA runtime's words."""

import re

import pytest
import torch

import gnndirect_torch as gd
from gnndirect_torch import _extension
from gnndirect_torch._util import ALLOCATION_TAG

from conftest import HAS_CUDA, cuda

#: A source location as the library's messages used to start with.
LOCATION = re.compile(r"[^\s:]+\.(hpp|cuh|inl|cpp|cu|h):\d+")


def _bad_graph():
    """A CPU CSR whose indices[2] is out of range (the library's CSR validation rejects it)."""
    indptr = torch.tensor([0, 2, 3, 5], dtype=torch.int64)
    indices = torch.tensor([1, 2, 7, 0, 1], dtype=torch.int64)
    return indptr, indices


def test_library_errors_carry_no_build_path(_extension):
    indptr, indices = _bad_graph()
    with pytest.raises(ValueError) as caught:
        gd.Graph(indptr, indices, device="cpu")
    message = str(caught.value)
    assert "indices[2]" in message, message
    assert not LOCATION.search(message), f"a build path in the message: {message}"
    where = caught.value.gnndirect_location
    assert where is None or LOCATION.fullmatch(where), where


def test_sampling_index_error_carries_no_build_path(_extension):
    indptr = torch.tensor([0, 1, 2], dtype=torch.int64)
    indices = torch.tensor([1, 0], dtype=torch.int64)
    with pytest.raises(IndexError) as caught:
        gd.sample_neighbors(indptr, torch.tensor([0, 5]), 2, indices=indices)
    assert not LOCATION.search(str(caught.value)), str(caught.value)


def test_translation_of_tagged_and_located_messages():
    path = "/somewhere/include/gnndirect/detail/owners/allocation.hpp:31"
    memory = _extension._translated(RuntimeError(f"{ALLOCATION_TAG}{path}: cannot allocate 1024 bytes of pinned"))
    assert isinstance(memory, MemoryError) and str(memory) == "cannot allocate 1024 bytes of pinned"
    assert memory.gnndirect_location == path
    value = _extension._translated(ValueError(f"{path}: indices[3] = 9 is out of range"))
    assert str(value) == "indices[3] = 9 is out of range" and value.gnndirect_location == path
    body = "/somewhere/include/gnndirect/detail/pipeline/scheduler.inl:57"  # a body's error (issue #39)
    depth = _extension._translated(ValueError(f"{body}: batch_scheduler: depth must be >= 1"))
    assert str(depth) == "batch_scheduler: depth must be >= 1" and depth.gnndirect_location == body
    plain = _extension._translated(TypeError("gnndirect: index must be int32 or int64"))
    assert str(plain) == "gnndirect: index must be int32 or int64" and plain.gnndirect_location is None


def test_guarded_functions_translate_and_keep_results():
    def fails():
        raise ValueError("/x/y/csr_rules.hpp:12: indptr[0] must be 0")

    guarded = _extension._guarded(fails)
    with pytest.raises(ValueError, match=r"^indptr\[0\] must be 0$") as caught:
        guarded()
    assert caught.value.gnndirect_location == "/x/y/csr_rules.hpp:12"
    assert _extension._guarded(lambda a, b=2: a + b)(1, b=5) == 6


def test_no_gpu_errors_point_to_the_cpu_device(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    error = _extension._translated(RuntimeError("x.hpp:3: cudaPointerGetAttributes: CUDA driver version is "
                                                "insufficient for CUDA runtime version"))
    assert isinstance(error, RuntimeError) and 'device="cpu"' in str(error), str(error)
    with pytest.raises(RuntimeError, match='device="cpu"'):
        gd.Table(torch.randn(8, 4))  # device=None: the current CUDA device, and there is none
    with pytest.raises(RuntimeError, match='device="cpu"'):
        gd.Graph(torch.tensor([0, 1, 1]), torch.tensor([1]))


@pytest.mark.skipif(HAS_CUDA, reason="the machine without a GPU, as it is")
def test_without_a_gpu_the_defaults_say_what_to_do(_extension):
    for make in (lambda: gd.Table(torch.randn(8, 4), placement="auto"),
                 lambda: gd.Graph(torch.tensor([0, 1, 1]), torch.tensor([1])),
                 lambda: gd.placement_of(torch.zeros(4))):
        with pytest.raises(RuntimeError, match='device="cpu"'):
            make()
    table = gd.Table(torch.randn(8, 4), device="cpu")  # what the message says to do works
    assert torch.equal(table.gather(torch.tensor([3, 1])), table.tensor[[3, 1]])


@cuda
def test_with_a_gpu_the_defaults_still_work(_extension):
    table = gd.Table(torch.randn(8, 4), placement="auto")
    index = torch.tensor([3, 1], device="cuda")
    assert torch.equal(table.gather(index).cpu(), table.tensor[[3, 1]].cpu())
