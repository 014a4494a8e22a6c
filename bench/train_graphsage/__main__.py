"""`python -m train_graphsage` (from bench/): the same run as bench/train_graphsage.py."""

import sys

from train_graphsage.run import main

sys.exit(main())
