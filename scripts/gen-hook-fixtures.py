#!/usr/bin/env python3
"""Regenerate tests/fixtures/hooks/cases.json by running the Python v5 hooks.

Usage: scripts/gen-hook-fixtures.py [REFERENCE_DIR]
REFERENCE_DIR (or $GK_REFERENCE_DIR) holds gatekeeper.py and
state_monitor.py; default ../shared/reference next to the repository.

Each case is run with HOME pointed at a fresh temporary folder holding
.claude/hooks/task_state.json as the case describes. A case that gives the
state an age sets the file's mtime that many seconds before "now" right
before the hook runs; gk's test does the same, so ages are chosen well away
from every bucket edge. The reference's stdout is recorded byte for byte.
A case the reference crashes on is an error: such inputs are covered by
gk's own robustness tests instead.
"""
import base64
import json
import os
import random
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_REF = os.path.join(os.path.dirname(REPO), "shared", "reference")
OUT = os.path.join(REPO, "tests", "fixtures", "hooks", "cases.json")

H = 3600

# --- task_state.json variants -------------------------------------------

def state(obj=None, age=60, text=None, raw=None, bom=False):
    """A state file: a JSON object, literal text, or raw bytes; mtime `age` s ago."""
    if raw is not None:
        return {"kind": "file", "content_b64": base64.b64encode(raw).decode(), "age_secs": age}
    if text is None:
        text = json.dumps(obj, indent=2)
    s = {"kind": "file", "content": text, "age_secs": age}
    if bom:
        s["bom"] = True
    return s

MISSING = None
DIRECTORY = {"kind": "dir"}

def task(status, **kw):
    d = {"status": status, "task": "Writing bfsi-case.ttl", "detail": "Phase P1 -- new shared case module",
         "project": "BFSI", "cwd": "C:\\d_drive\\workKW\\WorkClaude\\BFSI", "updated": "2026-09-26T14:32:00"}
    d.update(kw)
    return d

CLEAN = state({"status": "clean", "task": "", "detail": "", "project": "", "cwd": "",
               "updated": "2026-09-26T15:10:00"})

# States both hooks read without crashing.
COMMON_STATES = {
    "clean": CLEAN,
    "clean-minimal": state({"status": "clean"}),
    "in-progress-fresh": state(task("in_progress"), age=12 * 60 + 20),
    "in-progress-no-project-no-detail": state(task("in_progress", project="", detail=""), age=300),
    "in-progress-no-updated-30h": state({k: v for k, v in task("in_progress").items() if k != "updated"},
                                        age=30 * H + 1800),
    "in-progress-stale-25h": state(task("in_progress"), age=25 * H + 600),
    "in-progress-23h-not-stale": state(task("in_progress"), age=23 * H + 600),
    "in-progress-future-mtime": state(task("in_progress"), age=-2 * H),
    "in-progress-unicode": state(task("in_progress", task="Écrire l'ontologie — 😀", project="Zürich",
                                      detail="naïve \"quotes\" \\ back\nslash\ttab"), age=200),
    "in-progress-numbers": state(task("in_progress", task=42, project=0, detail=1.5), age=200),
    "in-progress-project-zero-string": state(task("in_progress", project="0", detail=[]), age=200),
    "in-progress-null-fields": state(task("in_progress", task=None, project=None, detail=None), age=200),
    "in-progress-list-fields": state(task("in_progress", task=["a", "b'c"], project={"k": 1}, detail=True), age=200),
    "in-progress-no-task": state({"status": "in_progress"}, age=200),
    "status-paused": state(task("paused")),
    "status-in-progress-typo": state(task("in-progress")),
    "status-empty": state(task("")),
    "status-unknown-literal": state(task("unknown")),
    "status-missing-literal": state(task("missing")),
    "status-null": state(task(None)),
    "status-number": state(task(5)),
    "status-float": state(task(2.5)),
    "status-true": state(task(True)),
    "status-list": state(task(["in_progress"])),
    "status-upper": state(task("CLEAN")),
    "no-status-field": state({"task": "x", "project": "P"}),
    "empty-object": state({}),
    "malformed-json": state(text='{"status": "in_progress",'),
    "empty-file": state(text=""),
    "trailing-comma": state(text='{"status": "clean",}'),
    "invalid-utf8": state(raw=b'{"status": "in_progress", "task": "\xff\xfe"}'),
    "missing": MISSING,
    "directory": DIRECTORY,
    "duplicate-keys": state(text='{"status": "in_progress", "status": "clean"}'),
    "bom-clean": state({"status": "clean"}, bom=True),
    "bom-in-progress": state(task("in_progress"), age=600, bom=True),
}
# States only the gatekeeper survives (the reference Stop hook crashes).
PROMPT_ONLY_STATES = {
    "top-level-list": state(text='["in_progress"]'),
    "top-level-number": state(text="42"),
    "top-level-string": state(text='"clean"'),
}

# Ages for the Stop hook's buckets, well away from every edge.
AGES = {
    "future": -3 * H,
    "just-now-5s": 5,
    "just-now-60s": 60,
    "2m": 150,
    "45m": 45 * 60 + 20,
    "59m": 59 * 60 + 10,
    "1h": H + 300,
    "5h": 5 * H + 900,
    "23h": 23 * H + 900,
    "24h-stale": 24 * H + 1200,
    "47h": 47 * H + 1200,
    "2d": 48 * H + 1200,
    "3d": 3 * 24 * H + 5 * H,
    "40d": 40 * 24 * H,
}

# --- prompts ---------------------------------------------------------------

REFERENCE_KEYWORDS = {}  # filled from the reference module in main()

PROMPTS = [
    # Section 5 and 14 examples
    "Write a SPARQL query to find all AML alerts above risk 0.7",
    "[check] read and summarise the site www.wiki.com",
    "[CHECK] implement the ontology",
    " [ check ] ok",
    "please check the ttl",
    "the [check] tag in the middle",
    # Section 11 false positives and boundaries
    "settle the invoice",
    "i know",
    "look at this",
    "fix the ttl-file",
    "fix the ttl_file",
    "caféttl",
    "ttl2 is wrong",
    "2ttl",
    "TTL please",
    "(ttl)",
    "ttl.",
    "ttlé",
    "éttlé",
    "ttl's header",
    "sparqling water",
    "okay then",
    "nokia",
    "yes!",
    "no.",
    "snowed in",
    "end-to-end run",
    "end to endless",
    "xend to end to end",
    "self-review",
    "selfreview",
    "review all the files",
    "reviewall",
    # word counts around the Haiku limit
    "ok",
    "ok one two three four five six seven",
    "ok one two three four five six seven eight",
    "one two three four five six seven ok",
    "one two three four five six seven eight ok",
    "ok\x1cone\x1dtwo\x1ethree\x1ffour five six seven eight",
    "ok\u00a0one\u3000two\u2003three\u2028four\u0085five six seven eight",
    "ok\u200bone two three four five six seven eight",
    "ok\u180eone two three four five six seven eight",
    "thanks   \t\n  a   lot",
    "   ",
    "",
    # rule order and effort order
    "ttl end to end",
    "end to end",
    "run everything autonomous",
    "explain ok",
    "quick",
    "in short what is this",
    "quick audit",
    "briefly review all",
    "just check one line",
    "integrity check",
    "deep review please",
    "validate all things",
    "check everything",
    "validate",
    "continue",
    "go ahead",
    "sounds good, make it so",
    "done",
    "full build of entire p1",
    "do the whole build and validate and upload",
    "multi-step workflow",
    # Unicode prompts
    "İmplement the ontology",
    "noİ",
    "o\u212a",
    "\u212aeep going ok",
    "[chec\u212a] ok",
    "[chec\u212a] implement it",
    "ΣΑΣ ok",
    "ÇA VA? ok",
    "😀 ok 😀",
    "日本語でttlを説明して",
    "ｏｋ",
    "o\u0301k",
    "ok\u0301",
    # [check] prefix forms
    "[check]",
    "[check]implement",
    "\t[check]\nttl",
    "\u3000[check]\u00a0quick explain",
    "[ CHECK ]",
    "[check][check] ttl",
    "[chek] ttl",
    "[checks] ttl",
    "[check ttl",
    "check] ttl",
    "x [check] ttl",
    "[\u2003check\u2003] end to end",
    "[Check] yes",
]


def prompt_event(prompt):
    return {"session_id": "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f",
            "transcript_path": "/home/u/.claude/projects/-home-u-work/3f2a9c1e.jsonl",
            "cwd": "/home/u/work", "prompt_id": "p-0001", "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit", "prompt": prompt}


STOP_EVENT = json.dumps({"session_id": "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f",
                         "transcript_path": "/home/u/.claude/projects/-home-u-work/3f2a9c1e.jsonl",
                         "cwd": "/home/u/work", "permission_mode": "default", "effort": {"level": "medium"},
                         "hook_event_name": "Stop", "stop_hook_active": False,
                         "last_assistant_message": "Done.", "background_tasks": [], "session_crons": []},
                        separators=(",", ":"))


def compact(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def build_cases():
    cases = []

    def add(name, hook, stdin, st):
        cases.append({"name": name, "hook": hook, "stdin": stdin, "state": st})

    for i, p in enumerate(PROMPTS):
        add(f"prompt/text-{i:03}", "prompt", compact(prompt_event(p)), CLEAN)
    # Every keyword of every rule and effort list, alone in a short prompt.
    for kw in REFERENCE_KEYWORDS["rules"]:
        add(f"prompt/keyword/{kw}", "prompt", compact({"prompt": f"please {kw} now"}), CLEAN)
    for kw in REFERENCE_KEYWORDS["effort"]:
        add(f"prompt/effort/{kw}", "prompt",
            compact({"prompt": f"{kw} this long prompt has many words so haiku is out"}), CLEAN)
    # Which field holds the prompt.
    fields = {
        "user-prompt-wins": {"user_prompt": "implement it", "prompt": "ok"},
        "empty-user-prompt-falls-back": {"user_prompt": "", "prompt": "implement it"},
        "zero-user-prompt-falls-back": {"user_prompt": 0, "prompt": "implement it"},
        "null-user-prompt-falls-back": {"user_prompt": None, "prompt": "implement it"},
        "empty-list-user-prompt-falls-back": {"user_prompt": [], "prompt": "explain"},
        "false-user-prompt-falls-back": {"user_prompt": False, "prompt": "ok"},
        "only-user-prompt": {"user_prompt": "ok"},
        "no-prompt-field": {"session_id": "s"},
        "empty-object": {},
        "empty-prompt": {"prompt": ""},
        "both-empty": {"user_prompt": "", "prompt": ""},
    }
    for name, ev in fields.items():
        add(f"prompt/field/{name}", "prompt", compact(ev), CLEAN)
    add("prompt/field/duplicate-prompt-key-last-wins", "prompt", '{"prompt":"ttl","prompt":"ok"}', CLEAN)
    add("prompt/field/lone-surrogate-in-prompt", "prompt", '{"prompt":"ok \\ud800 go"}', CLEAN)
    add("prompt/field/escaped-unicode", "prompt", '{"prompt":"\\u0049mplement \\ud83d\\ude00"}', CLEAN)
    add("prompt/field/ascii-escaped-payload", "prompt", json.dumps(prompt_event("caf\u00e9 ttl")), CLEAN)
    add("prompt/field/pretty-payload", "prompt", json.dumps(prompt_event("quick explain"), indent=2), CLEAN)
    # Input that is not JSON: the reference prints nothing.
    for i, raw in enumerate(["", "not json", "{", "{\"prompt\": \"ok\"", "\ufeff{\"prompt\": \"ok\"}",
                             "{'prompt': 'ok'}"]):
        add(f"prompt/not-json-{i}", "prompt", raw, CLEAN)
    # Every state variant, with a prompt and with [check].
    for name, st in {**COMMON_STATES, **PROMPT_ONLY_STATES}.items():
        add(f"prompt/state/{name}", "prompt", compact({"prompt": "implement the ontology"}), st)
    for name in ["clean", "in-progress-fresh", "in-progress-stale-25h", "status-paused", "missing"]:
        add(f"prompt/state-check/{name}", "prompt", compact({"prompt": "[check] end to end build"}),
            COMMON_STATES[name])
    add("prompt/state/fable-dirty-effort", "prompt", compact({"prompt": "run everything, quick"}),
        COMMON_STATES["in-progress-fresh"])
    # Stop hook: every state, and every age bucket for clean and in_progress.
    for name, st in COMMON_STATES.items():
        add(f"stop/state/{name}", "stop", STOP_EVENT, st)
    for age_name, age in AGES.items():
        add(f"stop/age/clean-{age_name}", "stop", STOP_EVENT, state({"status": "clean"}, age=age))
        add(f"stop/age/in-progress-{age_name}", "stop", STOP_EVENT, state(task("in_progress"), age=age))
    for i, raw in enumerate(["", "not json", "[]"]):
        add(f"stop/stdin-ignored-{i}", "stop", raw, COMMON_STATES["in-progress-fresh"])
    # Seeded random prompts and states, for what the hand-picked cases miss.
    rng = random.Random(20260926)
    for i in range(120):
        add(f"prompt/random/{i:03}", "prompt", compact({"prompt": random_prompt(rng)}), CLEAN)
    for i in range(40):
        st = state(random_state(rng), age=rng.choice(RANDOM_AGES))
        add(f"prompt/random-state/{i:03}", "prompt", compact({"prompt": "implement it"}), st)
        add(f"stop/random-state/{i:03}", "stop", STOP_EVENT, st)
    return cases


RANDOM_TOKENS = ["[check]", "[ CHECK ]", "[", "]", "check", "chec\u212a", "\u212a", "\u0130", "\u03a3", "\u03c2",
                 "\u00e9", "-", "_", "2", "x", "a", "K", " ", "  ", "\t", "\n", "\x1c", "\x1f", "\x85", "\xa0",
                 "\u3000", "\u200b", "\u180e", "\u2028", "\U0001f600", "Ok", "NO", "TTL"]
RANDOM_AGES = [-5000, 30, 200, 5000, 30 * H + 100, 100 * H, 25 * H + 50]


def random_prompt(rng):
    tokens = REFERENCE_KEYWORDS["rules"] + REFERENCE_KEYWORDS["effort"] + RANDOM_TOKENS
    sep = rng.choice(["", " ", ""])
    text = sep.join(rng.choice(tokens) for _ in range(rng.randrange(0, 14)))
    return text.upper() if rng.random() < 0.3 else text


def random_value(rng, depth=0):
    c = rng.randrange(12)
    if c == 0:
        return None
    if c == 1:
        return rng.choice([True, False])
    if c == 2:
        return rng.choice([0, 1, -5, 2 ** 40, 12345678901234])
    if c == 3:
        return rng.choice([0.0, -0.0, 1.5, 1e20, 1e16, 1e15, 123456789.125, 1e-5, 0.0001, -2.5e-10, 1e300])
    if c == 4 and depth < 2:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    if c == 5 and depth < 2:
        # One key only: gk shows dict keys sorted, Python in file order.
        return {rng.choice(["a", "k'", 'q"', "\u00e9"]): random_value(rng, depth + 1)}
    pieces = ["a", "B", " ", "\u00e9", "'", '"', "\\", "\n", "\t", "\x01", "\x7f", "\x9f", "\U0001f600",
              "in_progress", "clean", ""]
    return "".join(rng.choice(pieces) for _ in range(rng.randrange(6)))


def random_state(rng):
    d = {}
    for k in ["status", "task", "detail", "project", "updated", "cwd"]:
        if rng.random() < 0.75:
            if k == "status":
                d[k] = rng.choice(["in_progress", "clean", "in_progress", "clean", random_value(rng)])
            else:
                d[k] = random_value(rng)
    return d


def load_keywords(ref_dir):
    ns = {"__name__": "gk_fixture_reader"}
    src = open(os.path.join(ref_dir, "gatekeeper.py"), encoding="utf-8").read()
    # Import the rules without running main().
    exec(compile(src, "gatekeeper.py", "exec"), ns)
    rules = [kw for _, _, _, kws in ns["MODEL_RULES"] for kw in kws]
    effort = ns["EFFORT_HIGH_KEYWORDS"] + ns["EFFORT_LOW_KEYWORDS"]
    return {"rules": rules, "effort": effort}


def put_state(home, st):
    hooks = os.path.join(home, ".claude", "hooks")
    os.makedirs(hooks, exist_ok=True)
    path = os.path.join(hooks, "task_state.json")
    if st is None:
        return
    if st["kind"] == "dir":
        os.makedirs(path)
        return
    if "content_b64" in st:
        data = base64.b64decode(st["content_b64"])
    else:
        # The reference cannot read a BOM; gk can. The expected output for a
        # BOM case is the reference's answer on the same text without it.
        data = st["content"].encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)
    t = time.time() - st["age_secs"]
    os.utime(path, (t, t))


def run_case(ref_dir, case):
    script = "gatekeeper.py" if case["hook"] == "prompt" else "state_monitor.py"
    with tempfile.TemporaryDirectory() as home:
        put_state(home, case["state"])
        env = {"HOME": home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
               "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"}
        r = subprocess.run([sys.executable, os.path.join(ref_dir, script)],
                           input=case["stdin"].encode("utf-8"), capture_output=True, env=env)
    if r.returncode != 0 or r.stderr:
        raise SystemExit(f"reference failed on {case['name']}: rc={r.returncode}\n{r.stderr.decode()}")
    return r.stdout.decode("ascii")


def main():
    ref_dir = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("GK_REFERENCE_DIR", DEFAULT_REF)
    REFERENCE_KEYWORDS.update(load_keywords(ref_dir))
    cases = build_cases()
    names = [c["name"] for c in cases]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise SystemExit(f"duplicate case names: {sorted(dupes)}")
    for case in cases:
        case["expected_stdout"] = run_case(ref_dir, case)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump({"generated_by": "scripts/gen-hook-fixtures.py", "cases": cases}, f, indent=1,
                  ensure_ascii=False)
        f.write("\n")
    print(f"{len(cases)} cases written to {os.path.relpath(OUT, REPO)}")


if __name__ == "__main__":
    main()
