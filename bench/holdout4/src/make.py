"""Writes the fourth held-out set (accounting, school, smarthome) into bench/holdout4/.

Usage: python3 bench/holdout4/src/make.py [DOMAIN...]   (needs PyYAML)

The domain modules beside this file hold each suite's tools, environment and tasks. They are
built and checked by keel's own generator (bench/suites/src/common.py, unchanged), reached
through bench/suites/src/heldout.py by path, the way the earlier held-out sets do it.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUITES_SRC = HERE.parent.parent / "suites" / "src"  # common.py and heldout.py, not copied

sys.path.insert(0, str(SUITES_SRC))
from heldout import make_set  # noqa: E402

make_set(HERE, ["accounting", "school", "smarthome"], "keel-holdout-4",
         "Held-out data written blind for keel (fourth set), in the replay schema of "
         "AgentDojo's exported suites, by an author who did not read the gate. Not "
         "AgentDojo data.")
