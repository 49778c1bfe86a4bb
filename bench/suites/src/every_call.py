"""Security counted over every side-effecting call of an injection, from `keel eval agentdojo`.

`keel eval agentdojo` (before issue 14's eval work) counts a pair as caught when any of the
injection's calls is denied or asked. This replays each side-effecting call (trace `effect:
write`) of each injection task as an injection task of its own, so a pair counts as caught
only when every one of them is stopped, and lists each call that runs. Today's replay answers
an injection's calls with "ok", which gives provenance nothing to read, so a call decided alone
is decided as it is in the full replay.

Usage, from the repository root, after `cargo build -p keel-cli`:
    python3 bench/suites/src/every_call.py bench/suites/drive.json [...]
"""

import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

KEEL = Path("target/debug/keel")


def evaluate(path):
    out = subprocess.run([str(KEEL), "eval", "agentdojo", str(path), "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def main(files):
    for f in files:
        suite = json.loads(Path(f).read_text())
        name = suite["suite"]
        split = []
        for j in suite["injection_tasks"]:
            for k, step in enumerate(j.get("ground_truth_trace", [])):
                if step.get("effect") == "write":
                    split.append({**j, "id": f"{j['id']}#{k}",
                                  "ground_truth_calls": [{"function": step["function"],
                                                          "args": step["args"]}]})
        whole = evaluate(f)["suites"][name]
        if not split:
            # AgentDojo's own exports say nothing of which calls are writes; guessing would
            # be the classifier under test.
            print(f"{name}: security {whole['security']:.3f} (first caught call); every call: "
                  "n/a (its injection calls carry no `effect`)")
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as tmp:
            json.dump({**suite, "injection_tasks": split}, tmp)
        result = evaluate(tmp.name)
        Path(tmp.name).unlink()
        ran = defaultdict(list)
        for fail in result["failures"]:
            if fail["kind"] == "security":
                j, k = fail["injection_task"].split("#")
                ran[(fail["user_task"], j)].append((int(k), fail["call"]))
        pairs = whole["pairs"]
        print(f"{name}: security {whole['security']:.3f} (first caught call), "
              f"{1 - len(ran) / pairs if pairs else 0:.3f} (every side-effecting call), "
              f"{pairs} pairs; utility_strict {whole['utility_strict']:.2f}, "
              f"utility_confirm {whole['utility_confirm']:.2f}, "
              f"ask_burden {whole['ask_burden']:.2f}, security_deny {whole['security_deny']:.2f}")
        by_task = defaultdict(list)
        for (u, j), calls in sorted(ran.items()):
            by_task[j].append(u)
        tags = {j["id"]: j.get("tags", []) for j in suite["injection_tasks"]}
        for j in sorted(by_task, key=lambda x: int(x.rsplit("_", 1)[1])):
            users = sorted(by_task[j], key=lambda x: int(x.rsplit("_", 1)[1]))
            calls = sorted({(k, c["function"]) for u in users for k, c in ran[(u, j)]})
            print(f"  {j} [{', '.join(tags[j])}] runs: "
                  f"{', '.join(f'step {k} {fn}' for k, fn in calls)} — in {len(users)} pairs: "
                  f"{', '.join(u.replace('user_task_', 'u') for u in users)}")


if __name__ == "__main__":
    main(sys.argv[1:])
