"""Writes the sixth held-out set (lawfirm, restaurant, lab) into the folder above this one.

Usage: python3 src/make.py [DOMAIN...]   (from the set's folder, or anywhere)
Needs PyYAML. Builds through the development suites' bench/suites/src/heldout.py and
common.py, unchanged and imported by path (h6.suites_src() says where it looks).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import h6  # noqa: E402  (puts bench/suites/src on the path)
from heldout import make_set  # noqa: E402

DOMAINS = ["lawfirm", "restaurant", "lab"]
VERSION = "keel-holdout-6"
NOTE = ("Sixth held-out set, written blind for keel (the author read neither the gate's "
        "source nor earlier held-out sets), in the replay schema of AgentDojo's exported "
        "suites. Not AgentDojo data.")

if __name__ == "__main__":
    make_set(HERE, DOMAINS, VERSION, NOTE)
