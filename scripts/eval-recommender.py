#!/usr/bin/env python3
"""Evaluate gk's model advice, one command:

    python3 scripts/eval-recommender.py [--real DIR [--weighed]]

Scores four advisors on (a) the held-out split of data/advice (the fixed
fifth the training script never trains on), (b) data/advice/tried/styled.jsonl
(prompts written in the shapes of real ones, never trained on) and, with
--real, (c) a folder of labelled real prompts (prompts.jsonl: id, prompt; labels.jsonl: id,
model, effort, and optionally model_second, effort_second: either
labeller's label counts). Nothing here is written anywhere.

Advisors:
  always Sonnet      no advice at all (effort: none)
  keywords (global)  the seed's rules, first match (`gk rules --preset default`)
  --preset software  `gk rules --preset software`
  recommender        the per-session default: the learned model (the weights
                     compiled into gk, scored by the Python twin of
                     src/hooks/advice.rs, which a Rust test holds equal)
                     and its effort rule (`gk rules` in per-session scope)

Silence counts as Sonnet: an advisor that says nothing about the model
leaves the user on the default model, which is Sonnet. "Too high" is an
advised tier above every label of the prompt (so silence on a Haiku
prompt is too high), "of which spoken" the part where the advisor named a
tier other than Sonnet (a wrong "switch up"), "too low" a tier below
every label.

With --weighed, each real set is also scored weighed to real traffic's
published shape: "shape" weighs its prompts so that 19 % have five words
or fewer and 7 % are not in English; "both" also to the tier mix 27 %
Haiku, 61 % Sonnet, 11 % Opus, 1 % Fable (by the first label), raked
over the three. A set gathered elsewhere is shorter or more often not in
English than real traffic; the weighed figures say what its errors would
weigh there. "Not in English": under 60 % of the letters ASCII, or four
or more ASCII words and none of a short list of common English ones.

The rules come from gk itself (`cargo run -- rules`), so this builds
gk first. Needs no third-party Python module.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import advice_features as af  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = ["data/advice/starter.jsonl", "data/advice/corpus.jsonl"]
EFFORTS = ("none", "low", "high")
# A slice tried and not taken, written in the shapes of real prompts its
# writers studied: as hard for the model as real prompts (one label each).
STYLED = "data/advice/tried/styled.jsonl"


def load_weights():
    text = open(os.path.join(ROOT, "src/hooks/advice_weights.rs"), encoding="utf-8").read()

    def const(name):
        return re.search(rf"pub const {name}: [^=]+= (.*?);", text, re.S).group(1)

    scale = float(const("SCALE"))
    def floats(name):
        return [float(x) for x in const(name).strip().strip("[]").split(",") if x.strip()]

    bias = floats("BIAS")
    margins = floats("MARGIN")
    lift = float(const("FABLE_LIFT"))
    body = text[text.index("pub static WEIGHTS"):]
    body = body[body.index("= [") + 3:]
    rows = re.findall(r"\[(-?\d+),(-?\d+),(-?\d+),(-?\d+)\]", body)
    if len(rows) != af.BUCKETS:
        sys.exit(f"advice_weights.rs has {len(rows)} rows, expected {af.BUCKETS}")
    weights = [tuple(int(v) for v in r) for r in rows]
    return weights, bias, lift, scale, margins


def gk_rules(args, scope_session=True):
    """`gk rules ARGS` with an empty config folder (the built-in config)."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, CLAUDE_CONFIG_DIR=d)
        out = subprocess.run(["cargo", "run", "-q", "--", "rules", *args], cwd=ROOT, env=env,
                             check=True, capture_output=True)
    return json.loads(out.stdout)


def keyword_hit(kw, low):
    return re.search(r"(?<![a-z0-9])" + re.escape(kw) + r"(?![a-z0-9])", low) is not None


def effort_rule(effort, low):
    if any(keyword_hit(k, low) for k in effort["high"]):
        return "high"
    if any(keyword_hit(k, low) for k in effort["low"]):
        return "low"
    return "none"


def tier_of_label(label):
    for i, t in enumerate(af.TIERS):
        if label.lower().startswith(t):
            return i
    return af.SONNET


def keyword_advisor(cfg):
    def advise(prompt):
        low = prompt.lower()
        words = len(low.split())
        tier = af.SONNET
        for r in cfg["models"]:
            limit = r.get("max_words")
            if limit is None and r["label"].startswith("Haiku"):
                limit = cfg["haiku_max_words"]
            if limit is not None and words > limit:
                continue
            if any(keyword_hit(k, low) for k in r["keywords"]):
                tier = tier_of_label(r["label"])
                break
        return tier, effort_rule(cfg["effort"], low)
    return advise


def recommender(cfg, model):
    weights, bias, lift, scale, margins = model

    def advise(prompt):
        seen, _, guard = af.active(prompt)
        _, _, z = af.raw_scores(list(seen), weights, bias, guard, lift)
        d = af.decide(z, scale, margins, guard)
        return (af.SONNET if d is None else d), effort_rule(cfg["effort"], prompt.lower())
    return advise


def held_out_set():
    rows, seen = [], set()
    for rel in CORPUS:
        for line in open(os.path.join(ROOT, rel), encoding="utf-8"):
            if not line.strip():
                continue
            r = json.loads(line)
            if r["prompt"] in seen:
                continue
            seen.add(r["prompt"])
            if af.fnv1a(b"split:" + r["prompt"].encode("utf-8", "replace")) % 5 == 0:
                t = af.TIERS.index(r["model"])
                rows.append((r["prompt"], {t}, {r["effort"]}, t))
    return rows


def tried_set(rel):
    """A slice tried and not taken (data/advice/tried/): never trained on."""
    rows = []
    for line in open(os.path.join(ROOT, rel), encoding="utf-8"):
        if line.strip():
            r = json.loads(line)
            t = af.TIERS.index(r["model"])
            rows.append((r["prompt"], {t}, {r["effort"]}, t))
    return rows


def real_set(folder):
    prompts = {}
    for line in open(os.path.join(folder, "prompts.jsonl"), encoding="utf-8"):
        if line.strip():
            r = json.loads(line)
            prompts[r["id"]] = r["prompt"]
    rows = []
    for line in open(os.path.join(folder, "labels.jsonl"), encoding="utf-8"):
        if not line.strip():
            continue
        r = json.loads(line)
        tiers = {af.TIERS.index(r["model"])}
        efforts = {r["effort"]}
        if r.get("model_second"):
            tiers.add(af.TIERS.index(r["model_second"]))
        if r.get("effort_second"):
            efforts.add(r["effort_second"])
        rows.append((prompts[r["id"]], tiers, efforts, af.TIERS.index(r["model"])))
    return rows


def score(rows, advise):
    n = len(rows)
    agree = high = low = eff = spoke_high = 0
    confusion = [[0] * 4 for _ in range(4)]
    for prompt, tiers, efforts, first in rows:
        t, e = advise(prompt)
        agree += t in tiers
        high += t > max(tiers)
        spoke_high += t > max(tiers) and t != af.SONNET
        low += t < min(tiers)
        eff += e in efforts
        confusion[first][t] += 1
    return {"agree": agree / n, "high": high / n, "low": low / n, "effort": eff / n,
            "spoke_high": spoke_high / n,
            "confusion": confusion}


ENGLISH = set("the a to is it and of in for this that you i we can be with on please fix add "
              "make what why how do does not".split())


def not_english(prompt):
    letters = [c for c in prompt if c.isalpha()]
    if not letters:
        return False
    if sum(1 for c in letters if ord(c) < 128) / len(letters) < 0.6:
        return True
    words = re.findall(r"[a-zA-Z']+", prompt.lower())
    return len(words) >= 4 and not any(w in ENGLISH for w in words)


def weights_to(rows, margins, rounds=50):
    """Raking: weights that give `rows` each margin's shares. A margin is
    (key of a row, {value: share})."""
    w = [1.0] * len(rows)
    keys = [[key(r) for r in rows] for key, _ in margins]
    for _ in range(rounds):
        for k, (_, shares) in zip(keys, margins):
            total = sum(w)
            for value, share in shares.items():
                s = sum(wi for wi, kv in zip(w, k) if kv == value)
                if s > 0:
                    f = share * total / s
                    w = [wi * f if kv == value else wi for wi, kv in zip(w, k)]
    return w


SHAPE = [(lambda r: len(r[0].split()) <= 5, {True: 0.19, False: 0.81}),
         (lambda r: not_english(r[0]), {True: 0.07, False: 0.93})]
MIX = [(lambda r: r[3], {af.HAIKU: 0.27, af.SONNET: 0.61, af.OPUS: 0.11, af.FABLE: 0.01})]


def weighed(rows, advisors):
    print("\nweighed to real traffic (agreement / too high / too low):")
    ws = {"shape": weights_to(rows, SHAPE), "both": weights_to(rows, SHAPE + MIX)}
    for label, advise in advisors:
        line = []
        advice = [advise(r[0])[0] for r in rows]
        for name, w in ws.items():
            total = sum(w)
            agree = sum(wi for wi, t, r in zip(w, advice, rows) if t in r[1]) / total
            high = sum(wi for wi, t, r in zip(w, advice, rows) if t > max(r[1])) / total
            low = sum(wi for wi, t, r in zip(w, advice, rows) if t < min(r[1])) / total
            line.append(f"{name} {agree:.1%} / {high:.1%} / {low:.1%}")
        print(f"  {label:<20} " + "   ".join(line))


def report(name, rows, advisors):
    print(f"\n## {name}: {len(rows)} prompts")
    print(f"{'advisor':<22} {'tier agree':>10} {'too high':>9} {'of which spoken':>16} {'too low':>8} {'effort':>7}")
    results = []
    for label, advise in advisors:
        r = score(rows, advise)
        results.append((label, r))
        print(f"{label:<22} {r['agree']:>10.1%} {r['high']:>9.1%} {r['spoke_high']:>16.1%} "
              f"{r['low']:>8.1%} {r['effort']:>7.1%}")
    for label, r in results:
        print(f"\nconfusion, {label} (rows: first label; columns: advice, silence = sonnet)")
        print("        " + " ".join(f"{t:>6}" for t in af.TIERS))
        for t in range(4):
            print(f"  {af.TIERS[t]:>6}" + " ".join(f"{v:>6}" for v in r["confusion"][t]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", metavar="DIR", help="a folder of labelled real prompts")
    ap.add_argument("--weighed", action="store_true",
                    help="also weigh the real prompts to real traffic's length, language and tier mix")
    args = ap.parse_args()
    if args.weighed and not args.real:
        ap.error("--weighed weighs a set of real prompts: give it with --real DIR")
    seed = gk_rules(["--preset", "default"])
    software = gk_rules(["--preset", "software"])
    session = gk_rules([])
    if session.get("advice") != "learned":
        sys.exit("gk rules in per-session scope does not say \"advice\": \"learned\"")
    model = load_weights()
    advisors = [
        ("always Sonnet", lambda p: (af.SONNET, "none")),
        ("keywords (global)", keyword_advisor(seed)),
        ("--preset software", keyword_advisor(software)),
        ("recommender", recommender(session, model)),
    ]
    report("held-out split of data/advice", held_out_set(), advisors)
    report(f"written in real prompts' shapes ({STYLED}, never trained on)",
           tried_set(STYLED), advisors)
    if args.real:
        rows = real_set(args.real)
        report(f"real prompts ({os.path.basename(os.path.normpath(args.real))})", rows, advisors)
        if args.weighed:
            weighed(rows, advisors)


if __name__ == "__main__":
    main()
