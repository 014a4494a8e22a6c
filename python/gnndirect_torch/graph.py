"""The CSR graph for sampling: :class:`Graph` (indptr, indices and optional edge weights placed
where the GPU reads them, validated once), with its sampling calls (``_sampling``)."""

from __future__ import annotations

import weakref
from typing import Optional

import torch

from . import _process
from ._extension import load_extension
from ._placement import _ProcessLocal, _choose, _cuda_device, _filled_from_npy, to_placement
from ._sampling import resolve_weights, sample_blocks_csr, sample_neighbors_csr


class Graph(_ProcessLocal):
    """A CSR graph for sampling: node v's (in-)neighbours are ``indices[indptr[v]:indptr[v+1]]``.

    For PyG message passing (source -> target) give the CSC of ``edge_index`` (indptr over
    targets, indices = sources), e.g. with :meth:`from_edge_index`.

    Args:
        indptr: num_nodes + 1 offsets (int32/int64; the pipeline needs int64).
        indices: neighbour ids (int32/int64).
        placement: placement of ``indices`` (and weights), see :func:`to_placement`.
        indptr_placement: placement of ``indptr`` (default ``device``: small and hot).
        weights: optional float32 edge weights (weighted sampling).
        device: CUDA device (default: current); a CPU device keeps the arrays as they are and
            samples with the fast CPU sampler.
        validate: check the whole graph once, after placement (gnndirect's validator: on the
            GPU for CUDA graphs, reading each array once; on the host for CPU graphs): indptr
            starts at 0, never decreases and ends at len(indices), every neighbour id lies in
            [0, num_nodes), weights are finite and >= 0. Only trusted graphs should skip it: the
            sampling kernels read indices[indptr[v]:indptr[v+1]] unchecked.
    Raises:
        ValueError: a corrupt graph (naming the first bad array, position and value), shapes.
        TypeError: dtypes.  RuntimeError: in a forked child (see ``_process``).

    The graph cannot be pickled (unless in CPU mode), and :meth:`close` is refused while a
    :class:`~gnndirect_torch.NeighborLoader` uses it.
    """

    def __init__(self, indptr: torch.Tensor, indices: torch.Tensor, *, placement: str = "auto",
                 indptr_placement: str = "device", weights: Optional[torch.Tensor] = None, device=None,
                 validate: bool = True):
        for name, t in (("indptr", indptr), ("indices", indices)):
            if not isinstance(t, torch.Tensor) or t.dim() != 1:
                raise ValueError(f"{name} must be a 1-D tensor")
            if t.dtype not in (torch.int32, torch.int64):
                raise TypeError(f"{name} must be int32 or int64, got {t.dtype}")
        if indptr.numel() < 1:
            raise ValueError("indptr needs num_nodes + 1 >= 1 entries")
        if weights is not None and (not isinstance(weights, torch.Tensor) or weights.dim() != 1
                                    or weights.numel() != indices.numel()):
            raise ValueError("weights must be a 1-D tensor with one weight per edge "
                             f"({indices.numel()})")
        self.device = _cuda_device(device)
        self._users = weakref.WeakSet()
        cpu = self.device.type == "cpu"  # host-reference mode: arrays stay as given
        if not cpu:
            _process.check_cuda_allowed("gnndirect_torch.Graph")
        if cpu:
            self.placement = self.indptr_placement = "cpu"
        else:
            with torch.cuda.device(self.device):
                self.placement = _choose(indices, placement)
                self.indptr_placement = _choose(indptr, indptr_placement)
        self._keep = []
        self.indptr = self._place(indptr.contiguous(), self.indptr_placement)
        self.indices = self._place(indices.contiguous(), self.placement)
        self.weights = None if weights is None else self._place(weights.float().contiguous(), self.placement)
        if validate:
            self.validate()

    def validate(self) -> None:
        """Checks the whole graph with gnndirect's validator (see the class doc); synchronous.

        Raises:
            ValueError: the first rule broken, naming the array, position and value.
        """
        ext = load_extension()
        device = -1 if self.device.type == "cpu" else self.device.index
        if device >= 0:
            self._check_process()
            with torch.cuda.device(self.device):
                ext.validate_csr(self.indptr, self.indices, self.weights, device)
        else:
            ext.validate_csr(self.indptr, self.indices, self.weights, -1)

    def _check_process(self) -> None:
        """RuntimeError when a CUDA graph is used in a child forked after CUDA was used."""
        if self.device.type == "cuda":
            _process.check_cuda_allowed("gnndirect_torch.Graph")


    def _place(self, tensor, placement):
        if placement == "cpu":
            return tensor.cpu()
        placed, keep = to_placement(tensor, placement, device=self.device)
        if keep is not None:
            self._keep.append(keep)
        return placed

    @classmethod
    def from_npy(cls, indptr_path, indices_path, *, placement: str = "auto",
                 indptr_placement: str = "device", weights_path=None, device=None,
                 validate: bool = True) -> "Graph":
        """A graph read from CSR .npy files (1-D int32/int64 indptr and indices, optional
        float32 weights) straight into their placements: each file is memory-mapped and streamed
        in 64 MiB chunks on all cores (pages released after each chunk), so peak host memory is
        the placed bytes plus one chunk, never a second copy of the edges.

        Args: as :class:`Graph` (the paths instead of tensors).
        Raises: as :class:`Graph`; ValueError for a file that is not a 1-D .npy array;
            MemoryError as :func:`empty`.
        Synchronous.
        """
        indptr, p_name = _filled_from_npy(indptr_path, indptr_placement, device, max_dims=1,
                                          what="indptr")
        indices, e_name = _filled_from_npy(indices_path, placement, device, max_dims=1,
                                           what="indices")
        weights = None
        if weights_path is not None:
            weights, _ = _filled_from_npy(weights_path, e_name if e_name != "cpu" else placement,
                                          device, max_dims=1, what="weights")
        cpu = e_name == "cpu"
        return cls(indptr, indices, placement="auto" if cpu else e_name,
                   indptr_placement="device" if cpu else p_name, weights=weights, device=device,
                   validate=validate)

    @classmethod
    def from_edge_index(cls, edge_index: torch.Tensor, num_nodes: int, *,
                        weights: Optional[torch.Tensor] = None, **kwargs) -> "Graph":
        """CSC of a PyG ``edge_index`` [2, E] (row = source, col = target) so that sampling
        draws each target's sources. ``weights``: optional edge weights in ``edge_index``'s order
        (PyG's ``edge_weight``), reordered with the edges. Sorting runs where edge_index lives.
        ``kwargs``: the other :class:`Graph` arguments.

        Raises: as :class:`Graph`; ValueError for weights of another length than the edges."""
        row, col = edge_index[0], edge_index[1]
        perm = torch.argsort(col, stable=True)
        counts = torch.bincount(col, minlength=num_nodes)
        indptr = torch.zeros(num_nodes + 1, dtype=torch.int64, device=col.device)
        torch.cumsum(counts, 0, out=indptr[1:])
        if weights is not None:
            if not isinstance(weights, torch.Tensor) or weights.dim() != 1 or weights.numel() != col.numel():
                raise ValueError(f"weights must be a 1-D tensor with one weight per edge ({col.numel()})")
            weights = weights[perm.to(weights.device)].cpu()
        return cls(indptr.cpu(), row[perm].cpu(), weights=weights, **kwargs)

    @property
    def num_nodes(self) -> int:
        """Number of nodes."""
        return self.indptr.shape[0] - 1

    @property
    def num_edges(self) -> int:
        """Number of stored edges."""
        return self.indices.shape[0]

    def sample_neighbors(self, seeds: torch.Tensor, fanout: int, *,
                         weights=None, **kwargs):
        """See :func:`gnndirect_torch.sample_neighbors` (``weights``: None for the graph's, False for
        uniform sampling, or a tensor)."""
        self._check_process()
        return sample_neighbors_csr(self.indptr, self.indices, seeds, fanout,
                                    weights=resolve_weights(self.weights, weights), **kwargs)

    def sample_blocks(self, seeds: torch.Tensor, fanouts, *, weights=None, **kwargs):
        """See :func:`gnndirect_torch.sample_blocks` (``weights``: None for the graph's, False for
        uniform sampling, or a tensor)."""
        self._check_process()
        return sample_blocks_csr(self.indptr, self.indices, seeds, fanouts,
                                 weights=resolve_weights(self.weights, weights), **kwargs)

    def close(self) -> None:
        """Unregister registered arrays; idempotent (the graph is unusable afterwards).

        Raises:
            RuntimeError: a live NeighborLoader still uses the graph (its workers read the
                arrays; close or delete the loader first).
        """
        if len(self._users) > 0:
            raise RuntimeError("Graph.close: a NeighborLoader still uses this graph (its workers "
                               "read the arrays); close the loader first")
        for keep in self._keep:
            keep.close()
        self._keep = []

    def __repr__(self) -> str:
        return (f"Graph(num_nodes={self.num_nodes}, num_edges={self.num_edges}, "
                f"placement={self.placement!r}, indptr_placement={self.indptr_placement!r})")
