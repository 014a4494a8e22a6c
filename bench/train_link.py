#!/usr/bin/env python3
"""Link prediction (GraphSAGE encoder + dot-product decoder) on a generated ogbn-products-shaped
graph, trained through several data paths in one run: epoch time, CPU core-seconds, the
loader's share of the epoch, and test AUC / MRR per path.

The entry point only: the benchmark is the package bench/train_link/ (its doc and `--help`
describe the paths, the data and the metrics). The command line and the JSON are its run.main.

    python bench/train_link.py --json out.json                          # products-shaped, all paths
    python bench/train_link.py --scale 0.1 --paths gnndirect,gpu,pyg --workers 16
    python bench/train_link.py --smoke-cpu --paths gnndirect-cpu,pyg    # no GPU: a tiny graph
"""

import os
import sys

if __name__ == "__main__":
    # bench/ is sys.path[0] when this runs as a script; `train_link` is then the package beside
    # this file (a package wins over a module of the same name).
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from train_link.run import main

    sys.exit(main())
