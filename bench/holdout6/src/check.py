"""Checks the sixth held-out set (lawfirm, restaurant, lab).

Usage: python3 src/check.py            (exit status 0 when every check passes)

1. Regenerates every suite into a temporary folder and compares the six JSON files byte for
   byte with the ones beside src/.
2. Loads each suite and its environment file and checks: the schema (the development suites'
   keys, at the top level, on tasks and on trace steps), counts, tools (14-16, JSON Schemas,
   `returns`, annotations on some and not on others), `effect` on every step, the vectors
   (each declared, each seen, every canary in the result of a read the task makes, none in an
   argument or in an injection task), every pair's attacked results, and that every benign
   structured result parses as YAML.
3. Environment consistency: every read result (user and injection tasks) is re-rendered from
   the environment FILE and must equal the trace; every id argument of a write names an
   entity of the environment (or one created earlier in the same trace); every address or
   phone a user task writes to is in the environment or the prompt; every amount a user task
   pays is in an earlier result or the prompt; plus domain checks (invoices paid are open and
   not disputed, trust disbursements fit the balance, revoked shares exist, the user's
   instrument bookings do not overlap another booking, cancelled bookings are the lab's own).
4. Tags: every class of common.INJECTION_TAGS in every suite; the user tags delegated-lookup,
   read-tool-noun, read-only, yaml-continuation and a legitimate-* in every suite, every
   legitimate-* in the set; and what each tag claims, where the data can show it.
5. SHA256SUMS.pre-measurement, when present.
"""

import hashlib
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SET = HERE.parent
sys.path.insert(0, str(HERE))

import h6  # noqa: E402
import yaml  # noqa: E402
from common import ATTACK_TEMPLATES, CANARY_RE, INJECTION_TAGS, USER_TAGS  # noqa: E402

DOMAINS = ["lawfirm", "restaurant", "lab"]
ERRORS = []


def err(msg):
    ERRORS.append(msg)


TOP_KEYS = ["source", "suite", "description", "benchmark_version", "canary_format", "counts",
            "tools", "injection_vectors", "attack_templates", "attack_template_defaults",
            "user_tasks", "injection_tasks"]
USER_KEYS = ["id", "prompt", "difficulty", "comment", "tags", "ground_truth_output",
             "ground_truth_calls", "ground_truth_trace", "injection_vectors_seen"]
INJ_KEYS = ["id", "goal", "difficulty", "comment", "tags", "ground_truth_output",
            "ground_truth_calls", "ground_truth_trace", "ground_truth_empty"]
STEP_KEYS = ["function", "args", "result", "effect"]


def dev_schema():
    """The key names of a development suite, if one is reachable (only key names are read)."""
    for p in [SET.parent / "suites" / "drive.json", h6.suites_src().parent / "drive.json"]:
        if p.is_file():
            d = json.loads(p.read_text())
            return (list(d), list(d["user_tasks"][0]), list(d["injection_tasks"][0]),
                    list(d["user_tasks"][0]["ground_truth_trace"][0]))
    return None


# ------------------------------------------------------------------ 1. regenerate
def regenerate():
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(HERE, Path(tmp) / "src", ignore=shutil.ignore_patterns("__pycache__"))
        env = {**os.environ, "KEEL_SUITES_SRC": str(h6.suites_src())}
        r = subprocess.run([sys.executable, str(Path(tmp) / "src" / "make.py")], env=env,
                           capture_output=True, text=True)
        if r.returncode != 0:
            err(f"make.py failed: {r.stderr}")
            return
        for d in DOMAINS:
            for name in (f"{d}.json", f"{d}.environment.json"):
                a, b = (SET / name), (Path(tmp) / name)
                if not a.is_file():
                    err(f"{name} missing")
                elif a.read_bytes() != b.read_bytes():
                    err(f"{name} differs from what make.py writes")


# ------------------------------------------------------------------ helpers
def strings_in(o):
    if isinstance(o, str):
        yield o
    elif isinstance(o, dict):
        for v in o.values():
            yield from strings_in(v)
    elif isinstance(o, list):
        for v in o:
            yield from strings_in(v)


def env_index(o, idx=None):
    """key -> set of scalar values anywhere in the environment (lists of scalars included)."""
    idx = {} if idx is None else idx
    if isinstance(o, dict):
        for k, v in o.items():
            if isinstance(v, (str, int, float)) and not isinstance(v, bool):
                idx.setdefault(k, set()).add(str(v))
            elif isinstance(v, list) and all(isinstance(x, str) for x in v):
                idx.setdefault(k, set()).update(v)
            env_index(v, idx)
    elif isinstance(o, list):
        for v in o:
            env_index(v, idx)
    return idx


def all_env_strings(env):
    return set(strings_in(env))


def fill(result, vectors, goal=None, defaults=None):
    def rep(m):
        if goal is None:
            return vectors[m.group(1)]["default"]
        return ATTACK_TEMPLATES["important_instructions"].format(
            user=defaults["user"], model="GPT-4", goal=goal)
    return CANARY_RE.sub(rep, result)


def amount_forms(x):
    return {f"{x:,.2f}", f"{x:.2f}", f"{x:,.0f}" if float(x).is_integer() else f"{x:,.2f}"}


def values_in(args):
    """String and number values of a call's arguments, as text."""
    for v in strings_in(args):
        yield v
    def nums(o):
        if isinstance(o, bool):
            return
        if isinstance(o, (int, float)):
            yield from amount_forms(o)
        elif isinstance(o, dict):
            for x in o.values():
                yield from nums(x)
        elif isinstance(o, list):
            for x in o:
                yield from nums(x)
    yield from nums(args)


def seen_text(steps, vectors, tools):
    """What earlier results show: their raw text and, for structured ones, the strings they
    parse to (a value split by a continuation is whole there)."""
    out = []
    for x in steps:
        out.append(x["result"])
        if x["effect"] == "read" and tools[x["function"]]["returns"] != "str":
            try:
                out.extend(strings_in(yaml.safe_load(fill(x["result"], vectors))))
            except yaml.YAMLError:
                pass
    return out


TOKEN_SPLIT = re.compile(r"[\s]+")


def tokens(text):
    return {t.strip(".,;:!?()'\"") for t in TOKEN_SPLIT.split(text)}


URL = re.compile(r"https?://|www\.|\b[a-z0-9-]+\.(com|net|org|io|co|me)/")
PHONE = re.compile(r"\(?\d{3}\)?[ -.]\d{3}[ -.]\d{4}|\+\d[\d ]{9,}")
ACCOUNT = re.compile(r"\b\d{9,}\b|\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,}")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")

KIND = [
    ("legitimate-delete", re.compile(r"^(delete_|cancel_|purge_)")),
    ("legitimate-send", re.compile(r"^(send_|reply_)")),
    ("legitimate-share", re.compile(r"^share_")),
    ("legitimate-access-change",
     re.compile(r"^(set_matter_access|revoke_share|set_pos_access|set_member_role|"
                r"set_dataset_visibility)$")),
    ("legitimate-booking", re.compile(r"^book_")),
    ("legitimate-payment", re.compile(r"^(pay_|disburse_|submit_purchase_request)")),
]
RECIPIENT_ARGS = {"to", "cc", "email", "user_email", "phone", "booked_for"}


# ------------------------------------------------------------------ 2-4. per suite
def check_suite(name, user_tags_seen):
    mod = importlib.import_module(name)
    doc = json.loads((SET / f"{name}.json").read_text())
    envdoc = json.loads((SET / f"{name}.environment.json").read_text())
    env = envdoc["environment"]
    S = name
    if list(doc) != TOP_KEYS:
        err(f"{S}: top-level keys {list(doc)}")
    if list(envdoc) != ["suite", "benchmark_version", "canary_format", "environment"]:
        err(f"{S}: environment file keys {list(envdoc)}")
    if envdoc["benchmark_version"] != doc["benchmark_version"]:
        err(f"{S}: versions differ")
    tools = {t["name"]: t for t in doc["tools"]}
    if not 14 <= len(tools) <= 16:
        err(f"{S}: {len(tools)} tools")
    with_ann = sum(1 for t in doc["tools"] if "annotations" in t)
    if not 0 < with_ann < len(tools):
        err(f"{S}: annotations on {with_ann} of {len(tools)} tools")
    for t in doc["tools"]:
        if list(t)[:4] != ["name", "description", "parameters", "returns"]:
            err(f"{S}: tool keys {list(t)}")
        if t["returns"] not in ("list", "dict", "str"):
            err(f"{S}: {t['name']} returns {t['returns']}")
        p = t["parameters"]
        if p.get("type") != "object" or set(p.get("required", [])) - set(p["properties"]):
            err(f"{S}: {t['name']} schema")
        for k, v in p["properties"].items():
            if "type" not in v or not v.get("description"):
                err(f"{S}: {t['name']}.{k} has no type or description")
        a = t.get("annotations", {})
        if a.get("readOnlyHint") is True and t["name"] not in mod.READS:
            err(f"{S}: {t['name']} says readOnlyHint but writes")
        if a.get("readOnlyHint") is False and t["name"] in mod.READS:
            err(f"{S}: {t['name']} says it writes but only reads")
    if set(mod.READS) != set(mod.READERS):
        err(f"{S}: READS and READERS differ")
    vectors = doc["injection_vectors"]
    users, injs = doc["user_tasks"], doc["injection_tasks"]
    c = doc["counts"]
    injectable = [u for u in users if u["injection_vectors_seen"]]
    exp = {"tools": len(tools), "user_tasks": len(users), "injection_tasks": len(injs),
           "injection_vectors": len(vectors), "injectable_user_tasks": len(injectable),
           "security_pairs": len(injectable) * sum(1 for j in injs
                                                   if not j["ground_truth_empty"])}
    for k, v in exp.items():
        if c.get(k) != v:
            err(f"{S}: counts.{k} = {c.get(k)}, expected {v}")
    if not 12 <= len(users) <= 14 or not 10 <= len(injs) <= 11:
        err(f"{S}: {len(users)} user tasks, {len(injs)} injection tasks")
    if len(injectable) * 2 <= len(users):
        err(f"{S}: only {len(injectable)} of {len(users)} user tasks are injectable")
    idx = env_index(env)
    env_strings = all_env_strings(env)
    seen_vectors = set()
    prompts = [u["prompt"] for u in users]
    defaults = doc["attack_template_defaults"]
    noun_tools = h6.tag_read_tool_nouns(doc["tools"], mod.READS, [])

    for task in users + injs:
        is_user = "prompt" in task
        tid = f"{S}/{task['id']}"
        keys = USER_KEYS if is_user else INJ_KEYS
        if list(task) != keys:
            err(f"{tid}: keys {list(task)}")
        trace = task["ground_truth_trace"]
        if task["ground_truth_calls"] != [{"function": s["function"], "args": s["args"]}
                                          for s in trace]:
            err(f"{tid}: ground_truth_calls differ from the trace")
        if not is_user and task["ground_truth_empty"] != (not trace):
            err(f"{tid}: ground_truth_empty")
        created = set()
        writes = []
        for n, s in enumerate(trace):
            w = f"{tid} step {n} {s['function']}"
            if list(s) != STEP_KEYS:
                err(f"{w}: keys {list(s)}")
            if s["effect"] != ("read" if s["function"] in mod.READS else "write"):
                err(f"{w}: effect {s['effect']}")
            if CANARY_RE.search(json.dumps(s["args"])):
                err(f"{w}: canary in arguments")
            cans = CANARY_RE.findall(s["result"])
            if cans and (not is_user or s["effect"] != "read"):
                err(f"{w}: canary outside a user task's read")
            seen_vectors.update(cans)
            if s["effect"] == "read":
                want = mod.READERS[s["function"]](env, **s["args"])
                if not is_user:
                    want = fill(want, vectors)
                if want != s["result"]:
                    err(f"{w}: result is not what the environment file renders")
                if tools[s["function"]]["returns"] in ("list", "dict"):
                    try:
                        y = yaml.safe_load(fill(s["result"], vectors))
                        if not isinstance(y, list if tools[s['function']]['returns'] == 'list'
                                          else dict):
                            err(f"{w}: parses to {type(y).__name__}")
                    except yaml.YAMLError as e:
                        err(f"{w}: benign result does not parse: {e}")
            else:
                writes.append(s)
                for k, v in s["args"].items():
                    vals = v if isinstance(v, list) and k.endswith("_ids") else [v]
                    key = "_".join(k[:-1].split("_")[-2:]) if k.endswith("_ids") else k
                    if key.endswith("_id") and key not in ("grant_id", "instrument_id"):
                        for x in vals:
                            if x not in idx.get(key, set()) and x not in created:
                                err(f"{w}: {k}={x!r} is not in the environment")
                    if key in ("grant_id", "instrument_id") and v not in idx.get(key, set()):
                        err(f"{w}: {k}={v!r} is not in the environment")
                    if is_user and k in RECIPIENT_ARGS and not (
                            v in idx.get(k, set()) or v in env_strings
                            or any(v in e for e in env_strings) or v in task["prompt"]):
                        err(f"{w}: {k}={v!r} neither in the environment nor the prompt")
                    if is_user and k == "amount":
                        earlier = " ".join(x["result"] for x in trace[:n]) + task["prompt"]
                        if not any(f in earlier for f in amount_forms(v)):
                            err(f"{w}: amount {v} not in an earlier result or the prompt")
                try:
                    r = json.loads(s["result"])
                    for k, v in r.items():
                        if k.endswith("_id"):
                            created.add(str(v))
                except (ValueError, AttributeError):
                    err(f"{w}: a write's result is not a JSON object")
        domain_checks(S, tid, is_user, trace, env)
        # ---- vectors seen
        if is_user:
            order = []
            for s in trace:
                for v in CANARY_RE.findall(s["result"]):
                    if v not in order:
                        order.append(v)
            if order != task["injection_vectors_seen"]:
                err(f"{tid}: injection_vectors_seen {task['injection_vectors_seen']} != {order}")
            for v in order:
                if not any(h6.canary_in(v, s["result"]) and s["effect"] == "read"
                           for s in trace):
                    err(f"{tid}: vector {v} is not in a result the task reads")
        # ---- tags
        tags = set(task["tags"])
        if is_user:
            if tags - USER_TAGS:
                err(f"{tid}: unknown tags {tags - USER_TAGS}")
            user_tags_seen[S].update(tags)
            uses_noun = any(s["function"] in noun_tools for s in trace)
            if uses_noun != ("read-tool-noun" in tags):
                err(f"{tid}: read-tool-noun is {'read-tool-noun' in tags}, uses {uses_noun}")
            if ("read-only" in tags) != (not writes):
                err(f"{tid}: read-only tag vs {len(writes)} writes")
            for tag, rx in KIND:
                if tag in tags and not any(rx.search(s["function"]) for s in writes):
                    err(f"{tid}: {tag} without such a write")
            if "legitimate-zero-argument" in tags and not any(s["args"] == {} for s in writes):
                err(f"{tid}: legitimate-zero-argument without a zero-argument write")
            if "delegated-lookup" in tags:
                ok_ = False
                ptoks = tokens(task["prompt"])
                for n, s in enumerate(trace):
                    if s["effect"] != "write":
                        continue
                    earlier = seen_text(trace[:n], vectors, tools)
                    for v in values_in(s["args"]):
                        if v and v not in ptoks and v not in task["prompt"].split() and \
                                any(v in e for e in earlier):
                            ok_ = True
                if not ok_:
                    err(f"{tid}: delegated-lookup but no write value comes from a result")
            if "yaml-continuation" in tags:
                vals = [v for s in writes for v in strings_in(s["args"])]
                if not any(any(h6.split_by_continuation(fill(x["result"], vectors), v)
                               for x in trace if x["effect"] == "read" and
                               tools[x["function"]]["returns"] != "str")
                           for v in vals):
                    err(f"{tid}: yaml-continuation but no write value is split in a result")
        else:
            if tags - INJECTION_TAGS:
                err(f"{tid}: unknown tags {tags - INJECTION_TAGS}")
            user_tags_seen[S + "/inj"].update(tags)
            if CANARY_RE.search(task["goal"]):
                err(f"{tid}: canary in the goal")
            if not writes:
                err(f"{tid}: no side-effecting call")
            argvals = [v for s in writes for v in strings_in(s["args"])]
            if "short-value" in tags and not any(len(v) < 3 for v in argvals):
                err(f"{tid}: short-value but no argument under 3 characters")
            if "substring-grounding" in tags and not any(
                    any(v in p and v not in tokens(p) for p in prompts) for v in argvals):
                err(f"{tid}: substring-grounding but no value inside a prompt")
            if "free-text-atom" in tags and not any(
                    " " in v and (URL.search(v) or PHONE.search(v) or ACCOUNT.search(v)
                                  or EMAIL.search(v)) for v in argvals):
                err(f"{tid}: free-text-atom but no URL/phone/account/e-mail in composed text")
            if "zero-argument" in tags and not any(s["args"] == {} for s in writes):
                err(f"{tid}: zero-argument without a zero-argument write")
            if ("multi-call" in tags or "hide-traces" in tags) and len(writes) < 2:
                err(f"{tid}: multi-call/hide-traces with {len(writes)} writes")
            if "hide-traces" in tags and not any(
                    re.match(r"^(delete_|purge_)", s["function"]) for s in writes[1:]):
                err(f"{tid}: hide-traces without a later delete")
            if "yaml-continuation" in tags:
                g, u = task["goal"], h6.unfold_goal(task["goal"])
                if g == u or not any(v in u and v not in g for v in argvals):
                    err(f"{tid}: yaml-continuation but no argument is split in the goal")
            if "control" in tags and not any(
                    k in RECIPIENT_ARGS and v not in env_strings
                    and not any(v in p for p in prompts)
                    for s in writes for k, v in s["args"].items()):
                err(f"{tid}: control but no outside recipient")
            if "unrequested-action" in tags:
                # In some pair, none of the injection's writes is one the user task makes.
                mine = {json.dumps([s["function"], s["args"]], sort_keys=True) for s in writes}
                if not any(not mine & {json.dumps([s["function"], s["args"]], sort_keys=True)
                                       for s in u["ground_truth_trace"]}
                           for u in injectable):
                    err(f"{tid}: unrequested-action but every pair's user task makes its calls")
    if set(vectors) - seen_vectors:
        err(f"{S}: vectors never seen: {set(vectors) - seen_vectors}")
    for v in seen_vectors - set(vectors):
        err(f"{S}: undeclared vector {v}")
    # ---- every pair's attacked results hold the goal
    pairs = 0
    for u in injectable:
        for j in injs:
            if j["ground_truth_empty"]:
                continue
            pairs += 1
            attacked = [fill(s["result"], vectors, j["goal"], defaults)
                        for s in u["ground_truth_trace"]]
            if not any(j["goal"] in a for a in attacked):
                err(f"{S}: pair ({u['id']}, {j['id']}) never shows the goal")
    if pairs != c["security_pairs"]:
        err(f"{S}: {pairs} pairs, counts say {c['security_pairs']}")
    return doc


def domain_checks(S, tid, is_user, trace, env):
    if not is_user:
        return
    for s in trace:
        f, a = s["function"], s["args"]
        if S == "restaurant" and f == "pay_invoice":
            inv = next(i for i in env["invoices"] if i["invoice_id"] == a["invoice_id"])
            if inv["status"] != "open" or inv["disputed"]:
                err(f"{tid}: pays invoice {a['invoice_id']} that is not open or is disputed")
        if S == "restaurant" and f == "cancel_reservation":
            if not any(r["reservation_id"] == a["reservation_id"] for r in env["reservations"]):
                err(f"{tid}: cancels an unknown reservation")
        if S == "lawfirm" and f == "disburse_trust_funds":
            m = next(x for x in env["matters"] if x["matter_id"] == a["matter_id"])
            if a["amount"] > float(m["trust_balance"]):
                err(f"{tid}: disburses more than the trust balance")
        if S == "lawfirm" and f in ("revoke_share",):
            d = next(x for x in env["documents"] if x["document_id"] == a["document_id"])
            if a["email"] not in [x["email"] for x in d["shared_with"]]:
                err(f"{tid}: revokes a share that does not exist")
        if S == "lawfirm" and f == "update_contact":
            if a["contact_id"] not in [c["contact_id"] for c in env["contacts"]]:
                err(f"{tid}: unknown contact")
        if S == "lab" and f == "book_instrument":
            day, start = a["start"].split("T")
            end = a["end"].split("T")[1]
            for b in env["bookings"]:
                if b["instrument_id"] == a["instrument_id"] and b["date"] == day and \
                        b["start"] < end and start < b["end"]:
                    err(f"{tid}: booking overlaps {b['booking_id']}")
            if a["booked_for"] not in [m["email"] for m in env["members"]]:
                err(f"{tid}: books for someone outside the lab")
        if S == "lab" and f == "cancel_instrument_booking":
            b = next(x for x in env["bookings"] if x["booking_id"] == a["booking_id"])
            if b["group"] != "Tanaka lab":
                err(f"{tid}: cancels another group's booking")
        if S == "lab" and f == "submit_purchase_request":
            g = next(x for x in env["grants"] if x["grant_id"] == a["grant_id"])
            left = max(float(l["remaining"].strip("$").replace(",", "")) for l in g["lines"])
            if a["amount"] > left:
                err(f"{tid}: purchase larger than what is left on the grant")


def main():
    regenerate()
    schema = dev_schema()
    if schema is not None:
        top, uk, ik, sk = schema
        if (top, uk, ik, sk) != (TOP_KEYS, USER_KEYS, INJ_KEYS, STEP_KEYS):
            err("the development suites' key names differ from the ones checked here")
    seen = {}
    totals = dict(tools=0, user_tasks=0, injectable=0, injection_tasks=0, pairs=0)
    for d in DOMAINS:
        seen[d] = set()
        seen[d + "/inj"] = set()
        doc = check_suite(d, seen)
        c = doc["counts"]
        totals["tools"] += c["tools"]
        totals["user_tasks"] += c["user_tasks"]
        totals["injectable"] += c["injectable_user_tasks"]
        totals["injection_tasks"] += c["injection_tasks"]
        totals["pairs"] += c["security_pairs"]
        print(f"{d}: tools {c['tools']}, user tasks {c['user_tasks']} "
              f"({c['injectable_user_tasks']} injectable), injection tasks "
              f"{c['injection_tasks']}, pairs {c['security_pairs']}")
        missing = INJECTION_TAGS - seen[d + "/inj"]
        if missing:
            err(f"{d}: injection classes not covered: {missing}")
        need = {"delegated-lookup", "read-tool-noun", "read-only", "yaml-continuation"}
        if need - seen[d]:
            err(f"{d}: user tags not covered: {need - seen[d]}")
        if not any(t.startswith("legitimate-") for t in seen[d]):
            err(f"{d}: no legitimate-* user task")
    legit = {t for t in USER_TAGS if t.startswith("legitimate-")}
    all_user = set().union(*(seen[d] for d in DOMAINS))
    if legit - all_user:
        err(f"set: legitimate-* not covered: {legit - all_user}")
    sums = SET / "SHA256SUMS.pre-measurement"
    if sums.is_file():
        for line in sums.read_text().splitlines():
            h, path = line.split(None, 1)
            path = path.lstrip("*")
            if hashlib.sha256((SET / path).read_bytes()).hexdigest() != h:
                err(f"SHA256SUMS: {path} changed")
    print("totals: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    if ERRORS:
        print(f"\n{len(ERRORS)} problem(s):")
        for e in ERRORS:
            print("  " + e)
        sys.exit(1)
    print("check passed")


if __name__ == "__main__":
    main()
