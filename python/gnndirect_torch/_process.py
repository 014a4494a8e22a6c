"""Process rules of gnndirect_torch: no CUDA work in a child forked after the parent used CUDA
or on a machine where torch sees no GPU (the error says to use device="cpu"), and no pickling of
objects whose memory is placed for this process's CUDA context."""

from __future__ import annotations

import os

import torch

_state = {"cuda_used": False, "forked": False}

_FORK_MESSAGE = (
    "gnndirect_torch: {what} needs CUDA, but this process was forked (os.fork; e.g. a DataLoader "
    "worker with the default 'fork' start method) after its parent had used CUDA, and CUDA "
    "cannot be used in such a child (calls would fail as 'no CUDA device' or 'initialization "
    "error'). Do the gnndirect work in the main process: DataLoader(num_workers=0), or let the "
    "workers produce only index/seed tensors and gather or sample in the training loop, or use "
    "gnndirect_torch.NeighborLoader, which prepares batches on GPU side streams without worker "
    "processes.")

NO_GPU_MESSAGE = (
    "gnndirect_torch: {what} needs a CUDA GPU, and torch sees none here (torch.cuda.is_available() "
    "is False: no GPU, no NVIDIA driver, or CUDA_VISIBLE_DEVICES hides them). Without a GPU pass "
    "device=\"cpu\": Table(x, device=\"cpu\"), Graph(indptr, indices, device=\"cpu\"), "
    "GnnDirectFeatureStore(device=\"cpu\") / GnnDirectGraphStore(device=\"cpu\"); every op then runs "
    "the CPU kernels (gnndirect_torch.NeighborLoader needs a GPU: use PyG's NodeLoader with "
    "GnnDirectSampler over the stores).")

_PICKLE_MESSAGE = (
    "gnndirect_torch.{kind} cannot be pickled or sent to another process (torch.multiprocessing, "
    "an mp.Queue, a 'spawn' DataLoader worker): its memory is placed ({placement}) for this "
    "process's CUDA context, and torch's sharing would move the tensor into shared memory "
    "behind the GPU's back. Keep the {kind} in the main process and send indices or seeds to "
    "workers instead, or build one {kind} per process from the source tensor.")


def note_cuda_use() -> None:
    """Records that this process used CUDA through gnndirect (a later fork is then refused)."""
    _state["cuda_used"] = True


def _after_fork_in_child() -> None:
    if _state["cuda_used"]:
        _state["forked"] = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def in_bad_fork() -> bool:
    """True in a child forked after the parent used CUDA (through gnndirect or torch)."""
    is_bad = getattr(torch.cuda, "_is_in_bad_fork", None)
    return _state["forked"] or bool(is_bad is not None and is_bad())


def check_cuda_allowed(what: str) -> None:
    """Raises RuntimeError (saying what happened and what to do) in a bad fork or when torch sees
    no GPU (NO_GPU_MESSAGE: use device="cpu"); else records the CUDA use. Called before torch.cuda
    is touched: torch's own errors ("Found no NVIDIA driver") would not say what to do."""
    if in_bad_fork():
        raise RuntimeError(_FORK_MESSAGE.format(what=what))
    if not torch.cuda.is_available():
        raise RuntimeError(NO_GPU_MESSAGE.format(what=what))
    note_cuda_use()


def refuse_pickle(kind: str, placement: str):
    """Raises TypeError explaining why a placed ``kind`` cannot cross processes."""
    raise TypeError(_PICKLE_MESSAGE.format(kind=kind, placement=placement))
