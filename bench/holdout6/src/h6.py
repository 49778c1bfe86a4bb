"""Helpers shared by the sixth held-out set's domain modules (lawfirm, restaurant, lab).

The development suites' `common.py` (unchanged, imported by path) builds and checks each
suite; this module only adds what these three domains need on top of it: the double-quoted
rendering some products' servers use, a test that a value really is split by a YAML
continuation, and the automatic `read-tool-noun` tag.
"""

import json
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def suites_src() -> Path:
    """Where the development suites' generator lives (common.py, heldout.py)."""
    cands = []
    if os.environ.get("KEEL_SUITES_SRC"):
        cands.append(Path(os.environ["KEEL_SUITES_SRC"]))
    cands += [HERE.parent.parent / "suites" / "src", Path("/work/main/bench/suites/src")]
    for c in cands:
        if (c / "common.py").is_file() and (c / "heldout.py").is_file():
            return c.resolve()
    raise SystemExit("cannot find bench/suites/src (set KEEL_SUITES_SRC)")


if str(suites_src()) not in sys.path:
    sys.path.insert(0, str(suites_src()))

import yaml  # noqa: E402

from common import call, jdump  # noqa: E402

# The words bench/suites/README.md lists for class 5 (a read-only tool whose name or
# description holds a word today's classifier reads as a writing verb).
NOUN_WORDS = ["file type", "types", "opening", "posted", "created", "booking", "request",
              "saved"]


def dq(obj) -> str:
    """A structured result as a server renders it when any character may occur in a value:
    PyYAML, every scalar double-quoted, lines continued past 80 columns."""
    return yaml.safe_dump(obj, sort_keys=False, allow_unicode=False, width=80,
                          default_style='"').rstrip("\n")


def ok(function, args, message, **extra):
    return call(function, args, jdump({"status": "ok", **extra, "message": message}))


def split_by_continuation(text: str, value: str) -> bool:
    """True if `value` is not in the raw text but is in a string of the parsed YAML: that is,
    the double-quoted scalar holding it was continued inside it."""
    if value in text:
        return False

    def strings(o):
        if isinstance(o, str):
            yield o
        elif isinstance(o, dict):
            for v in o.values():
                yield from strings(v)
        elif isinstance(o, list):
            for v in o:
                yield from strings(v)

    return any(value in s for s in strings(yaml.safe_load(text)))


def assert_split(text: str, value: str, where: str):
    if not split_by_continuation(text, value):
        lines = [ln for ln in text.splitlines() if any(w in ln for w in value.split()[:2])]
        raise SystemExit(f"{where}: {value!r} is not split by a continuation:\n"
                         + "\n".join(lines))


GOAL_CONT = re.compile(r"\\\n[ ]*\\ ")


def unfold_goal(goal: str) -> str:
    """An injection goal written the way a double-quoted scalar continues: backslash at the
    end of a line, then an escaped space after the indentation."""
    return GOAL_CONT.sub(" ", goal)


def tag_read_tool_nouns(tools, reads, user_tasks):
    """Adds `read-tool-noun` to every user task that calls a read-only tool whose name or
    description contains one of NOUN_WORDS (the descriptions were written first)."""
    nouny = set()
    for t in tools:
        if t["name"] not in reads:
            continue
        text = (t["name"].replace("_", " ") + " " + t["description"]).lower()
        if any(w in text for w in NOUN_WORDS):
            nouny.add(t["name"])
    for u in user_tasks:
        if any(c["function"] in nouny for c in u["trace"]) and "read-tool-noun" not in u["tags"]:
            u["tags"].append("read-tool-noun")
    return nouny


def roundtrip(obj):
    """The environment as its JSON file holds it (the renderers read only this)."""
    return json.loads(json.dumps(obj))


def benign(c, vectors):
    """An injection's own read: the environment's text with each vector's benign default in
    place of its canary (a canary may not appear in an injection's results)."""
    from common import CANARY_RE
    out = CANARY_RE.sub(lambda m: vectors[m.group(1)]["default"], c["result"])
    return {**c, "result": out}


def canary_in(vector: str, text: str) -> bool:
    from common import canary
    return canary(vector) in text
