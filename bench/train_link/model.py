"""The model every path trains (GraphSAGE encoder over message-flow blocks, dot-product decoder),
its train step, and the test metrics: rank-based AUC, MRR, and the evaluator that scores the
test edges the same way for every path."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from train_graphsage.model import model_blocks


class SAGELayer(torch.nn.Module):
    """GraphSAGE with mean aggregation: out[i] = W_l mean_{j -> i} x[j] + W_r x[i] (a target
    without in-edges aggregates zeros)."""

    def __init__(self, in_dim: int, out_dim: int):
        super().__init__()
        self.neighbours = torch.nn.Linear(in_dim, out_dim)
        self.root = torch.nn.Linear(in_dim, out_dim, bias=False)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, num_dst: int) -> torch.Tensor:
        """`x`: the block's src rows (its first `num_dst` are the dst rows); `edge_index` [2, E]
        local (src; dst)."""
        src, dst = edge_index[0], edge_index[1]
        total = x.new_zeros((num_dst, x.shape[1])).index_add_(0, dst, x.index_select(0, src))
        # index_add_ of ones, not bincount: bincount on CUDA reads the maximum back (a host sync)
        degree = x.new_zeros(num_dst).index_add_(0, dst, x.new_ones(dst.shape[0])).clamp_(min=1)
        return self.neighbours(total / degree.unsqueeze(1)) + self.root(x[:num_dst])


class Encoder(torch.nn.Module):
    """Standardised input columns ((x - mean) / std, fixed: the generated columns' scales span
    2.5 decades), then `layers` SAGELayers (ReLU and dropout between them) over
    input-side-first blocks [(edge_index, num_src, num_dst)]; the output rows are the last
    block's dst nodes."""

    def __init__(self, in_dim: int, hidden: int, layers: int, mean: torch.Tensor, std: torch.Tensor,
                 dropout: float = 0.2):
        super().__init__()
        dims = [in_dim] + [hidden] * layers
        self.layers = torch.nn.ModuleList(SAGELayer(dims[i], dims[i + 1]) for i in range(layers))
        self.dropout = dropout
        self.register_buffer("mean", mean.float().clone())
        self.register_buffer("inv_std", 1.0 / std.float().clamp(min=1e-6))

    def forward(self, x: torch.Tensor, blocks) -> torch.Tensor:
        """Embeddings of the dst rows of the last block."""
        x = (x.float() - self.mean) * self.inv_std
        for i, (edge_index, _, num_dst) in enumerate(blocks):
            x = self.layers[i](x, edge_index, num_dst)
            if i + 1 < len(self.layers):
                x = F.dropout(F.relu(x), p=self.dropout, training=self.training)
        return x


def column_stats(x: torch.Tensor, chunk: int = 1 << 20):
    """(mean, std) of each column of `x` [N, F] (float64 sums, `chunk` rows at a time)."""
    total = torch.zeros(x.shape[1], dtype=torch.float64)
    squares = torch.zeros_like(total)
    for b in range(0, x.shape[0], chunk):
        rows = x[b: b + chunk].double()
        total += rows.sum(0)
        squares += rows.square().sum(0)
    mean = total / max(1, x.shape[0])
    return mean.float(), (squares / max(1, x.shape[0]) - mean.square()).clamp(min=0).sqrt().float()


def make_model(num_features: int, hidden: int, layers: int, seed: int, device, stats) -> Encoder:
    """The encoder with the weights of `seed` (the same for every path); `stats`: the features'
    (mean, std) per column (column_stats)."""
    torch.manual_seed(seed)
    return Encoder(num_features, hidden, layers, *stats).to(device)


def dot_scores(h_src: torch.Tensor, h_dst: torch.Tensor) -> torch.Tensor:
    """The decoder: one logit per pair, the dot product of the two embeddings."""
    return (h_src * h_dst).sum(dim=-1)


def train_step(model, optimizer, x, blocks, edge_label_index, edge_label) -> torch.Tensor:
    """One step: embeddings of the seed nodes (the model's output rows), a logit per labelled
    edge, binary cross-entropy against `edge_label` (1 positive, 0 negative). Returns the loss
    (detached, not synchronised)."""
    model.train()
    h = model(x, blocks)
    logits = dot_scores(h[edge_label_index[0]], h[edge_label_index[1]])
    loss = F.binary_cross_entropy_with_logits(logits, edge_label.to(logits.dtype))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss.detach()


def roc_auc(pos: torch.Tensor, neg: torch.Tensor) -> float:
    """Area under the ROC curve of scores `pos` (positives) against `neg` (negatives): the
    Mann-Whitney statistic from the ranks of all scores (tied scores share their mean rank),
    i.e. P(pos > neg) + P(pos == neg) / 2. NaN when either side is empty."""
    pos, neg = pos.detach().double().flatten().cpu(), neg.detach().double().flatten().cpu()
    p, q = pos.numel(), neg.numel()
    if p == 0 or q == 0:
        return float("nan")
    scores = torch.cat([pos, neg])
    ordered, order = torch.sort(scores)
    _, inverse, counts = torch.unique_consecutive(ordered, return_inverse=True, return_counts=True)
    last = torch.cumsum(counts, 0).double()  # 1-based rank of each tie group's last member
    mean_rank = last - (counts.double() - 1) / 2
    ranks = torch.empty_like(scores)
    ranks[order] = mean_rank[inverse]
    return float((ranks[:p].sum() - p * (p + 1) / 2) / (p * q))


def mrr(pos: torch.Tensor, neg: torch.Tensor) -> float:
    """Mean reciprocal rank of each positive score `pos[i]` among its own negatives `neg[i, :]`
    (rank 1 + the negatives above it + half the ties), in (0, 1]."""
    pos, neg = pos.detach().double().cpu(), neg.detach().double().cpu()
    above = (neg > pos.unsqueeze(1)).sum(dim=1).double()
    ties = (neg == pos.unsqueeze(1)).sum(dim=1).double()
    return float((1.0 / (1.0 + above + ties / 2)).mean())


class LinkEvaluator:
    """Scores the test edges for any path's model: the embeddings of every node the test edges
    and their negatives touch, each batch of ``batch_size`` of them sampled from ``graph`` (a
    gd.Graph, CPU or CUDA) with fixed seeds and gathered from ``table`` (a gd.Table), then
    AUC and MRR (see the package doc)."""

    def __init__(self, graph, table, fanouts, batch_size: int, test_edges: torch.Tensor,
                 negatives: torch.Tensor):
        self.graph, self.table, self.fanouts, self.batch_size = graph, table, list(fanouts), batch_size
        self.test_edges, self.negatives = test_edges, negatives
        self.nodes = torch.unique(torch.cat([test_edges.flatten(), negatives.flatten()]))

    @torch.no_grad()
    def embed(self, model, table=None) -> torch.Tensor:
        """[len(self.nodes), hidden] embeddings, on the CPU (`table`: another gd.Table of the
        same rows, e.g. a path's decoded one)."""
        model.eval()
        table = table if table is not None else self.table
        out = []
        for b in range(0, self.nodes.numel(), self.batch_size):
            seeds = self.nodes[b: b + self.batch_size].to(self.graph.device, self.graph.indices.dtype)
            blocks = self.graph.sample_blocks(seeds, self.fanouts, seed=12345 + b)
            x = table.gather(blocks[-1].src_nodes)
            out.append(model(x, model_blocks(blocks)).float().cpu())
        return torch.cat(out)

    @torch.no_grad()
    def evaluate(self, model, table=None) -> dict:
        """{"test_auc", "test_mrr"} of `model` (see the package doc)."""
        h = self.embed(model, table)
        where = lambda ids: torch.searchsorted(self.nodes, ids)  # noqa: E731 (nodes are sorted)
        h_src = h[where(self.test_edges[0])]
        pos = dot_scores(h_src, h[where(self.test_edges[1])])
        neg = torch.cat([dot_scores(h_src[i: i + 1024].unsqueeze(1), h[where(self.negatives[i: i + 1024])])
                         for i in range(0, h_src.shape[0], 1024)])
        return {"test_auc": roc_auc(pos, neg), "test_mrr": mrr(pos, neg)}
