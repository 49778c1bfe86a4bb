"""Writes a held-out set: suites made by the development suites' generator and checks
(common.py, unchanged) into another folder, marked with the set's version and a note on
where they came from. Each set's own make.py names its folder, domains, version and note.
"""

import importlib
import json
import sys
from pathlib import Path


def make_set(here: Path, domains: list[str], version: str, note: str) -> None:
    """Generates `domains` (the modules beside the set's make.py, in `here`) into the folder
    above it, or only the domains named on the command line."""
    out = here.parent
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # common.py
    sys.path.insert(0, str(here))
    for name in sys.argv[1:] or domains:
        if name not in domains:
            raise SystemExit(f"unknown domain {name}; the domains are {domains}")
        doc = importlib.import_module(name).make(out)
        # Same schema as the development suites; say where these came from.
        for path in (out / f"{doc['suite']}.json", out / f"{doc['suite']}.environment.json"):
            data = json.loads(path.read_text())
            data["benchmark_version"] = version
            if "source" in data:
                data["source"]["note"] = note
            path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        print(f"{doc['suite']}: {doc['counts']}")
