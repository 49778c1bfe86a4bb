"""Checks the generated suites without running keel: python3 bench/holdout4/src/check.py

The JSON and environment files load; every trace step of every task (user and injection)
carries effect read|write, agreeing between tasks for the same tool; ground_truth_calls are
the trace without results; injection_vectors_seen is exactly the canaries in the trace, in
order; every vector is seen; no canary in arguments or in an injection's trace; every
injection task has a side effect; counts agree; tags come from common.py's sets; the benign
and attacked results can be built for every pair as the replay builds them; structured
benign results parse as YAML.
"""

import json
import re
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "suites" / "src"))
from common import INJECTION_TAGS, USER_TAGS  # noqa: E402

OUT = Path(__file__).resolve().parent.parent
CANARY_RE = re.compile(r"<CANARY---([A-Za-z0-9_]+)--->")
problems = []


def bad(msg):
    problems.append(msg)


for name in ["accounting", "school", "smarthome"]:
    doc = json.loads((OUT / f"{name}.json").read_text())
    env = json.loads((OUT / f"{name}.environment.json").read_text())
    assert env["suite"] == name and env["environment"], name
    tools = {t["name"]: t for t in doc["tools"]}
    vectors = doc["injection_vectors"]
    effects = {}
    seen_all = set()
    tmpl = doc["attack_templates"]["important_instructions"]
    for t in doc["tools"]:
        if t["returns"] not in ("list", "dict", "str"):
            bad(f"{name}: {t['name']} returns {t['returns']}")
        if not t["description"] or t["parameters"].get("type") != "object":
            bad(f"{name}: {t['name']} schema")
    for kind, tasks in (("user", doc["user_tasks"]), ("injection", doc["injection_tasks"])):
        for task in tasks:
            tid = task["id"]
            trace = task["ground_truth_trace"]
            calls = [{"function": s["function"], "args": s["args"]} for s in trace]
            if calls != task["ground_truth_calls"]:
                bad(f"{name} {tid}: calls differ from trace")
            for n, s in enumerate(trace):
                if s.get("effect") not in ("read", "write"):
                    bad(f"{name} {tid} step {n}: effect {s.get('effect')!r}")
                prev = effects.setdefault(s["function"], s["effect"])
                if prev != s["effect"]:
                    bad(f"{name}: {s['function']} is both {prev} and {s['effect']}")
                if s["function"] not in tools:
                    bad(f"{name} {tid}: unknown tool {s['function']}")
                if CANARY_RE.search(json.dumps(s["args"])):
                    bad(f"{name} {tid}: canary in args")
                if kind == "injection" and CANARY_RE.search(s["result"]):
                    bad(f"{name} {tid}: canary in an injection's result")
            tagset = USER_TAGS if kind == "user" else INJECTION_TAGS
            if set(task["tags"]) - tagset:
                bad(f"{name} {tid}: tags {set(task['tags']) - tagset}")
            if kind == "user":
                order = []
                for s in trace:
                    for v in CANARY_RE.findall(s["result"]):
                        if v not in order:
                            order.append(v)
                if order != task["injection_vectors_seen"]:
                    bad(f"{name} {tid}: vectors_seen {task['injection_vectors_seen']} != {order}")
                seen_all.update(order)
                if not task["prompt"].strip():
                    bad(f"{name} {tid}: empty prompt")
            else:
                if task["ground_truth_empty"] or not trace:
                    bad(f"{name} {tid}: empty injection")
                if not any(s["effect"] == "write" for s in trace):
                    bad(f"{name} {tid}: no side effect")
                if "{" in task["goal"] or "}" in task["goal"]:
                    bad(f"{name} {tid}: braces in goal")
    if seen_all != set(vectors):
        bad(f"{name}: vectors not seen: {set(vectors) - seen_all}")
    # Build every pair's attacked results as the replay does, and every benign result.
    pairs = 0
    injections = [j for j in doc["injection_tasks"] if not j["ground_truth_empty"]]
    for u in doc["user_tasks"]:
        benign = []
        for s in u["ground_truth_trace"]:
            r = CANARY_RE.sub(lambda m: vectors[m.group(1)]["default"], s["result"])
            benign.append(r)
            if tools[s["function"]]["returns"] in ("list", "dict"):
                try:
                    yaml.safe_load(r)
                except yaml.YAMLError as e:
                    bad(f"{name} {u['id']}: benign {s['function']} result is not YAML: {e}")
        if not u["injection_vectors_seen"]:
            continue
        for j in injections:
            text = tmpl.format(user=doc["attack_template_defaults"]["user"], model="GPT-4",
                               goal=j["goal"])
            attacked = [CANARY_RE.sub(lambda m: text, s["result"])
                        for s in u["ground_truth_trace"]]
            if not any(text in a for a in attacked):
                bad(f"{name} {u['id']} x {j['id']}: attack text never appears")
            pairs += 1
    c = doc["counts"]
    injectable = sum(1 for u in doc["user_tasks"] if u["injection_vectors_seen"])
    if (c["tools"], c["user_tasks"], c["injection_tasks"], c["injectable_user_tasks"],
            c["security_pairs"]) != (len(tools), len(doc["user_tasks"]),
                                     len(doc["injection_tasks"]), injectable, pairs):
        bad(f"{name}: counts {c}")
    itags = set().union(*(set(j["tags"]) for j in doc["injection_tasks"]))
    utags = set().union(*(set(u["tags"]) for u in doc["user_tasks"]))
    print(f"{name}: tools {len(tools)}, user tasks {len(doc['user_tasks'])} "
          f"({injectable} injectable), injection tasks {len(injections)}, pairs {pairs}, "
          f"vectors {len(vectors)}; injection tags missing: "
          f"{sorted(INJECTION_TAGS - itags) or 'none'}; user tags missing: "
          f"{sorted(USER_TAGS - utags) or 'none'}")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print("all checks passed")
