#!/usr/bin/env python3
"""GraphSAGE on a generated ogbn-products- or papers100M-shaped graph, trained through several
data paths in one run (epoch time, time split, test accuracy and CPU core-seconds per path).

The entry point only: the benchmark is the package bench/train_graphsage/ (data.py, model.py,
measure.py, loaders.py, run.py; its doc and `--help` describe the paths, the features, the time
split and the sweeps). The command line and the JSON are the package's run.main.

    python bench/train_graphsage.py                 # products-shaped, all paths
    python bench/train_graphsage.py --scale 0.1 --epochs 1 --json out.json
    python bench/train_graphsage.py --smoke-cpu --scale 0.01 --paths pyg,pygfast,hostref   # no GPU
"""

import os
import sys

if __name__ == "__main__":
    # bench/ is sys.path[0] when this runs as a script; `train_graphsage` is then the package
    # beside this file (a package wins over a module of the same name).
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from train_graphsage.run import main

    sys.exit(main())
