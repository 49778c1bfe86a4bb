"""Writes keel's third held-out set (clinic, hiring, property) into the folder above this one.

Usage, from the repository root: python3 bench/holdout3/src/make.py [DOMAIN...] (needs PyYAML;
reuses the development suites' generator and checks, bench/suites/src/common.py, through
heldout.py)
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUITES_SRC = HERE.parent.parent / "suites" / "src"
sys.path.insert(0, str(SUITES_SRC))

from heldout import make_set  # noqa: E402

make_set(HERE, ["clinic", "hiring", "property"], "keel-holdout-3",
         "Held-out data written blind for keel (third held-out set), in the replay schema of "
         "AgentDojo's exported suites. Not AgentDojo data.")
