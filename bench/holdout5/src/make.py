"""Writes keel's fifth held-out set (insurance, logistics, nonprofit) into bench/holdout5/.

Usage, from the repository root: python3 bench/holdout5/src/make.py [DOMAIN...]
Needs PyYAML. Builds through bench/suites/src/heldout.py and common.py, imported by path and
unchanged.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUITES_SRC = HERE.parents[1] / "suites" / "src"
sys.path.insert(0, str(SUITES_SRC))

from heldout import make_set  # noqa: E402

DOMAINS = ["insurance", "logistics", "nonprofit"]
VERSION = "keel-holdout5-1"
NOTE = ("Held-out data written blind for keel (fifth set), in the replay schema of AgentDojo's "
        "exported suites. Not AgentDojo data. Written without reading the gate, its docs, the "
        "attack sets or the earlier held-out sets, and generated and checked before any "
        "measurement.")

if __name__ == "__main__":
    make_set(HERE, DOMAINS, VERSION, NOTE)
