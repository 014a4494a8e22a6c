#!/usr/bin/env python3
"""GraphSAGE with PyG, and the two lines that change to train it through gnndirect.

PyG's loop samples on the CPU, gathers features on the CPU and copies each batch to the GPU.
With gnndirect the graph and the features stay in host memory and the GPU samples and gathers
straight from there; the model and the training step do not change. The two lines are in
make_loader(); everything else is PyG's usual NeighborLoader loop.

    python examples/pytorch/graphsage.py            # through gnndirect (GPU, gnndirect_torch)
    python examples/pytorch/graphsage.py --pyg      # PyG's NeighborLoader, for comparison

Needs torch, torch_geometric and, for the gnndirect run, the extension (pip install
--no-build-isolation ./python) and a GPU. The measured comparison of every loader path (sweeps,
CPU core-seconds, accuracy, the paper's table) is bench/train_graphsage.py.
"""

import argparse
import sys
import time


def make_data(num_nodes, num_edges, num_features, num_classes):
    """A random graph with features and labels that depend on them (a learnable stand-in for a
    dataset such as ogbn-products: data.x, data.y, data.edge_index on the CPU)."""
    import torch
    from torch_geometric.data import Data

    g = torch.Generator().manual_seed(0)
    x = torch.randn(num_nodes, num_features, generator=g)
    y = x[:, :num_classes].argmax(dim=1)
    edge_index = torch.randint(0, num_nodes, (2, num_edges), generator=g)
    return Data(x=x, y=y, edge_index=edge_index)


def make_model(num_features, num_classes):
    """PyG's GraphSAGE over a sampled subgraph (the seeds are its first batch_size nodes)."""
    import torch
    import torch.nn.functional as F
    from torch_geometric.nn import SAGEConv

    class SAGE(torch.nn.Module):
        def __init__(self, dims):
            super().__init__()
            self.convs = torch.nn.ModuleList(SAGEConv(a, b) for a, b in zip(dims[:-1], dims[1:]))

        def forward(self, x, edge_index):
            for i, conv in enumerate(self.convs):
                x = conv(x, edge_index)
                if i + 1 < len(self.convs):
                    x = F.relu(x)
            return x

    return SAGE([num_features, 256, 256, num_classes])


def make_loader(data, train_idx, use_pyg):
    """The one place that differs: PyG's NeighborLoader, or gnndirect's."""
    if use_pyg:
        from torch_geometric.loader import NeighborLoader
        return NeighborLoader(data, num_neighbors=[15, 10, 5], input_nodes=train_idx, batch_size=1024,
                              shuffle=True)
    import gnndirect_torch
    # The two-line change: a Table of the features in host memory, and gnndirect's loader.
    table = gnndirect_torch.Table(data.x, placement="auto")
    return gnndirect_torch.NeighborLoader(gnndirect_torch.Graph.from_edge_index(data.edge_index, data.num_nodes),
                                          table, data.y, train_idx, fanouts=[15, 10, 5], batch_size=1024)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pyg", action="store_true", help="PyG's own NeighborLoader instead of gnndirect's")
    parser.add_argument("--nodes", type=int, default=200_000, help="nodes of the random graph (default 200000)")
    parser.add_argument("--epochs", type=int, default=2, help="epochs (default 2)")
    args = parser.parse_args(argv)
    import torch
    import torch.nn.functional as F

    if not torch.cuda.is_available():
        print("graphsage: no CUDA device found; this example needs an NVIDIA GPU.", file=sys.stderr)
        return 1
    device = torch.device("cuda")
    data = make_data(args.nodes, 20 * args.nodes, 100, 8)
    train_idx = torch.arange(0, args.nodes, 10)
    model = make_model(data.num_features, 8).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loader = make_loader(data, train_idx, args.pyg)

    for epoch in range(args.epochs):
        model.train()
        start, correct, seen = time.perf_counter(), 0, 0
        for batch in loader:
            # PyG's batch is a Data on the CPU; gnndirect's is already on the GPU (to_pyg: as a Data).
            batch = batch.to(device) if args.pyg else batch.to_pyg()
            out = model(batch.x, batch.edge_index)[: batch.batch_size]
            y = batch.y[: batch.batch_size]
            loss = F.cross_entropy(out, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            correct += int((out.argmax(dim=1) == y).sum())
            seen += batch.batch_size
        torch.cuda.synchronize()
        print("epoch %d: %.2f s, loss %.3f, train accuracy %.3f"
              % (epoch, time.perf_counter() - start, float(loss), correct / max(seen, 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
