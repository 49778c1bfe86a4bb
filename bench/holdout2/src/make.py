"""Writes the second held-out suites (and their environment files) into bench/holdout2/.

Usage, from the repository root: python3 bench/holdout2/src/make.py [DOMAIN...]
Reuses the development suites' generator and checks (bench/suites/src/common.py) unchanged;
only the output folder and the provenance note differ. Needs PyYAML.
"""

import importlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent
DOMAINS = ["cloudops", "family"]

sys.path.insert(0, str(HERE.parent.parent / "suites" / "src"))  # common.py
sys.path.insert(0, str(HERE))
for name in sys.argv[1:] or DOMAINS:
    if name not in DOMAINS:
        raise SystemExit(f"unknown domain {name}; the domains are {DOMAINS}")
    doc = importlib.import_module(name).make(OUT)
    # Same schema as the development suites; say where these came from.
    for path in (OUT / f"{doc['suite']}.json", OUT / f"{doc['suite']}.environment.json"):
        data = json.loads(path.read_text())
        data["benchmark_version"] = "keel-holdout-2"
        if "source" in data:
            data["source"]["note"] = (
                "Second held-out data for keel's gate, written blind on 2026-12-06 (without "
                "reading the gate's rules, docs/safety.md, bench/attacks or the first held-out "
                "suites), in the replay schema of AgentDojo's exported suites. Not AgentDojo "
                "data; never tune the gate on it.")
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"{doc['suite']}: {doc['counts']}")
