#!/usr/bin/env python3
"""Runs the README's PyG quickstart as written, on the CPU, against the installed gnndirect_torch
(scripts/test's Python step; needs torch, torch_geometric and the built extension).

    python test/python/check_readme_quickstart.py [REPO_ROOT]

The block is the ```python block after the README's `<!-- quickstart: pyg -->` marker. It runs in
a fresh interpreter from a scratch directory (so that `import gnndirect_torch` finds the installed
package, not python/) with CUDA_VISIBLE_DEVICES="" (the CPU path also on a GPU machine), followed
by checks of what it produced: the CPU device was used, every batch the loader gave had the seeds
first and x / y equal to the Data's rows of its n_id, the epochs covered every node, and the
trained model classifies the nodes clearly better than chance (FakeDataset's features carry the
label). Prints one line per check; exits 1 on a failure, 2 when the block is missing.

`--extract` prints the block and exits (test/python/check_python.py's host check uses it).
"""

import os
import re
import subprocess
import sys
import tempfile

MARKER = "<!-- quickstart: pyg -->"

#: Runs after the block in the same interpreter: wraps nothing, only inspects the block's names.
CHECKS = r'''
import math
import torch
assert device == "cpu", f"the quickstart chose device {device!r}; CUDA_VISIBLE_DEVICES='' should give 'cpu'"
print("ok   device:", device)
seen, batches, seeds = torch.zeros(data.num_nodes, dtype=torch.bool), 0, 0
for batch in loader:                      # one more epoch, inspected batch by batch
    batches += 1
    seeds += batch.batch_size
    n_id = batch.n_id.cpu()
    assert batch.x.device.type == "cpu" and torch.equal(batch.x.cpu(), data.x[n_id]), "batch.x != data.x[n_id]"
    assert torch.equal(batch.y.cpu(), data.y[n_id]), "batch.y != data.y[n_id]"
    assert batch.edge_index.numel() == 0 or int(batch.edge_index.max()) < n_id.numel(), "edge_index beyond n_id"
    seen[n_id[:batch.batch_size]] = True
assert batches == math.ceil(data.num_nodes / 256), f"{batches} batches for {data.num_nodes} nodes"
assert bool(seen.all()) and seeds == data.num_nodes, f"{seeds} seeds, {int((~seen).sum())} nodes never one"
print(f"ok   {batches} batches: x and y equal the Data's rows, every node a seed once")
assert math.isfinite(loss.item()), f"loss {loss.item()}"
model.eval()
with torch.no_grad():
    accuracy = (model(data.x, data.edge_index).argmax(dim=1) == data.y).float().mean().item()
classes = int(data.y.max()) + 1
assert accuracy > 1.0 / classes + 0.25, f"accuracy {accuracy:.3f} after training (chance {1 / classes:.3f})"
print(f"ok   trained: full-graph accuracy {accuracy:.3f} (chance {1 / classes:.3f}), last loss {loss.item():.3f}")
'''


def extract(readme_path):
    """The code of the ```python block after MARKER in the README, or None."""
    with open(readme_path, encoding="utf-8") as f:
        text = f.read()
    position = text.find(MARKER)
    if position < 0:
        return None
    found = re.compile(r"\s*```python\n(.*?)\n```", re.S).match(text, position + len(MARKER))
    return found.group(1) + "\n" if found else None


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), "..", ".."))
    code = extract(os.path.join(root, "README.md"))
    if code is None:
        print(f"FAILED: no ```python block after {MARKER!r} in README.md")
        return 2
    if "--extract" in argv:
        sys.stdout.write(code)
        return 0
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)  # the installed package, as a user has it
    with tempfile.TemporaryDirectory() as scratch:
        script = os.path.join(scratch, "quickstart.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write("# README.md's PyG quickstart, as written\n" + code + "\n# checks\n" + CHECKS)
        done = subprocess.run([sys.executable, script], cwd=scratch, env=env, timeout=900)
    if done.returncode != 0:
        print(f"FAILED: the README's PyG quickstart (exit {done.returncode})")
        return 1
    print("README PyG quickstart: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
