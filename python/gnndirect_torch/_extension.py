"""The compiled extension and the raw op call: loading ``gnndirect_torch._C`` (which registers
torch.ops.gnndirect) with its fake kernels, running an op with the library's allocation failures
mapped to MemoryError, and the fork check before CUDA work.

Every error that crosses from the extension into Python (an op through :func:`_call`, a function
or method of ``_C``, wrapped at load) loses the library's leading "file:line: " (a header path of
the build machine), kept as the exception's ``gnndirect_location`` attribute; a CUDA call that
fails because there is no GPU or no driver says to use ``device="cpu"``.

The bottom layer of the package's own imports (see test/python/check_python_imports.py): it
imports only ``_process`` and ``_util``, and every other module reaches the ops through it.
"""

from __future__ import annotations

import functools
import os
import threading

import torch

from . import _process
from ._util import ALLOCATION_TAG, memory_error_message, split_location

_lock = threading.Lock()
#: The loaded ``gnndirect_torch._C`` module (None until the first :func:`load_extension`).
_loaded = None


def load_extension():
    """Load the compiled extension ``gnndirect_torch._C`` (registers the ops) once and return it.

    Does not initialise CUDA.

    Raises:
        ImportError: the extension is not built (the message says how to build it).
    """
    global _loaded
    if _loaded is not None:
        return _loaded
    with _lock:
        if _loaded is None:
            try:
                # Imported here, not at module level, on purpose: `import gnndirect_torch` must
                # work (and stay cheap) without the built extension, which loads on the first op.
                # The package's only function-level import of its own (the import checker
                # allows exactly this one).
                from . import _C  # noqa: F401  (registers torch.ops.gnndirect)
            except ImportError as error:
                raise ImportError(
                    f"gnndirect_torch._C is not built in {os.path.dirname(os.path.abspath(__file__))} "
                    f"({error}). Install the package from the repository root: `pip install -v "
                    "--no-build-isolation ./python` (needs torch with CUDA, nvcc and ninja; it names "
                    "whatever is missing), or build it in place for development: `cd python && python "
                    "setup.py build_ext --inplace`") from error
            _register_fakes()
            _guard_module(_C)
            _loaded = _C
    return _loaded


#: What a CUDA call raises on a machine without a usable GPU (driver or runtime words).
_NO_GPU_SIGNS = ("CUDA driver version is insufficient", "no CUDA-capable device", "Found no NVIDIA driver",
                 "cudaErrorNoDevice", "cudaErrorInsufficientDriver")


def _translated(error: BaseException) -> BaseException:
    """``error`` as the Python user should see it: the library's "file:line: " prefix moved to
    ``error.gnndirect_location`` (None when there was none), allocation failures as MemoryError,
    CUDA failures for want of a GPU as the no-GPU RuntimeError (see _process.NO_GPU_MESSAGE)."""
    text = str(error)
    if isinstance(error, RuntimeError) and any(sign in text for sign in _NO_GPU_SIGNS) \
            and not torch.cuda.is_available():
        return RuntimeError(_process.NO_GPU_MESSAGE.format(what="this call") + f" (CUDA said: {text})")
    if isinstance(error, RuntimeError) and not isinstance(error, (IndexError, ValueError, TypeError)):
        message = memory_error_message(text)
        if message is not None:
            memory = MemoryError(message)
            memory.gnndirect_location = split_location(text[text.find(ALLOCATION_TAG) + len(ALLOCATION_TAG):])[1]
            return memory
    message, location = split_location(text)
    if location is not None and len(error.args) == 1:
        error.args = (message,)
    try:
        error.gnndirect_location = location
    except AttributeError:  # an exception type without a __dict__: leave it as it is
        pass
    return error


def _guarded(function):
    """``function`` raising :func:`_translated` errors (the original's traceback kept)."""
    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - translated and re-raised
            translated = _translated(error)
            if translated is error:
                raise
            raise translated from None
    call.__gnndirect_guarded__ = True
    return call


def _guard_module(module) -> None:
    """Wraps the functions of the extension module, and the methods of its classes, with
    :func:`_guarded`: every error of ``_C`` reaches Python translated, whoever calls it."""
    for name in dir(module):
        if name.startswith("__"):
            continue
        value = getattr(module, name)
        if isinstance(value, type):
            for method in list(vars(value)):
                member = vars(value)[method]
                if isinstance(member, (staticmethod, classmethod)):
                    kind, member = type(member), member.__func__
                else:
                    kind = None
                if (method.startswith("__") and method != "__init__") or not callable(member) \
                        or getattr(member, "__gnndirect_guarded__", False):
                    continue
                try:
                    setattr(value, method, kind(_guarded(member)) if kind else _guarded(member))
                except (AttributeError, TypeError):  # a type that refuses new attributes
                    pass
        elif callable(value) and not getattr(value, "__gnndirect_guarded__", False):
            setattr(module, name, _guarded(value))


#: The error of scatter_rows into a host-resident table under torch.compile.
COMPILE_HOST_SCATTER_MESSAGE = (
    "gnndirect: scatter_rows into a host-resident table (registered/pinned/managed_host) cannot "
    "run inside torch.compile's graph: functionalization would hand the op a pageable clone of the "
    "table and copy it back, so the write could not stay in place. Without fullgraph=True "
    "torch.compile runs it eagerly, in place (a graph break); with fullgraph=True, call "
    "Table.scatter / gnndirect_torch.scatter outside the compiled region (e.g. in a function "
    "decorated with torch.compiler.disable). Gathers compile fine.")


class CompileHostScatterError(NotImplementedError):
    """scatter_rows into a host-resident table met while tracing, where Dynamo's own "unsupported"
    exception is not available (see :func:`_compile_host_scatter_refusal`)."""


def _compile_host_scatter_refusal() -> Exception:
    """The exception the scatter_rows fake raises for a host-resident table while tracing.

    Dynamo's ``Unsupported`` (a graph break) when it can be made: Dynamo passes it through the
    fake tensor call untouched, so without ``fullgraph`` the op runs eagerly, in place, between
    the compiled parts, and under ``fullgraph=True`` the user gets this message as the compile
    error, not "failed to run FX node with fake tensors" (issue #42). Otherwise a
    NotImplementedError, which Dynamo also turns into a graph break.
    """
    try:
        from torch._dynamo.exc import Unsupported  # imported already whenever Dynamo traces

        class CompileHostScatterUnsupported(Unsupported):
            """scatter_rows into a host-resident table inside a compiled graph."""

        return CompileHostScatterUnsupported(COMPILE_HOST_SCATTER_MESSAGE)
    except Exception:  # noqa: BLE001 - any import or signature problem: the portable form
        return CompileHostScatterError(COMPILE_HOST_SCATTER_MESSAGE)


def _register_fakes() -> None:
    """Fake (meta) kernels: shapes for torch.compile, FakeTensor and opcheck."""

    @torch.library.register_fake("gnndirect::gather")
    def _gather_fake(table, index, cache=None, slot_of=None, check=True):
        return table.new_empty((index.shape[0], table.shape[1]), device=index.device)

    @torch.library.register_fake("gnndirect::gather_encoded")
    def _gather_encoded_fake(codes, meta, cols, codec, index, cache=None, slot_of=None, dtype=None,
                             check=True):
        return codes.new_empty((index.shape[0], cols), dtype=dtype or torch.float32,
                               device=index.device)

    @torch.library.register_fake("gnndirect::scatter_rows")
    def _scatter_fake(table, index, src, check=True):
        # Runs only while tracing (torch.compile, export). Functionalization turns the mutation
        # into "write into a clone, copy back": the clone of a host-resident table is pageable
        # memory the GPU cannot write, and the write would not reach the placed table in place.
        # Refuse it here, while tracing, with a message that says so (issue #31), as a graph
        # break (eager, in place) rather than a failure of the fake call (issue #42).
        if not table.is_cuda and (index.is_cuda or src.is_cuda):
            raise _compile_host_scatter_refusal()
        return None

    @torch.library.register_fake("gnndirect::sample_neighbors")
    def _sample_neighbors_fake(indptr, indices, seeds, fanout, layer=0, seed=0, replace=False,
                               weights=None, check=True, threads=0):
        edges = torch.library.get_ctx().new_dynamic_size()
        return (seeds.new_empty((seeds.shape[0] + 1,), dtype=torch.int64),
                seeds.new_empty((edges,), dtype=indices.dtype),
                seeds.new_empty((edges,), dtype=indptr.dtype))

    @torch.library.register_fake("gnndirect::sample_blocks")
    def _sample_blocks_fake(indptr, indices, seeds, fanouts, seed=0, replace=False, weights=None,
                            check=True, threads=0):
        ctx = torch.library.get_ctx()
        out = []
        num_dst = seeds.shape[0]
        for _ in fanouts:
            num_src = ctx.new_dynamic_size()
            edges = ctx.new_dynamic_size()
            out += [seeds.new_empty((num_src,), dtype=indices.dtype),
                    seeds.new_empty((num_dst + 1,), dtype=torch.int64),
                    seeds.new_empty((edges,), dtype=indices.dtype),
                    seeds.new_empty((edges,), dtype=indptr.dtype)]
            num_dst = num_src
        return out


def _call(op, *args):
    """Run an op, with its errors translated (see :func:`_translated`: the library's file:line
    moved to ``gnndirect_location``, tagged allocation failures as MemoryError, no-GPU failures
    pointing to device="cpu")."""
    try:
        return op(*args)
    except Exception as error:  # noqa: BLE001 - translated and re-raised
        translated = _translated(error)
        if translated is error:
            raise
        raise translated from None


def _check_fork(what: str, *tensors) -> None:
    """RuntimeError (see ``_process``) when an op would run CUDA work in a bad fork."""
    if any(isinstance(t, torch.Tensor) and t.is_cuda for t in tensors):
        _process.check_cuda_allowed(what)
