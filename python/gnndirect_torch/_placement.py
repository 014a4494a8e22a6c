"""Placement: making tensors GPU-addressable in a chosen placement (registered in place, pinned,
managed memory kept on the CPU, device), the library's sized ``auto`` choice, .npy files streamed
straight into their placement, and the pickling rule of placed objects. The layer below
:mod:`~gnndirect_torch.table` and :mod:`~gnndirect_torch.graph`."""

from __future__ import annotations

import weakref
from typing import Optional, Tuple

import torch

from . import _process
from ._extension import load_extension
from ._util import memory_error_message, normalize_placement


def _cuda_device(device) -> torch.device:
    """The CUDA device meant by ``device`` (None: current), or the CPU when ``device`` is a CPU
    device (host-reference mode: no placement, every op runs on the CPU; for debugging and for
    machines without a GPU)."""
    if device is not None and torch.device(device).type == "cpu":
        return torch.device(device)
    # before torch.cuda is touched: in a bad fork torch's own error would not say what to do
    _process.check_cuda_allowed("a gnndirect_torch object on a CUDA device")
    if device is None:
        return torch.device("cuda", torch.cuda.current_device())
    device = torch.device(device)
    if device.type != "cuda":
        raise ValueError(f"device must be a CUDA or CPU device, got {device}")
    if device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    return device


def _resolve(placement: str) -> str:
    name = normalize_placement(placement)
    if name == "auto":
        name = load_extension().auto_placement()
    return name


#: torch dtype of each .npy descr the loaders accept.
_NPY_DTYPES = {"|b1": torch.bool, "|i1": torch.int8, "|u1": torch.uint8, "<i2": torch.int16,
               "<i4": torch.int32, "<i8": torch.int64, "<f2": torch.float16, "<f4": torch.float32,
               "<f8": torch.float64}


def _npy_shape_dtype(path) -> Tuple[Tuple[int, ...], torch.dtype]:
    """(shape, torch dtype) of a .npy file from its header (nothing else is read).

    Raises:
        ValueError: not a .npy file the library reads.  TypeError: a dtype torch has no type for.
    """
    shape, descr = load_extension().npy_header(str(path))
    if descr not in _NPY_DTYPES:
        raise TypeError(f"{path}: .npy dtype {descr!r} has no torch dtype gnndirect loads")
    return tuple(int(d) for d in shape), _NPY_DTYPES[descr]


def host_memory_info() -> dict:
    """What the host can give now and its ceiling, as gnndirect's allocations see them.

    Returns a dict: ``known`` (False when nothing could be read; then nothing is refused),
    ``available`` (bytes that may still be committed), ``source`` (the rule or file that
    decided), ``cgroup_headroom`` (smallest limit - non-reclaimable usage over the cgroups with a
    memory limit, None without one), ``mem_available`` (/proc/meminfo), ``limit`` and
    ``limit_source`` (the most the process may ever hold). The rule: with a cgroup limit below
    the machine's memory, the cgroup headroom decides and a low MemAvailable does not refuse (hosts whose memory grows on demand read it low at first); without one, MemAvailable
    plus memory blocks not yet online. ``GNNDIRECT_HOST_MEMORY_LIMIT`` overrides both.
    """
    return dict(load_extension().host_memory_info())


def _copy_fits(nbytes: int) -> Tuple[bool, dict]:
    """(whether a new host allocation of ``nbytes`` fits what the host can give now, the info)."""
    info = host_memory_info()
    return (not info["known"]) or nbytes <= info["available"], info


#: Storages allocated by :func:`empty` in host placements: storage address -> (placement, a weak
#: reference to the tensor). Only these are adopted without a copy: a tensor page-locked some
#: other way (torch's pin_memory cache, another registration) may be recycled or unpinned
#: behind the table's back.
_PLACED_STORAGES: dict = {}


def _remember_placed(tensor: torch.Tensor, name: str) -> None:
    key = tensor.untyped_storage().data_ptr()
    _PLACED_STORAGES[key] = (name, weakref.ref(tensor, lambda _ref, key=key: _PLACED_STORAGES.pop(key, None)))


def _current_host_placement(tensor: torch.Tensor) -> Optional[str]:
    """'pinned' or 'managed_host' when ``tensor`` (CPU, non-empty) lives in a storage that
    :func:`empty` allocated there (a view of it counts), else None."""
    if tensor.is_cuda or tensor.numel() == 0:
        return None
    entry = _PLACED_STORAGES.get(tensor.untyped_storage().data_ptr())
    if entry is None or entry[1]() is None:
        return None
    return entry[0]


def _choose(tensor: torch.Tensor, placement: str) -> str:
    """The concrete placement for ``tensor`` under ``placement``:

    - a tensor already in pinned or managed memory keeps it for ``auto`` (no copy);
    - ``auto`` takes the library's sized choice, and when a copy into it would not fit what the
      host can give now, the in-place placement ``registered`` (zero copy) with a warning.
    """
    name = normalize_placement(placement)
    if name != "auto":
        return name
    current = _current_host_placement(tensor)
    if current is not None:
        return current
    ext = load_extension()
    nbytes = tensor.numel() * tensor.element_size()
    name = ext.auto_placement_for(nbytes)
    if name in ("pinned", "managed_host") and not tensor.is_cuda and tensor.numel() > 0:
        fits, info = _copy_fits(nbytes)
        if not fits:
            import warnings
            warnings.warn(f"gnndirect: a {name} copy of this tensor ({nbytes} bytes) does not fit "
                          f"what the host can give now ({info['available']} bytes, "
                          f"{info['source']}): placing it in place ('registered', zero copy, "
                          "pinned-memory speed) instead", ResourceWarning, stacklevel=3)
            return "registered"
    return name


def empty(shape, dtype: torch.dtype = torch.float32, placement: str = "auto", *,
          device=None) -> torch.Tensor:
    """A new, uninitialised tensor placed where the GPU reads it, to fill in place (e.g. chunk by
    chunk from a dataset loader) and hand to :class:`Table` / :class:`Graph` without a copy.

    Args:
        shape: sizes.  dtype: element type.
        placement: ``pinned`` or ``managed_host`` (a CPU tensor owning a gnndirect allocation),
            ``device`` (a CUDA tensor), ``auto`` (the library's sized choice for this GPU).
            ``registered`` is refused: it pins memory someone else owns (pass your CPU tensor to
            ``Table(x, placement="registered")`` instead).
        device: the CUDA device (default: current).
    Returns:
        the tensor; :class:`Table` and :class:`Graph` given it with the same placement (or
        ``auto``) use it as it is.
    Raises:
        MemoryError: the host (or GPU) cannot give the bytes now; the message names the bytes
            needed and available and the zero-copy alternatives. Host bytes are checked and
            committed before the call returns, so a shortage is this exception, never the OOM
            killer.  ValueError: placement, negative sizes.
    Synchronous.
    """
    shape = tuple(int(d) for d in (shape if isinstance(shape, (tuple, list, torch.Size)) else (shape,)))
    if any(d < 0 for d in shape):
        raise ValueError(f"negative size in {shape}")
    name = normalize_placement(placement)
    ext = load_extension()
    nbytes = torch.Size(shape).numel() * torch.empty((), dtype=dtype).element_size()
    dev = _cuda_device(device)
    if dev.type == "cpu":
        return torch.empty(shape, dtype=dtype)
    if name == "auto":
        with torch.cuda.device(dev):
            name = ext.auto_placement_for(nbytes)
    if name == "registered":
        raise ValueError("empty(): 'registered' pins memory that someone else owns: allocate the "
                         "CPU tensor yourself and pass it to Table(x, placement='registered')")
    if name == "device":
        return torch.empty(shape, dtype=dtype, device=dev)
    with torch.cuda.device(dev):
        try:
            tensor = ext.allocate_host_tensor(list(shape), dtype, name)
            if tensor.numel() > 0:
                _remember_placed(tensor, name)
            return tensor
        except RuntimeError as error:
            message = memory_error_message(str(error))
            if message is not None:
                raise MemoryError(message) from None
            raise


def _filled_from_npy(path, placement: str, device, *, min_dims: int = 1, max_dims: int = 2,
                     what: str = "array") -> Tuple[torch.Tensor, str]:
    """A tensor holding the .npy file at ``path``, created straight in ``placement`` and filled
    by streaming the mapped file in bounded chunks (see ``fill_from_npy``): (tensor, placement).
    ``registered`` fills a plain CPU tensor (registered afterwards by the caller)."""
    shape, dtype = _npy_shape_dtype(path)
    if not min_dims <= len(shape) <= max_dims:
        raise ValueError(f"{path}: {what} needs {min_dims}..{max_dims} dimensions, found {len(shape)}")
    name = normalize_placement(placement)
    dev = _cuda_device(device)
    if dev.type == "cpu" or name == "registered":
        tensor = torch.empty(shape, dtype=dtype)
        name = "cpu" if dev.type == "cpu" else name
    else:
        tensor = empty(shape, dtype, name, device=dev)
        name = "device" if tensor.is_cuda else (_current_host_placement(tensor) or name)
    load_extension().fill_from_npy(tensor, str(path))
    return tensor, name


def register_tensor(tensor: torch.Tensor):
    """Pin a CPU tensor in place (cudaHostRegister, zero copy) and return the registration
    handle; the GPU reads the tensor directly while the handle lives. The handle holds a
    reference to the tensor; ``handle.close()`` (or dropping the handle) unregisters.

    Raises:
        ValueError: not a CPU tensor, empty, or already registered.
        MemoryError: the driver refused (e.g. the locked-memory limit).
    """
    return load_extension().Registration(tensor)


def to_placement(tensor: torch.Tensor, placement: str = "auto", *,
                 device=None) -> Tuple[torch.Tensor, Optional[object]]:
    """Make ``tensor`` GPU-addressable.

    Args:
        tensor: the source (CPU for every placement but ``device``, where CUDA is fine too).
        placement: ``registered`` (pin ``tensor`` in place: zero copy, pinned-memory speed),
            ``pinned`` (copy into cudaHostAlloc memory), ``managed_host`` (copy into managed
            memory kept on the CPU, mapped by the GPU: fastest for large random-access tables),
            ``device`` (copy to HBM), ``auto`` (the library's choice for this GPU).
        device: CUDA device for ``device`` placement (default: current).
    Returns:
        ``(placed, keepalive)``: the tensor kernels read (a CPU tensor for host placements) and
        the object that must live as long as it is used (the registration, or None: copies own
        their memory). A CPU tensor already in the requested ``pinned``/``managed_host`` memory
        (e.g. from :func:`empty`) is returned as it is (no copy).
    Synchronous (copies use torch's parallel CPU copy). Raises as :func:`register_tensor`;
    MemoryError when a host allocation does not fit what the host can give now (checked before
    anything is committed: the message names the bytes needed and available and the zero-copy
    alternatives; never the OOM killer).
    """
    name = _resolve(placement)
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"expected a tensor, got {type(tensor).__name__}")
    if name == "device":
        return tensor.to(_cuda_device(device)), None
    if tensor.is_cuda:
        raise ValueError(f"placement {name!r} needs a CPU tensor, got one on {tensor.device}")
    if name == "registered":
        if tensor.numel() == 0:
            return tensor, None
        return tensor, register_tensor(tensor)
    ext = load_extension()
    if _current_host_placement(tensor) == name:
        return tensor, None  # already there (e.g. from gnndirect_torch.empty): no second copy
    try:
        placed = ext.allocate_host_tensor(list(tensor.shape), tensor.dtype, name)
    except RuntimeError as error:  # pragma: no cover - mapped by the module's translator
        raise MemoryError(memory_error_message(str(error)) or str(error)) from None
    placed.copy_(tensor)
    return placed, None


class _ProcessLocal:
    """Pickling rules shared by Table and Graph: placed (GPU-visible) objects refuse to be pickled
    (TypeError, see ``_process.refuse_pickle`` for why and what to do instead); CPU-mode objects
    pickle without their per-process loader registry."""

    def __reduce_ex__(self, protocol):
        if self.device.type != "cpu":
            _process.refuse_pickle(type(self).__name__, self.placement)
        return super().__reduce_ex__(protocol)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_users", None)  # loaders are per process
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._users = weakref.WeakSet()
