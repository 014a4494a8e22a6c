"""The model every path trains: GraphSAGE over message-flow blocks, its train step, the stream it
trains on, and the test accuracy."""

from __future__ import annotations

import contextlib

import torch
import torch.nn.functional as F

import gnndirect_torch as gd


def make_model(num_features, hidden, num_classes, layers, seed, device):
    from torch_geometric.nn import SAGEConv

    class SAGE(torch.nn.Module):
        """GraphSAGE over message-flow blocks (input side first): layer i maps the src rows of
        its block to its dst rows (the first num_dst src rows)."""

        def __init__(self):
            super().__init__()
            dims = [num_features] + [hidden] * (layers - 1) + [num_classes]
            self.convs = torch.nn.ModuleList(SAGEConv(dims[i], dims[i + 1]) for i in range(layers))

        def forward(self, x, blocks):
            for i, (edge_index, num_src, num_dst) in enumerate(blocks):
                x = self.convs[i]((x, x[:num_dst]), edge_index, size=(num_src, num_dst))
                if i + 1 < len(self.convs):
                    x = F.dropout(F.relu(x), p=0.2, training=self.training)
            return x

    torch.manual_seed(seed)
    return SAGE().to(device)


def model_blocks(blocks):
    """Our blocks (seeds side first) as the model's input-side-first (edge_index, src, dst)."""
    return [(b.edge_index(), b.num_src, b.num_dst) for b in reversed(blocks)]


def train_step(model, optimizer, x, y, blocks):
    """One step on the seeds' rows: the first len(y) outputs (all of them for blocks; the
    seeds of a whole sampled subgraph, PyG's node order puts them first)."""
    model.train()
    out = model(x, blocks)[: y.shape[0]]
    loss = F.cross_entropy(out, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss.detach()


def training_stream(args, device):
    """Context of the stream the loop trains on: torch's current stream, or with
    --train-priority high a new stream of the highest priority, so that when preparation kernels
    and training kernels both wait for SMs the block scheduler serves training first (running
    blocks are not preempted). Every path gets the same stream choice."""
    if device.type != "cuda" or args.train_priority == "default":
        return contextlib.nullcontext()
    return torch.cuda.stream(torch.cuda.Stream(device, priority=-(1 << 10)))  # clamped to the highest


@torch.no_grad()
def evaluate(model, eval_graph, eval_x, y, test, args, device):
    """Accuracy on the test nodes with sampled neighbourhoods (same fanouts, fixed seed), the
    same sampler and features for every path's model."""
    model.eval()
    correct = 0
    bs = args.eval_batch_size
    for b in range(0, test.shape[0], bs):
        seeds = test[b: b + bs]
        if device.type == "cuda":
            blocks = eval_graph.sample_blocks(seeds.to(device), args.fanouts, seed=12345 + b)
            xb = eval_x.gather(blocks[-1].src_nodes)
        else:
            indptr, indices = eval_graph
            blocks = gd.sample_blocks(indptr, seeds, args.fanouts, indices=indices, seed=12345 + b)
            xb = eval_x.index_select(0, blocks[-1].src_nodes)
        pred = model(xb, model_blocks(blocks)).argmax(dim=-1)
        correct += int((pred.cpu() == y[seeds]).sum())
    return correct / max(1, test.shape[0])
