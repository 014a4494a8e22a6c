"""The link-prediction data: train_graphsage's planted-community graph, its edges split into
test, message-passing and supervision edges, and the evaluation edges with their negatives."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from train_graphsage.data import generate

from .model import column_stats


@dataclass
class LinkData:
    """CPU tensors shared by every path.

    ``indptr``/``indices``: the message-passing graph as a CSC (node v's in-neighbours, sorted by
    target, int64); ``x`` [N, F] fp32 features; ``community`` [N]; ``train_edges`` [2, S]: the
    supervision edges of an epoch (source; destination); ``test_edges`` [2, P] the evaluated
    test positives and ``test_negatives`` [P, K] random destinations for their sources;
    ``stats``: the features' (mean, std) per column, the model's fixed input standardisation."""
    num_nodes: int
    indptr: torch.Tensor
    indices: torch.Tensor
    x: torch.Tensor
    community: torch.Tensor
    train_edges: torch.Tensor
    test_edges: torch.Tensor
    test_negatives: torch.Tensor
    num_edges_generated: int
    num_edges: int
    num_test_edges: int
    num_supervision_edges: int
    stats: tuple = None

    def edge_index(self) -> torch.Tensor:
        """The message-passing graph as a PyG edge_index [2, E] (source; target), sorted by
        target (PyG's ``is_sorted``)."""
        n = self.indptr.numel() - 1
        dst = torch.repeat_interleave(torch.arange(n), self.indptr[1:] - self.indptr[:-1],
                                      output_size=self.indices.numel())
        return torch.stack([self.indices, dst])

    def summary(self) -> dict:
        """Sizes for the JSON."""
        return {"num_nodes": self.num_nodes, "num_features": int(self.x.shape[1]),
                "num_edges_generated": self.num_edges_generated,
                "num_edges_distinct": self.num_edges,
                "num_message_passing_edges": int(self.indices.numel()),
                "num_test_edges": self.num_test_edges, "num_supervision_edges": self.num_supervision_edges,
                "epoch_edges": int(self.train_edges.shape[1]),
                "eval_edges": int(self.test_edges.shape[1]), "mrr_negatives": int(self.test_negatives.shape[1])}


def make_link_data(shape, args, device) -> LinkData:
    """Generates the graph on `device` (train_graphsage.data.generate: communities = its
    classes), keeps one copy of each distinct edge, splits them (``args.test_ratio`` test,
    ``args.disjoint_train_ratio`` of the rest held out of message passing as supervision-only
    edges) and draws the epoch's supervision edges and the evaluation negatives, all from
    ``args.seed``."""
    indptr, indices, x, community = generate(shape, args.seed, device, args.signal, args.p_in,
                                             features=args.features)[:4]
    n = indptr.numel() - 1
    g = torch.Generator(device=device).manual_seed(args.seed + 7)
    indptr, indices = indptr.to(device), indices.to(device)
    generated = indices.numel()
    dst = torch.repeat_interleave(torch.arange(n, device=device), indptr[1:] - indptr[:-1], output_size=generated)
    # one copy of each (source, target): a duplicate of a test edge must not pass messages
    key = torch.unique(dst * n + indices)  # sorted by target, then source: still a CSC order
    del dst, indices
    dst, indices = key // n, key % n
    del key
    total = indices.numel()
    role = torch.rand(total, generator=g, device=device)  # < test_ratio: test; then the disjoint share
    test = role < args.test_ratio
    cut = args.test_ratio + (1.0 - args.test_ratio) * args.disjoint_train_ratio
    supervision_only = (role >= args.test_ratio) & (role < cut)
    keep = ~(test | supervision_only)  # message passing; keeps the order (sorted by target)
    mp_indices, mp_dst = indices[keep], dst[keep]
    mp_indptr = torch.zeros(n + 1, dtype=torch.int64, device=device)
    torch.cumsum(torch.bincount(mp_dst, minlength=n), 0, out=mp_indptr[1:])
    pool_mask = supervision_only if args.disjoint_train_ratio > 0 else keep
    pool = torch.stack([indices[pool_mask], dst[pool_mask]])
    pick = torch.randperm(pool.shape[1], generator=g, device=device)
    if args.epoch_edges > 0:
        pick = pick[: args.epoch_edges]
    train_edges = pool[:, pick]
    test_all = torch.stack([indices[test], dst[test]])
    order = torch.randperm(test_all.shape[1], generator=g, device=device)[: args.eval_edges]
    test_edges = test_all[:, order]
    negatives = torch.randint(0, n, (test_edges.shape[1], args.mrr_negatives), generator=g, device=device)
    x = x.cpu()
    return LinkData(num_nodes=n, indptr=mp_indptr.cpu(), indices=mp_indices.cpu(), x=x, stats=column_stats(x),
                    community=community.cpu(), train_edges=train_edges.cpu(), test_edges=test_edges.cpu(),
                    test_negatives=negatives.cpu(), num_edges_generated=generated, num_edges=total,
                    num_test_edges=int(test.sum()), num_supervision_edges=int(pool.shape[1]))
