"""`python -m train_link` (from bench/): the same run as bench/train_link.py."""

import sys

from train_link.run import main

sys.exit(main())
