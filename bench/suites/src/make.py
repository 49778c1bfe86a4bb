"""Writes every development suite (and its environment file) into bench/suites/.

Usage, from the repository root: python3 bench/suites/src/make.py [DOMAIN...]
Needs PyYAML (results are rendered as PyYAML renders them, like AgentDojo's tools).
"""

import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOMAINS = ["drive", "teamchat", "bookings", "codehost", "mailcal"]

sys.path.insert(0, str(HERE))
for name in sys.argv[1:] or DOMAINS:
    if name not in DOMAINS:
        raise SystemExit(f"unknown domain {name}; the domains are {DOMAINS}")
    doc = importlib.import_module(name).make(HERE.parent)
    print(f"{doc['suite']}: {doc['counts']}")
