"""Typed (heterogeneous) graphs for PyTorch: :class:`HeteroGraph` (node types with their own id
spaces, one CSC per edge type ``(src, rel, dst)``) and :func:`sample_typed_blocks`, PyG's hetero
``NeighborLoader`` sampling semantics with the library's random numbers
(docs/heterogeneous.md "Semantics").

    import gnndirect_torch as gd
    from gnndirect_torch.hetero import HeteroGraph, sample_typed_blocks
    graph = HeteroGraph.from_hetero_data(data)          # a torch_geometric HeteroData
    blocks = sample_typed_blocks(graph, "paper", seeds, {("author", "writes", "paper"): [10, 5],
                                                        ("paper", "cites", "paper"): [15, 10]})
    blocks.nodes["author"]                               # the authors' feature rows to gather
    blocks.layers[0][("author", "writes", "paper")].edge_index()

On CUDA seeds the GPU sampler runs (``sample_typed_blocks_async``: relations in any placement,
each its own); on CPU tensors everywhere (``device="cpu"``) the host reference runs, which the
GPU equals bit for bit. The PyG adapter (``HeteroSamplerOutput`` for ``NeighborLoader``) is
:mod:`gnndirect_torch.pyg_hetero`.

Errors name node types and edge types: an unknown one, a fanout dict naming an edge type the
graph does not have (or missing one), a relation whose CSC disagrees with its dst type's node
count, ids outside their own type's range (IndexError), tables whose rows disagree with their
node type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

import torch

from ._extension import _call, _check_fork, load_extension
from ._util import _is_boolean
from .table import Graph, _cuda_device

EdgeType = Tuple[str, str, str]

_fake_registered = False


def typed_flat_fake(like, indptrs, indices, num_nodes, fanouts):
    """Fake tensors of a typed op's flat output (csrc/typed_common.hpp) on ``like``'s device:
    every size but the counts' is data-dependent."""
    ctx = torch.library.get_ctx()
    layers = len(fanouts) // len(indptrs)
    out = [torch.empty((len(num_nodes), layers + 1), dtype=torch.int64)]
    out += [like.new_empty((ctx.new_dynamic_size(),), dtype=indices[0].dtype) for _ in num_nodes]
    for _ in range(layers * len(indptrs)):
        edges = ctx.new_dynamic_size()
        out += [like.new_empty((ctx.new_dynamic_size(min=1),), dtype=torch.int64),  # num_dst + 1
                like.new_empty((edges,), dtype=indices[0].dtype),
                like.new_empty((edges,), dtype=indptrs[0].dtype)]
    return out


def _load() -> None:
    """Loads the extension and, once, registers the typed op's fake (meta) kernel (shapes for
    torch.compile, FakeTensor and opcheck: every size but the seed type's first count is
    data-dependent)."""
    global _fake_registered
    load_extension()
    if _fake_registered:
        return

    @torch.library.register_fake("gnndirect::sample_typed_blocks")
    def _sample_typed_blocks_fake(indptrs, indices, src_types, dst_types, num_nodes, seed_type, seeds, fanouts,
                                  max_degrees, seed=0, replace=False, check=True, threads=0):
        return typed_flat_fake(seeds, indptrs, indices, num_nodes, fanouts)

    @torch.library.register_fake("gnndirect::sample_typed_blocks_multi")
    def _sample_typed_blocks_multi_fake(indptrs, indices, src_types, dst_types, num_nodes, seeds, fanouts,
                                        max_degrees, seed=0, replace=False, check=True, threads=0):
        return typed_flat_fake(seeds[0], indptrs, indices, num_nodes, fanouts)

    _fake_registered = True


def _edge_type_name(edge_type: EdgeType) -> str:
    return "(" + ", ".join(repr(part) for part in edge_type) + ")"


def _check_fanout_entry(value, where: str) -> int:
    """One typed fanout: an int in [-1, 2**31). TypeError for a bool or a non-integer."""
    if _is_boolean(value):
        raise TypeError(f"{where}: fanouts must be integers, got the bool {value!r}")
    if not isinstance(value, int):
        if not hasattr(value, "__index__"):
            raise TypeError(f"{where}: fanouts must be integers, got {value!r}")
        value = value.__index__()
    if value < -1 or value >= 2**31:
        raise ValueError(f"{where}: fanout {value} (use -1 for all neighbours, 0 for none)")
    return int(value)


def _fanout_list(values, where: str) -> List[int]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{where}: fanouts must be a list of ints (one per layer), got {values!r}")
    out = [_check_fanout_entry(v, where) for v in values]
    if not out:
        raise ValueError(f"{where}: at least one layer is needed")
    return out


@dataclass
class RelationBlock:
    """One edge type's block at one layer, in local ids.

    Its dst rows are the dst type's nodes ``dst_begin .. dst_begin + num_dst`` (that type's
    frontier at this layer); row d's sampled src neighbours are the local ids
    ``indices[offsets[d]:offsets[d+1]]`` into the src type's node list; ``edge_ids`` are
    positions in the relation's CSC ``indices`` (see :attr:`HeteroGraph.edge_permutation` for
    positions in the edge_index it was built from).
    """
    edge_type: EdgeType
    dst_begin: int
    num_dst: int
    offsets: torch.Tensor
    indices: torch.Tensor
    edge_ids: torch.Tensor

    @property
    def num_edges(self) -> int:
        """Sampled edges."""
        return self.indices.shape[0]

    def edge_index(self) -> torch.Tensor:
        """``[2, E]`` int64 in PyG's convention: row = local src id (into the src type's list),
        col = local dst id (into the dst type's list, ``dst_begin`` + row)."""
        counts = self.offsets[1:] - self.offsets[:-1]
        col = torch.repeat_interleave(torch.arange(self.dst_begin, self.dst_begin + self.num_dst,
                                                   device=self.offsets.device),
                                      counts, output_size=self.num_edges)
        return torch.stack([self.indices.to(torch.int64), col])


@dataclass
class TypedBlocks:
    """A typed multi-layer sample.

    ``nodes[t]``: node type t's ids (its own id space), the seeds first for the seed type, then
    the nodes each layer added (earlier layers first); every type's list is its feature rows to
    gather. ``counts[t]``: its length before layer 0, then after each layer. ``layers[l][e]``:
    edge type e's :class:`RelationBlock` at layer l (seeds side first).

    Seeds of several types (a dict, e.g. link seeds): ``seed_type`` is None, ``batch_size`` the
    seeds of all types, and ``num_seeds[t]`` (also set for one seed type) type t's seeds, the
    first ``num_seeds[t]`` entries of ``nodes[t]``.
    """
    seed_type: Optional[str]
    batch_size: int
    nodes: Dict[str, torch.Tensor]
    counts: Dict[str, List[int]]
    layers: List[Dict[EdgeType, RelationBlock]]
    num_seeds: Dict[str, int] = None  # type: ignore[assignment]

    def __post_init__(self):
        if self.num_seeds is None:
            self.num_seeds = {t: (self.batch_size if t == self.seed_type else 0) for t in self.nodes}

    def num_sampled_nodes(self) -> Dict[str, List[int]]:
        """Per node type, PyG's hop counts: the seeds (0 for other types), then each layer's new
        nodes."""
        return {t: [c[0]] + [c[i + 1] - c[i] for i in range(len(c) - 1)] for t, c in self.counts.items()}

    def num_sampled_edges(self) -> Dict[EdgeType, List[int]]:
        """Per edge type, the sampled edges of each layer."""
        if not self.layers:
            return {}
        return {e: [layer[e].num_edges for layer in self.layers] for e in self.layers[0]}

    def to_pyg(self):
        """(node, row, col, edge, num_sampled_nodes, num_sampled_edges) dicts in PyG's
        ``HeteroSamplerOutput`` convention: node per type (int64), row/col per edge type (local
        src / dst ids, all layers concatenated hop by hop), edge per edge type (CSC positions)."""
        node = {t: n.to(torch.int64) for t, n in self.nodes.items()}
        row, col, edge = {}, {}, {}
        for e in (self.layers[0] if self.layers else {}):
            index = torch.cat([layer[e].edge_index() for layer in self.layers], dim=1)
            row[e], col[e] = index[0], index[1]
            edge[e] = torch.cat([layer[e].edge_ids.to(torch.int64) for layer in self.layers])
        return node, row, col, edge, self.num_sampled_nodes(), self.num_sampled_edges()

    def to_hetero_data(self, x: Mapping[str, torch.Tensor]):
        """A ``torch_geometric.data.HeteroData`` of the blocks as PyG's hetero loaders yield
        them: per node type ``n_id``, ``num_nodes``, ``num_sampled_nodes`` and ``x`` (the types
        in ``x``); per edge type ``edge_index`` (local src, local dst; hop by hop), ``e_id`` (CSC
        positions) and ``num_sampled_edges``. The loaders add their seed fields (imports
        torch_geometric)."""
        from torch_geometric.data import HeteroData
        node, row, col, edge, nodes, edges = self.to_pyg()
        data = HeteroData()
        for t, ids in node.items():
            data[t].n_id = ids
            data[t].num_nodes = ids.numel()
            data[t].num_sampled_nodes = nodes[t]
            if t in x:
                data[t].x = x[t]
        for e in row:
            data[e].edge_index = torch.stack([row[e], col[e]])
            data[e].e_id = edge[e]
            data[e].num_sampled_edges = edges[e]
        return data


class HeteroGraph:
    """A typed graph: node types with their own id spaces (type t's ids are ``[0,
    num_nodes[t])``) and one CSC per edge type ``(src, rel, dst)``: dst node v's src neighbours
    are ``indices[indptr[v]:indptr[v+1]]`` (src-type ids), which sampling draws from.

    Args:
        relations: ``{edge_type: (indptr, indices)}`` (tensors, int32/int64, the same dtypes for
            every edge type) or ``{edge_type: Graph}`` (a :class:`~gnndirect_torch.Graph` built
            with ``validate=False`` when src ids exceed the dst count). Their order is the
            schema order (the relation index in the random key).
        num_nodes: ``{node_type: count}`` (every type an edge type names; types without edges
            are allowed); its order is the node type order.
        placement, indptr_placement, device: as :class:`~gnndirect_torch.Graph`, for every
            relation given as tensors (``device="cpu"``: no placement, the host sampler).
        validate: check every relation once (validate()'s rules, neighbour ids bounded by the src
            type's count; O(V + E) on the CPU, before placement).
        edge_permutation: ``{edge_type: perm}``: CSC position -> position in the edge_index the
            relation was built from (set by :meth:`from_hetero_data` where it sorted); kept on the
            graph's device.
    Raises:
        ValueError: an edge type naming an unknown node type, or that is not a 3-tuple of
            strings; a relation whose indptr disagrees with its dst type's node count; a corrupt
            relation (naming the edge type, array, position and value).
        TypeError: dtypes, mixed dtypes between relations.
    """

    def __init__(self, relations: Mapping[EdgeType, Union[Graph, Tuple[torch.Tensor, torch.Tensor]]],
                 num_nodes: Mapping[str, int], *, placement: str = "auto", indptr_placement: str = "device",
                 device=None, validate: bool = True,
                 edge_permutation: Optional[Mapping[EdgeType, Optional[torch.Tensor]]] = None):
        if not isinstance(num_nodes, Mapping) or not num_nodes:
            raise ValueError("HeteroGraph needs num_nodes, a non-empty {node_type: count} dict")
        self.node_types: List[str] = []
        self.num_nodes: Dict[str, int] = {}
        for t, n in num_nodes.items():
            if not isinstance(t, str) or not t:
                raise ValueError(f"node types must be non-empty strings, got {t!r}")
            if _is_boolean(n) or not hasattr(n, "__index__") or int(n) < 0:
                raise ValueError(f"node type {t!r}: the node count must be an int >= 0, got {n!r}")
            self.node_types.append(t)
            self.num_nodes[t] = int(n)
        if not isinstance(relations, Mapping) or not relations:
            raise ValueError("HeteroGraph needs at least one relation ({edge_type: (indptr, indices)})")
        self.edge_types: List[EdgeType] = []
        self.graphs: Dict[EdgeType, Graph] = {}
        self.device = _cuda_device(device)
        sources = {}
        for key, value in relations.items():
            e = self._check_edge_type(key)
            if e in self.graphs or e in sources:
                raise ValueError(f"edge type {_edge_type_name(e)} is given twice")
            if isinstance(value, Graph):
                indptr, indices = value.indptr, value.indices
            else:
                if not isinstance(value, (tuple, list)) or len(value) != 2:
                    raise TypeError(f"edge type {_edge_type_name(e)}: give (indptr, indices) or a Graph, "
                                    f"got {type(value).__name__}")
                indptr, indices = value
            for name, t in (("indptr", indptr), ("indices", indices)):
                if not isinstance(t, torch.Tensor) or t.dim() != 1:
                    raise ValueError(f"edge type {_edge_type_name(e)}: {name} must be a 1-D tensor")
                if t.dtype not in (torch.int32, torch.int64):
                    raise TypeError(f"edge type {_edge_type_name(e)}: {name} must be int32 or int64, got {t.dtype}")
            rows = self.num_nodes[e[2]]
            if indptr.numel() != rows + 1:
                raise ValueError(f"edge type {_edge_type_name(e)}: its CSC has {indptr.numel() - 1} rows "
                                 f"(indptr of {indptr.numel()} entries) but its dst node type {e[2]!r} has "
                                 f"{rows} nodes")
            self.edge_types.append(e)
            sources[e] = value if isinstance(value, Graph) else (indptr, indices)
        first = self.edge_types[0]
        for e in self.edge_types:
            s = sources[e]
            pair = (s.indptr, s.indices) if isinstance(s, Graph) else s
            f = sources[first]
            f_pair = (f.indptr, f.indices) if isinstance(f, Graph) else f
            if pair[0].dtype != f_pair[0].dtype or pair[1].dtype != f_pair[1].dtype:
                raise TypeError(f"edge type {_edge_type_name(e)} has indptr {pair[0].dtype} and indices "
                                f"{pair[1].dtype}, edge type {_edge_type_name(first)} {f_pair[0].dtype} and "
                                f"{f_pair[1].dtype} (every relation needs the same dtypes)")
        if validate:
            pairs = [(s.indptr, s.indices) if isinstance(s, Graph) else s for s in sources.values()]
            self._run("validate_typed",
                      [p[0].cpu().contiguous() for p in pairs], [p[1].cpu().contiguous() for p in pairs],
                      *self._types())
        for e in self.edge_types:
            s = sources[e]
            if isinstance(s, Graph):
                if s.device != self.device:
                    raise ValueError(f"edge type {_edge_type_name(e)}: its Graph is on {s.device}, the "
                                     f"HeteroGraph on {self.device}")
                self.graphs[e] = s
            else:
                self.graphs[e] = Graph(s[0], s[1], placement=placement, indptr_placement=indptr_placement,
                                       device=self.device, validate=False)
        self.max_degrees: List[int] = []
        for e in self.edge_types:
            indptr = self.graphs[e].indptr
            self.max_degrees.append(int((indptr[1:] - indptr[:-1]).max()) if indptr.numel() > 1 else 0)
        self.edge_permutation: Dict[EdgeType, Optional[torch.Tensor]] = {e: None for e in self.edge_types}
        for e, perm in (edge_permutation or {}).items():
            # on the graph's device: PyG indexes it with the sampled edge ids (NodeLoader.filter_fn)
            self.edge_permutation[self.edge_type(e)] = None if perm is None else perm.to(self.device)

    # --- names -------------------------------------------------------------------------------

    def _check_edge_type(self, key) -> EdgeType:
        if not isinstance(key, tuple) or len(key) != 3 or not all(isinstance(p, str) and p for p in key):
            raise ValueError(f"edge types are (src, rel, dst) tuples of non-empty strings, got {key!r}")
        for end, t in (("src", key[0]), ("dst", key[2])):
            if t not in self.num_nodes:
                raise ValueError(f"edge type {_edge_type_name(key)}: its {end} node type {t!r} is not in "
                                 f"num_nodes (node types: {self.node_types})")
        return key

    def node_type_index(self, node_type: str) -> int:
        """The index of ``node_type``. Raises ValueError naming an unknown type and the known ones."""
        if node_type not in self.num_nodes:
            raise ValueError(f"unknown node type {node_type!r} (node types: {self.node_types})")
        return self.node_types.index(node_type)

    def edge_type(self, key) -> EdgeType:
        """The edge type ``key`` names: a ``(src, rel, dst)`` tuple of the graph, or a bare relation
        name that exactly one edge type has (as PyG accepts). Raises ValueError naming an
        unknown or ambiguous key and the edge types."""
        if isinstance(key, tuple) and key in self.graphs:
            return key
        if isinstance(key, str):
            found = [e for e in self.edge_types if e[1] == key]
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                raise ValueError(f"relation name {key!r} is ambiguous (edge types: {found})")
        raise ValueError(f"unknown edge type {key!r} (edge types: {self.edge_types})")

    def _types(self):
        index = {t: i for i, t in enumerate(self.node_types)}
        return ([index[e[0]] for e in self.edge_types], [index[e[2]] for e in self.edge_types],
                [self.num_nodes[t] for t in self.node_types])

    def _named(self, error: Exception) -> Exception:
        """``error`` with the op's "relation r" and "node type t" replaced by their names."""
        text = str(error)
        named = re.sub(r"relation (\d+)\b",
                       lambda m: "edge type " + _edge_type_name(self.edge_types[int(m.group(1))])
                       if int(m.group(1)) < len(self.edge_types) else m.group(0), text)
        named = re.sub(r"node type (\d+)\b",
                       lambda m: f"node type {self.node_types[int(m.group(1))]!r}"
                       if int(m.group(1)) < len(self.node_types) else m.group(0), named)
        if named == text or len(error.args) != 1:
            return error
        error.args = (named,)
        return error

    def _run(self, name: str, *args):
        """The op ``torch.ops.gnndirect.<name>`` on ``args``, its errors named (:meth:`_named`)."""
        _load()
        try:
            return _call(getattr(torch.ops.gnndirect, name).default, *args)
        except (ValueError, IndexError, TypeError) as error:
            raise self._named(error)

    # --- construction ------------------------------------------------------------------------

    @staticmethod
    def csc_of_edge_index_dict(edge_index_dict: Mapping[EdgeType, torch.Tensor], num_nodes: Mapping[str, int]):
        """``{edge_type: (indptr, indices, perm)}``: the CPU CSC of each PyG ``edge_index`` [2, E]
        (row = src, col = dst) over its dst type's ``num_nodes``. Where col is already sorted
        (non-decreasing), ``indices`` is row 0 itself (no second copy of the edges) and perm is
        None; otherwise the edges are sorted once (stable) and perm maps CSC positions to
        positions in edge_index. Raises ValueError (shapes, unknown dst type), IndexError (a dst
        id outside its type)."""
        out = {}
        for key, edge_index in edge_index_dict.items():
            if not isinstance(key, tuple) or len(key) != 3:
                raise ValueError(f"edge types are (src, rel, dst) tuples, got {key!r}")
            if key[2] not in num_nodes:
                raise ValueError(f"edge type {_edge_type_name(key)}: its dst node type {key[2]!r} is not in "
                                 f"num_nodes (node types: {list(num_nodes)})")
            if not isinstance(edge_index, torch.Tensor) or edge_index.dim() != 2 or edge_index.shape[0] != 2:
                raise ValueError(f"edge type {_edge_type_name(key)}: edge_index must be a [2, E] tensor")
            row, col = edge_index[0], edge_index[1]
            rows = int(num_nodes[key[2]])
            if col.numel() > 0:
                low, high = int(col.min()), int(col.max())
                if low < 0 or high >= rows:
                    raise IndexError(f"edge type {_edge_type_name(key)}: dst id {high if high >= rows else low} "
                                     f"outside node type {key[2]!r}'s range [0, {rows})")
            counts = torch.bincount(col, minlength=rows)
            indptr = torch.zeros(rows + 1, dtype=torch.int64, device=col.device)
            torch.cumsum(counts, 0, out=indptr[1:])
            if col.numel() < 2 or bool((col[1:] >= col[:-1]).all()):
                out[key] = (indptr.cpu(), row.contiguous().cpu(), None)
            else:
                perm = torch.argsort(col, stable=True)
                out[key] = (indptr.cpu(), row[perm].cpu(), perm.cpu())
        return out

    @classmethod
    def from_edge_index_dict(cls, edge_index_dict: Mapping[EdgeType, torch.Tensor],
                             num_nodes: Mapping[str, int], **kwargs) -> "HeteroGraph":
        """The typed graph of PyG edge indices ``{edge_type: [2, E]}`` (row = src, col = dst),
        each made CSC by :meth:`csc_of_edge_index_dict` (no second copy of the edges where col is
        sorted; :attr:`edge_permutation` maps CSC positions back where it sorted). Other
        arguments as the constructor."""
        csc = cls.csc_of_edge_index_dict(edge_index_dict, num_nodes)
        return cls({e: c[:2] for e, c in csc.items()}, num_nodes,
                   edge_permutation={e: c[2] for e, c in csc.items()}, **kwargs)

    @classmethod
    def from_hetero_data(cls, data, **kwargs) -> "HeteroGraph":
        """The typed graph of a PyG ``HeteroData``: its node types with their ``num_nodes`` and
        each edge type's ``edge_index`` (see :meth:`from_edge_index_dict`: no second copy where
        it is sorted by dst). Other arguments as the constructor."""
        num_nodes = {}
        for t in data.node_types:
            n = data[t].num_nodes
            if n is None:
                raise ValueError(f"HeteroData node type {t!r} has no num_nodes (set data[{t!r}].num_nodes)")
            num_nodes[t] = int(n)
        edges = {}
        for e in data.edge_types:
            if "edge_index" not in data[e]:
                raise ValueError(f"HeteroData edge type {_edge_type_name(e)} has no edge_index")
            edges[e] = data[e].edge_index
        return cls.from_edge_index_dict(edges, num_nodes, **kwargs)

    # --- use ---------------------------------------------------------------------------------

    def fanouts(self, num_neighbors, default: Optional[Sequence[int]] = None) -> List[List[int]]:
        """Fanouts per edge type per layer, in schema order, from PyG's ``num_neighbors``: one
        list for every edge type, or a dict ``{edge_type or relation name: list}`` naming every
        edge type (or ``default`` for the ones it does not name). -1 = all neighbours, 0 = none.

        Raises:
            ValueError: a key that is no edge type of the graph (naming it and the edge types), an
                edge type given twice or without fanouts, lists of different lengths, a fanout below -1.
            TypeError: a fanout that is not an int (or a bool).
        """
        if isinstance(num_neighbors, Mapping):
            given: Dict[EdgeType, List[int]] = {}
            for key, values in num_neighbors.items():
                try:
                    e = self.edge_type(key)
                except ValueError:
                    raise ValueError(f"num_neighbors names edge type {key!r}, which the graph does not have "
                                     f"(edge types: {self.edge_types})") from None
                if e in given:
                    raise ValueError(f"num_neighbors gives edge type {_edge_type_name(e)} twice")
                given[e] = _fanout_list(values, f"num_neighbors[{key!r}]")
            fallback = None if default is None else _fanout_list(default, "default")
            out = []
            for e in self.edge_types:
                if e in given:
                    out.append(given[e])
                elif fallback is not None:
                    out.append(list(fallback))
                else:
                    raise ValueError(f"num_neighbors has no fanouts for edge type {_edge_type_name(e)} "
                                     f"(name every edge type, or pass default=)")
        else:
            fans = _fanout_list(num_neighbors, "num_neighbors")
            out = [list(fans) for _ in self.edge_types]
        layers = {len(f) for f in out}
        if len(layers) != 1:
            lengths = {_edge_type_name(e): len(f) for e, f in zip(self.edge_types, out)}
            raise ValueError(f"num_neighbors: every edge type needs the same number of layers, got {lengths}")
        return out

    def check_tables(self, tables: Mapping[str, object]) -> None:
        """Checks per-node-type feature tables (anything with ``shape`` or ``len``): each key a node
        type of the graph, each table's rows equal to that type's node count (types without a
        table are allowed). Raises ValueError naming the node type, its count and the rows."""
        for t, table in tables.items():
            if t not in self.num_nodes:
                raise ValueError(f"a table for unknown node type {t!r} (node types: {self.node_types})")
            rows = table.shape[0] if hasattr(table, "shape") else len(table)
            if int(rows) != self.num_nodes[t]:
                raise ValueError(f"the table of node type {t!r} has {int(rows)} rows, the type has "
                                 f"{self.num_nodes[t]} nodes")

    @property
    def index_dtype(self) -> torch.dtype:
        """dtype of the node ids (seeds are converted to it)."""
        return self.graphs[self.edge_types[0]].indices.dtype

    def sample_typed_blocks(self, seed_type, seeds=None, num_neighbors=None, **kwargs) -> TypedBlocks:
        """See :func:`sample_typed_blocks` (``seed_type`` may be a ``{node_type: seeds}`` dict)."""
        return sample_typed_blocks(self, seed_type, seeds, num_neighbors, **kwargs)

    def __repr__(self) -> str:
        return (f"HeteroGraph(num_nodes={self.num_nodes}, edge_types={len(self.edge_types)}, "
                f"device={self.device})")


def _checked_seeds(graph: HeteroGraph, seeds, what: str) -> torch.Tensor:
    """``seeds`` as a 1-D tensor of the graph's index dtype on its device (CPU graph: CPU seeds)."""
    if not isinstance(seeds, torch.Tensor) or seeds.dim() != 1:
        raise ValueError(f"{what} must be a 1-D tensor")
    if seeds.is_floating_point() or seeds.dtype == torch.bool or seeds.is_complex():
        raise TypeError(f"{what} must be an integer tensor, got {seeds.dtype}")
    if graph.device.type == "cpu" and seeds.is_cuda:
        raise ValueError("the HeteroGraph is on the CPU: pass CPU seeds (or build it on a CUDA device)")
    return seeds.to(graph.device if graph.device.type == "cuda" else seeds.device, graph.index_dtype)


def sample_typed_blocks(graph: HeteroGraph, seed_type, seeds=None, num_neighbors=None, *,
                        default: Optional[Sequence[int]] = None, seed: int = 0, replace: bool = False,
                        check: bool = True, threads: int = 0) -> TypedBlocks:
    """Typed multi-layer sampling (docs/heterogeneous.md "Semantics") from ``seeds`` of
    ``seed_type``, or from seeds of several node types at once.

        sample_typed_blocks(graph, "paper", seeds, fanouts)                  # one seed type
        sample_typed_blocks(graph, {"author": a, "paper": p}, fanouts)      # per type (link seeds)

    With a dict (pyg-lib's seed dict; what a link batch of edge type (src, rel, dst) seeds:
    its src and dst endpoints), every named type's node list starts with its seeds, in the
    given order (repeats kept as separate rows), and those are its frontier at layer 0; types not
    named have none. Then as with one seed type, which is the dict form with one entry: the same
    blocks bit for bit.

    Args:
        graph: the :class:`HeteroGraph`.
        seed_type: node type of the seeds, or a ``{node_type: 1-D ids}`` dict (then ``seeds`` is
            left out, or passed as ``num_neighbors`` positionally: ``(graph, seed_dict, fanouts)``).
        seeds: 1-D ids of that type (converted to the graph's index dtype, and moved to a CUDA
            graph's device): the GPU sampler on torch's current stream for a CUDA graph, the
            host reference for a CPU graph (``device="cpu"``).
        num_neighbors: fanouts per layer for every edge type, or a dict per edge type (see
            :meth:`HeteroGraph.fanouts`; ``default`` for unnamed ones); -1 all, 0 none.
        seed: random key.  replace: sample with replacement.
        check: check the seeds (GPU: on the device, read back once).  threads: CPU threads (0: all).
    Returns:
        :class:`TypedBlocks` on the graph's device.
    Synchronises the current stream (the sizes).
    Raises:
        ValueError: an unknown seed type, a bad ``num_neighbors`` (naming the edge type), seeds
            that are not 1-D.
        IndexError: a seed outside its type's range ("seeds (node type 'paper')[i] = v ...").
        TypeError: seeds that are not an integer tensor.
    """
    if not isinstance(graph, HeteroGraph):
        raise TypeError(f"graph must be a gnndirect_torch.hetero.HeteroGraph, got {type(graph).__name__}")
    if isinstance(seed_type, Mapping):
        if num_neighbors is None:
            seeds, num_neighbors = None, seeds
        if seeds is not None:
            raise TypeError("sample_typed_blocks: with a {node_type: seeds} dict, pass no separate seeds")
        if num_neighbors is None:
            raise TypeError("sample_typed_blocks: num_neighbors is required")
        return _sample_typed_blocks_multi(graph, seed_type, num_neighbors, default=default, seed=seed,
                                          replace=replace, check=check, threads=threads)
    if seeds is None or num_neighbors is None:
        raise TypeError("sample_typed_blocks needs (graph, seed_type, seeds, num_neighbors) or "
                        "(graph, {node_type: seeds}, num_neighbors)")
    seed_index = graph.node_type_index(seed_type)
    fanouts = graph.fanouts(num_neighbors, default)
    seeds = _checked_seeds(graph, seeds, "seeds")
    graph_tensors = [t for e in graph.edge_types for t in (graph.graphs[e].indptr, graph.graphs[e].indices)]
    _check_fork("gnndirect_torch.sample_typed_blocks", seeds, *graph_tensors)
    src_types, dst_types, counts = graph._types()
    flat = graph._run("sample_typed_blocks",
                      [graph.graphs[e].indptr for e in graph.edge_types],
                      [graph.graphs[e].indices for e in graph.edge_types],
                      src_types, dst_types, counts, seed_index, seeds, [f for fs in fanouts for f in fs],
                      graph.max_degrees, int(seed), bool(replace), bool(check), int(threads))
    return _typed_blocks_of(graph, seed_type, seeds.shape[0], flat, len(fanouts[0]))


def _sample_typed_blocks_multi(graph: HeteroGraph, seeds: Mapping, num_neighbors, *, default, seed, replace,
                               check, threads) -> TypedBlocks:
    """The dict form of :func:`sample_typed_blocks` (op sample_typed_blocks_multi)."""
    per_type = {}
    for t, ids in seeds.items():
        graph.node_type_index(t)  # ValueError naming an unknown type
        per_type[t] = _checked_seeds(graph, ids, f"seeds[{t!r}]")
    fanouts = graph.fanouts(num_neighbors, default)
    like = next(iter(per_type.values()), None)
    empty = torch.empty(0, dtype=graph.index_dtype,
                        device=graph.device if graph.device.type == "cuda" or like is None else like.device)
    tensors = [per_type.get(t, empty) for t in graph.node_types]
    graph_tensors = [t for e in graph.edge_types for t in (graph.graphs[e].indptr, graph.graphs[e].indices)]
    _check_fork("gnndirect_torch.sample_typed_blocks", *tensors, *graph_tensors)
    src_types, dst_types, counts = graph._types()
    flat = graph._run("sample_typed_blocks_multi",
                      [graph.graphs[e].indptr for e in graph.edge_types],
                      [graph.graphs[e].indices for e in graph.edge_types],
                      src_types, dst_types, counts, tensors, [f for fs in fanouts for f in fs],
                      graph.max_degrees, int(seed), bool(replace), bool(check), int(threads))
    num_seeds = {t: int(x.shape[0]) for t, x in zip(graph.node_types, tensors)}
    out = _typed_blocks_of(graph, None, sum(num_seeds.values()), flat, len(fanouts[0]))
    out.num_seeds = num_seeds
    return out


def _typed_blocks_of(graph: HeteroGraph, seed_type: Optional[str], batch_size: int, flat, layers: int) -> TypedBlocks:
    """The :class:`TypedBlocks` of the op's flat output (see csrc/typed_common.hpp)."""
    types = graph.node_types
    count_rows = flat[0].tolist()
    counts = {t: count_rows[i] for i, t in enumerate(types)}
    nodes = {t: flat[1 + i] for i, t in enumerate(types)}
    out_layers = []
    i = 1 + len(types)
    for layer in range(layers):
        blocks = {}
        for e in graph.edge_types:
            c = counts[e[2]]
            begin = 0 if layer == 0 else c[layer - 1]
            blocks[e] = RelationBlock(edge_type=e, dst_begin=begin, num_dst=c[layer] - begin, offsets=flat[i],
                                      indices=flat[i + 1], edge_ids=flat[i + 2])
            i += 3
        out_layers.append(blocks)
    return TypedBlocks(seed_type=seed_type, batch_size=batch_size, nodes=nodes, counts=counts, layers=out_layers)
