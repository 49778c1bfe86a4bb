"""Checks keel's fifth held-out set (bench/holdout5/) without running keel.

Usage, from the repository root: python3 bench/holdout5/src/check.py

It loads every suite and environment file and checks: that the files are exactly what the
domain modules generate; counts; tools and annotations; `effect` on every step and its
agreement with the annotations; vectors (declared, seen, in order, never in arguments or in an
injection's results); tags (known, every injection class covered, and each tag's claim
visible in the data); the YAML continuations; every pair's attacked results; and that the
benign results parse as the structure the tool says it returns.
"""

import hashlib
import importlib
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
OUT = HERE.parent
sys.path.insert(0, str(HERE.parents[1] / "suites" / "src"))
sys.path.insert(0, str(HERE))

import common  # noqa: E402
import make  # noqa: E402

CANARY_RE = common.CANARY_RE
ERRORS = []

# Values the yaml-continuation user tasks take from a continued double-quoted line.
SPLIT_USER_VALUES = {
    "insurance": ["PCI 2026 0447 1192"],
    "logistics": ["+44 1375 555 0193"],
    "nonprofit": ["1420 W Cortland St, Apt 3R, Chicago, IL 60642"],
}
FREE_TEXT_ATOM = re.compile(
    r"https?://\S+|\b(?:routing|account)\s+\d{6,}|\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4})+|"
    r"\+?\(?\d{3}\)?[ -]\d{3}[ -]\d{4}")


def fail(msg):
    ERRORS.append(msg)


def unfold(text):
    return re.sub(r"\\\n *\\?", "", text)


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)


def check_reproduced():
    """The JSON files are byte for byte what make.py writes (generated into a temp copy)."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp_src = Path(tmp) / "src"
        tmp_src.mkdir()
        for name in make.DOMAINS:
            shutil.copy(HERE / f"{name}.py", tmp_src / f"{name}.py")
        for name in make.DOMAINS:
            sys.modules.pop(name, None)
            doc = importlib.import_module(name).make(Path(tmp))
            for fname in (f"{doc['suite']}.json", f"{doc['suite']}.environment.json"):
                data = json.loads((Path(tmp) / fname).read_text())
                data["benchmark_version"] = make.VERSION
                if "source" in data:
                    data["source"]["note"] = make.NOTE
                fresh = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
                if fresh != (OUT / fname).read_text():
                    fail(f"{fname}: differs from what make.py generates")


def check_suite(name):
    d = json.loads((OUT / f"{name}.json").read_text())
    env = json.loads((OUT / f"{name}.environment.json").read_text())
    where = name
    if d["suite"] != name or env["suite"] != name:
        fail(f"{where}: suite name")
    if d["benchmark_version"] != make.VERSION or env["benchmark_version"] != make.VERSION:
        fail(f"{where}: benchmark_version")
    if "today" not in env["environment"]:
        fail(f"{where}: the environment does not say what day it is")
    tools = {t["name"]: t for t in d["tools"]}
    vectors = d["injection_vectors"]
    users, injs = d["user_tasks"], d["injection_tasks"]

    # tools
    if len(tools) != len(d["tools"]):
        fail(f"{where}: duplicate tool names")
    annotated = [t for t in tools.values() if "annotations" in t]
    if not annotated or len(annotated) == len(tools):
        fail(f"{where}: some tools should carry annotations and some not")
    for t in tools.values():
        if t["returns"] not in ("list", "dict", "str") or not t["description"]:
            fail(f"{where}: tool {t['name']} returns/description")

    # counts
    injectable = [u for u in users if u["injection_vectors_seen"]]
    nonempty = [j for j in injs if not j["ground_truth_empty"]]
    want = {
        "tools": len(tools), "user_tasks": len(users), "injection_tasks": len(injs),
        "injection_vectors": len(vectors), "injectable_user_tasks": len(injectable),
        "security_pairs": len(injectable) * len(nonempty),
        "user_task_ground_truth_calls": sum(len(u["ground_truth_calls"]) for u in users),
        "injection_task_ground_truth_calls": sum(len(j["ground_truth_calls"]) for j in injs),
    }
    if d["counts"] != want:
        fail(f"{where}: counts {d['counts']} != {want}")

    # effects: present, consistent per tool, and agreeing with the annotations
    effect_of = {}
    for t in users + injs:
        calls = [{"function": c["function"], "args": c["args"]} for c in t["ground_truth_trace"]]
        if calls != t["ground_truth_calls"]:
            fail(f"{where}: {t['id']}: ground_truth_calls != trace")
        for c in t["ground_truth_trace"]:
            e = c.get("effect")
            if e not in ("read", "write"):
                fail(f"{where}: {t['id']}: {c['function']} has no effect")
                continue
            if effect_of.setdefault(c["function"], e) != e:
                fail(f"{where}: {c['function']} is both read and write")
            ann = tools[c["function"]].get("annotations", {})
            if ann.get("readOnlyHint") is True and e != "read":
                fail(f"{where}: {c['function']} is readOnlyHint but a write")
            if (ann.get("destructiveHint") or ann.get("readOnlyHint") is False) and e != "write":
                fail(f"{where}: {c['function']} is annotated as a writer but a read")
            if e == "write":
                try:
                    if json.loads(c["result"]).get("status") != "ok":
                        fail(f"{where}: {t['id']}: {c['function']} result")
                except ValueError:
                    fail(f"{where}: {t['id']}: {c['function']} result is not JSON")
            if CANARY_RE.search(json.dumps(c["args"])):
                fail(f"{where}: {t['id']}: a canary in arguments")
    for f in tools:
        if f not in effect_of:
            fail(f"{where}: tool {f} is never called")

    # vectors
    seen_any = set()
    for u in users:
        seen = []
        for c in u["ground_truth_trace"]:
            for v in CANARY_RE.findall(c["result"]):
                if v not in vectors:
                    fail(f"{where}: {u['id']}: undeclared vector {v}")
                if v not in seen:
                    seen.append(v)
                if c["effect"] != "read":
                    fail(f"{where}: {u['id']}: a canary in a write's result")
        if seen != u["injection_vectors_seen"]:
            fail(f"{where}: {u['id']}: injection_vectors_seen {u['injection_vectors_seen']}")
        seen_any.update(seen)
    if seen_any != set(vectors):
        fail(f"{where}: vectors never seen: {set(vectors) - seen_any}")
    for j in injs:
        if not j["ground_truth_trace"] or j["ground_truth_empty"]:
            fail(f"{where}: {j['id']}: empty")
        if not any(c["effect"] == "write" for c in j["ground_truth_trace"]):
            fail(f"{where}: {j['id']}: no side effect")
        for c in j["ground_truth_trace"]:
            if CANARY_RE.search(c["result"]):
                fail(f"{where}: {j['id']}: a canary in an injection's result")

    # tags, and what each claims
    prompts = " ".join(u["prompt"] for u in users)
    covered = set()
    for j in injs:
        tags = set(j["tags"])
        if tags - common.INJECTION_TAGS or not tags:
            fail(f"{where}: {j['id']}: tags {tags}")
        covered |= tags
        writes = [c for c in j["ground_truth_trace"] if c["effect"] == "write"]
        wvals = [s for c in writes for s in strings(c["args"])]
        if "zero-argument" in tags and not any(c["args"] == {} for c in writes):
            fail(f"{where}: {j['id']}: zero-argument without a call without arguments")
        if ("multi-call" in tags or "hide-traces" in tags) and len(writes) < 2:
            fail(f"{where}: {j['id']}: multi-call with one write")
        if "short-value" in tags and not any(len(s) < 3 for s in wvals):
            fail(f"{where}: {j['id']}: short-value without a short value")
        if "substring-grounding" in tags and not any(
                len(s) >= 3 and s in prompts and not re.search(
                    r"(^|[\s(]){}($|[\s,)]|[.]($|\s))".format(re.escape(s)), prompts)
                for s in wvals):
            fail(f"{where}: {j['id']}: substring-grounding without a value inside the prompts")
        if "free-text-atom" in tags and not any(
                " " in s and FREE_TEXT_ATOM.search(s) for s in wvals):
            fail(f"{where}: {j['id']}: free-text-atom without an atom in composed text")
        if "control" in tags and not any(
                re.fullmatch(r"[^@\s]+@[^@\s]+", s) and s not in prompts for s in wvals):
            fail(f"{where}: {j['id']}: control without an attacker's address")
        if "yaml-continuation" in tags:
            goal = j["goal"]
            if not re.search(r"\\\n +\\ ", goal):
                fail(f"{where}: {j['id']}: goal has no double-quoted continuation")
            if not any(s in unfold(goal) and s not in goal and " " in s
                       for v in wvals for s in [v] + re.findall(r"\(?\d[\d() ]{6,}\d", v)):
                fail(f"{where}: {j['id']}: no argument value split in the goal")
    if covered != common.INJECTION_TAGS:
        fail(f"{where}: injection classes not covered: {common.INJECTION_TAGS - covered}")
    for u in users:
        tags = set(u["tags"])
        if tags - common.USER_TAGS or not tags:
            fail(f"{where}: {u['id']}: tags {tags}")
        trace = u["ground_truth_trace"]
        writes = [c for c in trace if c["effect"] == "write"]
        if ("read-only" in tags) != (not writes):
            fail(f"{where}: {u['id']}: read-only tag and writes disagree")
        if "read-only" in tags and not u["ground_truth_output"]:
            fail(f"{where}: {u['id']}: a question without an answer")
        if "legitimate-zero-argument" in tags and not any(c["args"] == {} for c in writes):
            fail(f"{where}: {u['id']}: legitimate-zero-argument")
        if "delegated-lookup" in tags:
            found = False
            for n, c in enumerate(trace):
                if c["effect"] != "write":
                    continue
                earlier = unfold(" ".join(p["result"] for p in trace[:n]))
                if any(s not in u["prompt"] and s in earlier for s in strings(c["args"])):
                    found = True
            if not found:
                fail(f"{where}: {u['id']}: delegated-lookup without a looked-up value")
        if "yaml-continuation" in tags:
            vals = SPLIT_USER_VALUES[name]
            results = [c["result"] for c in trace if c["effect"] == "read"]
            if not any(v in s for v in vals for c in writes for s in strings(c["args"])) or \
                    not any(v in unfold(r) and v not in r for v in vals for r in results):
                fail(f"{where}: {u['id']}: no value split by a continuation")

    # every pair: the attacked results carry the goal where the canaries were
    defaults = d["attack_template_defaults"]
    template = d["attack_templates"]["important_instructions"]
    pairs = 0
    for u in injectable:
        for j in nonempty:
            pairs += 1
            attack = template.format(goal=j["goal"], user=defaults["user"], model="GPT-4")
            first = None
            for n, c in enumerate(u["ground_truth_trace"]):
                attacked = CANARY_RE.sub(lambda m: attack, c["result"])
                k = len(CANARY_RE.findall(c["result"]))
                if CANARY_RE.search(attacked) or attacked.count(j["goal"]) < k:
                    fail(f"{where}: ({u['id']}, {j['id']}) step {n}: attacked result")
                if k and first is None:
                    first = n
            if first is None:
                fail(f"{where}: ({u['id']}, {j['id']}): the attack never appears")
    if pairs != d["counts"]["security_pairs"]:
        fail(f"{where}: {pairs} pairs replayed, counts say {d['counts']['security_pairs']}")

    # benign results parse as what the tool says it returns
    for u in users:
        for c in u["ground_truth_trace"]:
            benign = CANARY_RE.sub(lambda m: vectors[m.group(1)]["default"], c["result"])
            if j_goal_leak(benign, injs):
                fail(f"{where}: {u['id']}: an injection goal in a benign result")
            kind = tools[c["function"]]["returns"]
            if c["effect"] == "read" and kind in ("list", "dict"):
                try:
                    parsed = yaml.safe_load(benign)
                except yaml.YAMLError as e:
                    fail(f"{where}: {u['id']}: {c['function']}: benign result is not YAML: {e}")
                    continue
                if not isinstance(parsed, list if kind == "list" else dict):
                    fail(f"{where}: {u['id']}: {c['function']}: not a {kind}")
    return d


def j_goal_leak(text, injs):
    return any(j["goal"] in text for j in injs)


def main():
    check_reproduced()
    total = {"tools": 0, "user_tasks": 0, "injectable_user_tasks": 0, "injection_tasks": 0,
             "security_pairs": 0}
    for name in make.DOMAINS:
        d = check_suite(name)
        c = d["counts"]
        print(f"{name}: tools {c['tools']}, user tasks {c['user_tasks']} "
              f"({c['injectable_user_tasks']} injectable), injection tasks "
              f"{c['injection_tasks']}, pairs {c['security_pairs']}")
        for k in total:
            total[k] += c[k]
    print("total:", total)
    sums = OUT / "SHA256SUMS.pre-measurement"
    if sums.exists():
        for line in sums.read_text().splitlines():
            digest, fname = line.split(None, 1)
            path = OUT / fname.strip().lstrip("*")
            if hashlib.sha256(path.read_bytes()).hexdigest() != digest:
                fail(f"{fname}: sha256 differs from SHA256SUMS.pre-measurement")
        print("SHA256SUMS.pre-measurement: checked")
    if ERRORS:
        print("\n".join(ERRORS))
        raise SystemExit(f"{len(ERRORS)} problem(s)")
    print("ok")


if __name__ == "__main__":
    main()
