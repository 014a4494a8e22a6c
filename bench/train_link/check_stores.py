"""A check of train_link's stores path (PyG's LinkNeighborLoader over gnndirect's stores with
GnnDirectSampler), for its lower test AUC on an H100 (0.744 against 0.808; docs/performance.md
section 9): the path's first 4 batches on the benchmark's own data against a second
GnnDirectSampler fed the same seed edges and keys (on a GPU: the same sampler on a device graph,
compared exactly; on the CPU the fast sampler's local ids may differ between runs, so there the
node and edge sets are compared, against the host sampler in both cases), the features against
``x[n_id]``, and the hop structure the model reads (``pyg_blocks``). Prints one line per batch
and ``DIAG all equal 0`` or ``DIAG BAD <count>``; exit 1 when a check failed.

    python bench/train_link/check_stores.py --scale 0.5 --epoch-edges 65536     # GPU
    python bench/train_link/check_stores.py --smoke-cpu --scale 0.02             # CPU
Takes train_link.py's arguments."""
import os
import sys
import torch
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gnndirect_torch as gd
from gnndirect_torch._util import products_shape
from gnndirect_torch.pyg import GnnDirectSampler
from torch_geometric.sampler import EdgeSamplerInput, NegativeSampling
from train_link.run import parse_args
from train_link.data import make_link_data
from train_link.paths import StoresPath, GdLinkPath, pyg_blocks
from train_graphsage.model import model_blocks

argv = sys.argv[1:]
args = parse_args(argv)
device = torch.device("cpu") if args.smoke_cpu else torch.device("cuda")
data = make_link_data(products_shape(args.scale), args, device)
path = StoresPath(data, args, device, args.placement)
where = {"device": "cpu"} if device.type == "cpu" else {"placement": "device"}
cpu = GnnDirectSampler(gd.Graph(data.indptr, data.indices, **where), args.fanouts, seed=args.seed)
host = GnnDirectSampler(gd.Graph(data.indptr, data.indices, device="cpu"), args.fanouts, seed=args.seed)


def global_edges(node, row, col):
    node = node.cpu().long()
    return torch.sort(node[row.cpu().long()] * (1 << 32) + node[col.cpu().long()]).values
bad = 0
for i, batch in enumerate(path.loader):
    if i >= 4:
        break
    inp = EdgeSamplerInput(batch.input_id.cpu(), data.train_edges[0, batch.input_id.cpu()],
                           data.train_edges[1, batch.input_id.cpu()])
    out = cpu.sample_from_edges(inp, NegativeSampling("binary", args.neg_ratio))
    hout = host.sample_from_edges(inp, NegativeSampling("binary", args.neg_ratio))
    n_id = batch.n_id.cpu()
    checks = {
        "n_id": torch.equal(n_id, out.node.cpu()),
        "row": torch.equal(batch.edge_index[0].cpu(), out.row.cpu().long()),
        "col": torch.equal(batch.edge_index[1].cpu(), out.col.cpu().long()),
        "edge_label_index": torch.equal(batch.edge_label_index.cpu(), out.metadata[1].cpu()),
        "edge_label": torch.equal(batch.edge_label.cpu().float(), out.metadata[2].cpu().float()),
        "x": torch.equal(batch.x.cpu(), data.x[n_id]),
        "host_node_set": torch.equal(n_id.sort().values, hout.node.cpu().long().sort().values),
        "host_edge_set": torch.equal(global_edges(n_id, batch.edge_index[0], batch.edge_index[1]),
                                     global_edges(hout.node, hout.row, hout.col)),
        "num_sampled_nodes": list(map(int, batch.num_sampled_nodes)) == list(map(int, out.num_sampled_nodes)),
        "num_sampled_edges": list(map(int, batch.num_sampled_edges)) == list(map(int, out.num_sampled_edges)),
    }
    if device.type == "cpu":  # the fast CPU sampler's local ids may differ between runs
        for key in ("n_id", "row", "col"):
            checks.pop(key)
    blocks = pyg_blocks(batch, len(args.fanouts))
    shapes = [(int(e.shape[1]), s, d) for e, s, d in blocks]
    checks["hops"] = len(blocks) == len(args.fanouts) and all(
        (e.shape[1] == 0 or (int(e[0].max()) < s and int(e[1].max()) < d)) for e, s, d in blocks)
    print(f"batch {i}: {shapes} dtypes x {batch.x.dtype} eli {batch.edge_label_index.dtype} "
          f"label {batch.edge_label.dtype}/{batch.edge_label.device} " +
          " ".join(f"{k}={'ok' if v else 'BAD'}" for k, v in checks.items()), flush=True)
    bad += sum(not v for v in checks.values())
gd_path = GdLinkPath("gnndirect" if device.type == "cuda" else "gnndirect-cpu", data, args, device, placement=args.placement)
for i, b in enumerate(gd_path.loader):
    if i >= 2:
        break
    blocks = model_blocks(b.blocks)
    print(f"gd batch {i}: {[(int(e.shape[1]), s, d) for e, s, d in blocks]} x {b.x.dtype} "
          f"eli {b.edge_label_index.dtype} label {b.edge_label.dtype}", flush=True)
print("DIAG", "BAD" if bad else "all equal", bad)
sys.exit(1 if bad else 0)
