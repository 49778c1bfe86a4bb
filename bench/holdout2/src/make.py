"""Writes the second held-out suites (and their environment files) into bench/holdout2/.

Usage, from the repository root: python3 bench/holdout2/src/make.py [DOMAIN...]
Reuses the development suites' generator and checks (bench/suites/src/common.py) unchanged,
through bench/suites/src/heldout.py; only the output folder and the provenance note differ.
Needs PyYAML.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "suites" / "src"))
from heldout import make_set  # noqa: E402

make_set(
    HERE,
    ["cloudops", "family"],
    "keel-holdout-2",
    "Second held-out data for keel's gate, written blind on 2026-12-06 (without "
    "reading the gate's rules, docs/safety.md, bench/attacks or the first held-out "
    "suites), in the replay schema of AgentDojo's exported suites. Not AgentDojo "
    "data; never tune the gate on it.",
)
