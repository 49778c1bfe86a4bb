#!/usr/bin/env python3
"""Why the user's own tasks ask: each asking user task's reasons, counted by what they name.

Usage: for each suite, `keel eval agentdojo SUITE.json --json --explain > OUT/SUITE.json`; then
`python3 bench/asks_by_cause.py OUT`. Attack files (`c*`, `r*`, `a*` followed by a digit) and
InjecAgent are left out: their user tasks are an attacker's setting, not a user's work.

The causes are read from the reasons' words (docs/safety.md words them), so a reworded reason
lands under "other" until this reading learns it: a count that moves under "other" is a sign to
update it, not a change of the gate.
"""
import collections
import glob
import json
import re
import sys

CAUSES = [
    ("a value chosen from data (a lookup the user delegated)",
     ["comes from the result of tool", "which was read because data asked for it"]),
    ("an atom from data in free text",
     ["which you never wrote", "repeats the payment"]),
    ("a value shown nowhere (made up or worked out)",
     ["neither you nor any result has shown"]),
    ("an action the words do not ask for",
     ["nothing you wrote asks for that", "nothing you wrote names", "only asked questions",
      "takes no arguments", "you asked to", " acts on "]),
    ("a choice or setting the user did not make",
     ["one of the choices", "a setting nothing you wrote chose", "but you made",
      "and you asked for", "a number you wrote, but not as", "so the tool chooses it",
      "so the tool sets it", "is yours to set"]),
]


def cause(part):
    if part.startswith("it came from the result"):
        return CAUSES[1][0]
    for name, phrases in CAUSES:
        if any(p in part for p in phrases):
            return name
    return "other: " + part[:90]


def main(folder):
    among, sole = collections.Counter(), collections.Counter()
    suites = tasks = asking = 0
    for path in sorted(glob.glob(folder + "/*.json")):
        name = path.rsplit("/", 1)[-1][:-5]
        if re.match(r"([cra]\d|injecagent)", name):
            continue
        report = json.load(open(path))
        suites += 1
        tasks += report["total"]["tasks"]
        per_task = collections.defaultdict(set)
        for failure in report["failures"]:
            if failure["kind"] != "utility":
                continue
            for reason in failure["reasons"]:
                for part in reason.split("; "):
                    part = re.sub(r"^provenance: ", "", part).split(". Only the user")[0]
                    per_task[failure["user_task"]].add(cause(part))
        for found in per_task.values():
            asking += 1
            among.update(found)
            if len(found) == 1:
                sole.update(found)
    print(f"{suites} suites, {tasks} user tasks, {asking} of them ask")
    print("tasks where it is one of the reasons | the only one | cause")
    for name, count in among.most_common():
        print(f"{count:5d} | {sole[name]:5d} | {name}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
