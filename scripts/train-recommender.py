#!/usr/bin/env python3
"""Train the model recommender and write its weights into gk's source.

    python3 scripts/train-recommender.py          # train, print figures, write
    python3 scripts/train-recommender.py --check  # train, print, write nothing

Needs numpy, scipy and scikit-learn (pip); CI does not run it: what it
writes is committed. Reproducible: the same corpus gives the same bytes.

Reads data/advice/starter.jsonl and data/advice/corpus.jsonl (one prompt a
line: prompt, model, effort[, reason]). A fixed fifth of the prompts, chosen
by a hash of the text (see held_out), is the held-out split: never trained
on, never used to choose a setting. Every setting (C, the margins) is
chosen by cross-validation on the rest, by slices of the corpus (one
slice held out at a time; see CV).

Writes:
  src/hooks/advice_weights.rs          the weights (i16), biases, scale, margins
  tests/fixtures/advice_scores.json    a few prompts' scores, for the Rust twin test
"""

import argparse
import json
import math
import os
import sys

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import advice_features as af  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = ["data/advice/starter.jsonl", "data/advice/corpus.jsonl"]
WEIGHTS_RS = "src/hooks/advice_weights.rs"
FIXTURE = "tests/fixtures/advice_scores.json"

# Real traffic's tier mix (27 % Haiku, 61 % Sonnet, 11 % Opus, under 1 %
# Fable: the published figures the corpus was written by). The model's
# intercepts are moved from the corpus's mix to this one.
REAL_MIX = np.array([0.27, 0.61, 0.11, 0.01])
# C was chosen from 1, 3, 10, 30, 100 and 300 by the cross-validation by
# slices (10 won on the corpus of 14,487 prompts; with 5 random folds 300
# won, the weaker regularisation that fits the writers' own words better);
# one training takes minutes, so the default grid is that choice alone:
# `--c-grid 1,3,10,30,100,300` searches again.
C_GRID = [10.0]
MARGIN_GRID = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0]
# Haiku is advised only when it leads. A margin below zero (Haiku advised
# when it trails Sonnet by a little) won the written cross-validation,
# which counts silence on a Haiku prompt as advice too high; on 444 real
# prompts gathered and labelled outside the repository (a development set,
# docs/maintainers/recommender.md) it advised Haiku for 30 % of the
# Sonnet prompts (bare requests to go on, short reports that something
# still fails, questions in Chinese) and fell below saying nothing, so it
# is no longer searched.
HAIKU_MARGIN_GRID = MARGIN_GRID
# Fable's lift: logits added to Fable's score when the guard lets it in
# on explicit autonomy (the user hands the work over: "overnight",
# "I'm offline until Monday", "don't stop"; with a scope, not "plan
# only"). Those are the strongest evidence a prompt can give of
# long-horizon work; the n-grams alone, learned mostly from prompts
# without them, left prompts such as "I'm going to sleep, finish the
# refactor across all packages" to Sonnet. Work told step by step ("for
# each", "one by one") opens the guard but gets no lift: lifted too, it
# made every Fable advised wrongly in the cross-validation. Chosen with
# the margins by the same objective.
LIFT_GRID = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0]
# Precision before recall: a tier advised too high costs this many
# agreements in the margin search, a tier too low this many.
TOO_HIGH_COST = 2.0
TOO_LOW_COST = 1.0
# And Fable first of all: the search takes the settings that advise Fable
# above every label for the fewest prompts of the cross-validation, and
# among those the best objective. The objective is a mean over the two
# kinds of prompts, so a Fable prompt found among the 516 starter ones
# outweighs a wrong Fable among the 11,077 corpus ones twenty times over;
# that bought 2 more found for 2 wrong (Fable's lift 4 against 3,
# 2026-12-05). A wrong Fable is the costliest advice there is: the priciest
# model on work the user did not hand over.

# gk is judged on two kinds of prompts: what people type (the corpus is
# written like it) and prompts written from the tier definitions, many
# worded to mislead (the starter set is). The margins are chosen by the
# mean of the objective on each, so neither swamps the other (the starter
# set is a seventh of the prompts), and each starter prompt weighs this
# much in the fit. Chosen from 1, 2, 4 and 8 by that cross-validated
# objective (one fit per fold takes minutes: `--starter-weight` tries
# another).
STARTER_WEIGHT = 4.0
# The weight of a prompt of each tier in the fit (Haiku, Sonnet, Opus,
# Fable), on top of the starter weight. The intercepts are moved to real
# traffic's mix afterwards either way, so this changes how hard the fit
# works on a tier's prompts, not how often the tier is advised.
CLASS_WEIGHT = [1.0, 1.0, 1.0, 1.0]
SEED = 20261204
# How settings are cross-validated: "slices" holds out one slice of the
# corpus at a time (its `slice` field: a domain or a way of typing, each
# written apart), so a setting is judged on prompts of a kind the model
# has not seen, as real prompts are; "random": 5 stratified folds.
CV = "slices"
# The prompts written before the slices, cut into this many groups.
SLICE_GROUPS_OF_FIRST = 4


def load():
    rows, seen = [], set()
    for rel in CORPUS:
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                r = json.loads(line)
                p = r["prompt"]
                if p in seen:
                    continue
                seen.add(p)
                if r["model"] not in af.TIERS or r["effort"] not in ("none", "low", "high"):
                    sys.exit(f"{rel}:{n}: bad label {r['model']!r}/{r['effort']!r}")
                rows.append({"prompt": p, "tier": af.TIERS.index(r["model"]),
                             "effort": r["effort"], "source": rel,
                             "slice": r.get("slice", "")})
    return rows


def held_out(prompt):
    """The fixed held-out fifth: a hash of the text, so a prompt stays on its
    side as the corpus grows."""
    return af.fnv1a(b"split:" + prompt.encode("utf-8", "replace")) % 5 == 0


_ACTIVE = {}


def active(prompt):
    """af.active, once per prompt (the training reads each several times)."""
    if prompt not in _ACTIVE:
        _ACTIVE[prompt] = af.active(prompt)
    return _ACTIVE[prompt]


def matrix(prompts):
    indptr, indices, data = [0], [], []
    for p in prompts:
        seen, _, _ = active(p)
        bs = sorted(seen)
        v = 1.0 / math.sqrt(len(bs)) if bs else 0.0
        indices.extend(bs)
        data.extend([v] * len(bs))
        indptr.append(len(indices))
    return sparse.csr_matrix((data, indices, indptr), shape=(len(prompts), af.BUCKETS))


def guards(prompts):
    return [active(p)[2] for p in prompts]


def fit(X, y, C, sw):
    m = LogisticRegression(C=C, max_iter=3000, solver="lbfgs")
    m.fit(X, y, sample_weight=sw)
    W = m.coef_.T.copy()  # buckets x 4
    b = m.intercept_.copy()
    prior = np.bincount(y, weights=sw, minlength=4) / sw.sum()
    b += np.log(REAL_MIX / np.maximum(prior, 1e-9))
    return W, b


def logits(X, W, b):
    return np.asarray(X @ W) + b


def lifted(Z, lift_ok, lift):
    """Z with Fable's lift added where the guard lifts Fable."""
    Zl = Z.copy()
    Zl[lift_ok, af.FABLE] += lift
    return Zl


def decide_all(Z, G, margins, lift):
    Zl = lifted(Z, np.array([af.fable_lifted(g) for g in G], dtype=bool), lift)
    return [af.decide(list(z), 1.0, margins, g) for z, g in zip(Zl, G)]


def tier_of(d):
    return af.SONNET if d is None else d


def figures(pred, y):
    n = len(y)
    agree = sum(1 for p, t in zip(pred, y) if tier_of(p) == t)
    high = sum(1 for p, t in zip(pred, y) if tier_of(p) > t)
    low = sum(1 for p, t in zip(pred, y) if tier_of(p) < t)
    return agree / n, high / n, low / n


def objective(pred, y, starter):
    """The mean over the two kinds of prompts (starter: a bool per row) of
    agreement minus the costs of advice too high and too low."""
    total = 0.0
    for part in (~starter, starter):
        idx = np.flatnonzero(part)
        a, h, lo = figures([pred[i] for i in idx], y[idx])
        total += a - TOO_HIGH_COST * h - TOO_LOW_COST * lo
    return total / 2


def cv_folds(X, y, groups):
    """The cross-validation's folds: with `groups`, one fold per group (a
    slice of the corpus is predicted by a model that saw none of it);
    without, 5 stratified folds."""
    if groups is None:
        return list(StratifiedKFold(5, shuffle=True, random_state=SEED).split(X, y))
    names = sorted(set(groups))
    return [(np.flatnonzero(groups != g), np.flatnonzero(groups == g)) for g in names]


def slice_groups(rows):
    """Each training prompt's group for the cross-validation by slices: a
    corpus prompt's slice (the first prompts, written before the slices,
    cut into SLICE_GROUPS_OF_FIRST groups by a hash of the text), a starter
    prompt spread over all the groups the same way, so every fold keeps
    some of the starter's kind."""
    named = sorted({r["slice"] for r in rows if r["slice"] and r["slice"] != "first"})
    out = []
    for r in rows:
        h = af.fnv1a(b"group:" + r["prompt"].encode("utf-8", "replace"))
        if r["source"] == CORPUS[0]:
            pool = named + [f"first-{i}" for i in range(SLICE_GROUPS_OF_FIRST)]
            out.append(pool[h % len(pool)])
        elif r["slice"] in ("", "first"):
            out.append(f"first-{h % SLICE_GROUPS_OF_FIRST}")
        else:
            out.append(r["slice"])
    return np.array(out)


def cv_logits(X, y, C, sw, groups=None):
    Z = np.zeros((len(y), 4))
    for tr, te in cv_folds(X, y, groups):
        W, b = fit(X[tr], y[tr], C, sw[tr])
        Z[te] = logits(X[te], W, b)
    return Z


def fast_decide(Z, fable_ok, lift_ok, margins, lift):
    """decide_all with numpy (the same rule; the margin search runs it often)."""
    Z = lifted(Z, lift_ok, lift)
    Zc = Z.copy()
    Zc[~fable_ok, af.FABLE] = -np.inf
    best = np.argmax(Zc, axis=1)  # the first of equals, as decide
    top = Zc[np.arange(len(Z)), best]
    Zc[np.arange(len(Z)), best] = -np.inf
    second = Zc.max(axis=1)
    ok = (best != af.SONNET) & ((top - second) >= np.array(margins)[best])
    out = [int(b) if o else None for b, o in zip(best, ok)]
    if margins[af.HAIKU] < 0:
        close = (best == af.SONNET) & ((Z[:, af.HAIKU] - Z[:, af.SONNET]) >= margins[af.HAIKU])
        out = [af.HAIKU if c else o for o, c in zip(out, close)]
    return out


def best_margins(Z, G, y, starter):
    """The margins and Fable's lift that maximise the objective."""
    fable_ok = np.array([af.fable_allowed(g) for g in G], dtype=bool)
    lift_ok = np.array([af.fable_lifted(g) for g in G], dtype=bool)
    best = None
    for lift in LIFT_GRID:
        for mh in HAIKU_MARGIN_GRID:
            for mo in MARGIN_GRID:
                for mf in MARGIN_GRID:
                    margins = [mh, 0.0, mo, mf]
                    pred = fast_decide(Z, fable_ok, lift_ok, margins, lift)
                    wrong_fable = sum(1 for p, t in zip(pred, y) if p == af.FABLE and t < af.FABLE)
                    s = objective(pred, y, starter)
                    if best is None or (wrong_fable, -s) < (best[0], -best[1] - 1e-12):
                        best = (wrong_fable, s, margins, lift)
    return best[2], best[3]


def quantise(W, b, lift):
    scale = float(np.abs(W).max()) / 32767.0
    Wq = np.round(W / scale).astype(np.int64)
    bq = [float(x) / scale for x in b]
    # The biases and the lift are kept in the weights' unit, rounded to
    # 1/1024 so they print exactly in both languages.
    bq = [round(x * 1024) / 1024 for x in bq]
    lq = round(lift / scale * 1024) / 1024
    return Wq, bq, lq, scale


def q_decide(p, Wq, bq, lq, scale, margins):
    seen, _, guard = active(p)
    sums, n, z = af.raw_scores(list(seen), Wq, bq, guard, lq)
    return af.decide(z, scale, margins, guard), sums, n, z


def print_parts(pred, y, starter):
    for name, part in (("corpus", ~starter), ("starter", starter)):
        idx = np.flatnonzero(part)
        a, h, lo = figures([pred[i] for i in idx], y[idx])
        print(f"    {name} ({len(idx)}): agree {a:.1%}, too high {h:.1%}, too low {lo:.1%}")


def confusion(pred, y):
    m = [[0] * 4 for _ in range(4)]
    for p, t in zip(pred, y):
        m[t][tier_of(p)] += 1
    return m


def print_confusion(m):
    print("      advised: " + " ".join(f"{t:>6}" for t in af.TIERS))
    for t in range(4):
        print(f"  {af.TIERS[t]:>6} label " + " ".join(f"{v:>6}" for v in m[t]))


def rust_str(w):
    """A Rust string literal of `w`, in ASCII (`\\u{..}` beyond it)."""
    return '"' + "".join(
        c if 32 <= ord(c) < 127 and c not in '"\\' else f"\\u{{{ord(c):x}}}" for c in w
    ) + '"'


def rust_str_list(name, doc, words):
    items = ", ".join(rust_str(w) for w in words)
    return [f"/// {doc}", "#[rustfmt::skip]", f"pub static {name}: &[&str] = &[{items}];"]


def rust_phrase_list(name, doc, phrases):
    items = ", ".join("&[" + ", ".join(rust_str(w.decode()) for w in p) + "]" for p in phrases)
    return [f"/// {doc}", "#[rustfmt::skip]", f"pub static {name}: &[&[&str]] = &[{items}];"]


# The bits of WORD_FLAGS (src/hooks/advice.rs names them the same).
FLAG_LISTS = [
    ("INTENT", "intent verb", af.INTENT_VERBS),
    ("DETERMINER", "skipped between a verb and its object", af.DETERMINERS),
    ("HARD_WORD", "difficulty word", af.HARD_WORDS),
    ("SCALE_WORD", "scale word", af.SCALE_WORDS),
    ("CONFIRM", "first word of a confirmation", af.CONFIRM_LEAD),
    ("QUESTION", "first word of a question", af.QUESTION_LEAD),
    ("FRAMING_START", "first word of a framing phrase", {p[0].decode() for p in af.FRAMING_SEQ}),
    ("AUTONOMY_START", "first word of an explicit autonomy phrase", {p[0].decode() for p in af.AUTONOMY_SEQ}),
    ("PLAN_START", "first word of a plan-only phrase", {p[0].decode() for p in af.PLAN_SEQ}),
    ("ACK", "acknowledgement word", af.ACK_WORDS),
    ("YES_NO", "first word of a yes/no question", af.YES_NO_LEAD),
    ("LEAD_SKIP", "skipped before a request's verb", af.LEAD_SKIP),
    ("SYMPTOM", "symptom word", af.SYMPTOM_WORDS),
    ("STEPWISE_START", "first word of a step-by-step phrase", {p[0].decode() for p in af.STEPWISE_SEQ}),
]


def word_lists():
    """The feature word lists, from scripts/advice_features.py (one source):
    every listed word once, sorted, with a bit per list it is in (one
    binary search per word of the prompt); phrases sorted by first word."""
    flags = {}
    for bit, (_, _, words) in enumerate(FLAG_LISTS):
        for w in words:
            flags[w] = flags.get(w, 0) | (1 << bit)
    out = ["/// The bits of [`WORD_FLAGS`]."]
    for bit, (name, doc, _) in enumerate(FLAG_LISTS):
        out.append(f"pub const {name}: u16 = 1 << {bit}; // {doc}")
    items = ", ".join(f"({rust_str(w)}, {flags[w]})" for w in sorted(flags, key=lambda w: w.encode()))
    out += ["/// Every word of the lists, sorted, with the lists it is in.", "#[rustfmt::skip]",
            f"pub static WORD_FLAGS: &[(&str, u16)] = &[{items}];"]
    # Phrases sorted by their first word, so Rust finds the ones that can
    # start at a word by binary search; framing phrases with the same first
    # word longest first (the one taken out is the longest that matches).
    framing = sorted(af.FRAMING_SEQ, key=lambda p: (p[0], -len(p)))
    out += rust_phrase_list("FRAMING", "How to answer, not what: taken out before the tier features (by first word, longest first).", framing)
    out += rust_phrase_list("AUTONOMY", "Explicit autonomy (opens the Fable guard and lifts Fable), by first word.", sorted(af.AUTONOMY_SEQ))
    out += rust_phrase_list("STEPWISE", "Work told step by step (opens the Fable guard), by first word.", sorted(af.STEPWISE_SEQ))
    out += rust_phrase_list("PLAN_ONLY", "A plan, not its execution (caps the advice at Opus), by first word.", sorted(af.PLAN_SEQ))
    out += rust_str_list("ERROR_MARKERS", "Signs of a pasted error (in the lower-cased text).", [m.decode() for m in af.ERROR_MARKERS])
    out.append("")
    return out


def write_rust(Wq, bq, lq, scale, margins, C, counts):
    lines = [
        "//! The model recommender's weights: written by scripts/train-recommender.py",
        "//! (do not edit by hand; rerun the script). One row per hashed feature",
        "//! bucket, one weight per tier (Haiku, Sonnet, Opus, Fable), in units of",
        "//! [`SCALE`]. See src/hooks/advice.rs.",
        f"//! Trained on {counts[0]} prompts (held out: {counts[1]}), C = {C}.",
        "",
        "/// One weight unit, in logits.",
        f"pub const SCALE: f64 = {scale!r};",
        "/// The intercepts, in weight units.",
        "#[rustfmt::skip]",
        "pub const BIAS: [f64; 4] = [" + ", ".join(repr(x) for x in bq) + "];",
        "/// How far a tier must lead every other tier, in logits, to be advised",
        "/// (Sonnet's is unused: it is the default, advised by saying nothing).",
        "#[rustfmt::skip]",
        "pub const MARGIN: [f64; 4] = [" + ", ".join(repr(float(x)) for x in margins) + "];",
        "/// Added to Fable's score when the guard lets Fable in, in weight units.",
        f"pub const FABLE_LIFT: f64 = {lq!r};",
        f"pub const BUCKET_BITS: u32 = {af.BUCKET_BITS};",
        "",
    ]
    lines += word_lists()
    lines += [
        "#[rustfmt::skip]",
        f"pub static WEIGHTS: [[i16; 4]; {af.BUCKETS}] = [",
    ]
    row = []
    for i in range(af.BUCKETS):
        row.append("[" + ",".join(str(int(v)) for v in Wq[i]) + "]")
        if len(row) == 8:
            lines.append(",".join(row) + ",")
            row = []
    if row:
        lines.append(",".join(row) + ",")
    lines.append("];")
    with open(os.path.join(ROOT, WEIGHTS_RS), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


FIXTURE_EXTRA = [
    "",
    "ok",
    "quick question: why does the worker pool deadlock under load?",
    "why does the worker pool deadlock under load?",
    "plan only, don't execute: migrate every service in the monorepo overnight",
    "migrate every service in the monorepo overnight, don't stop until all tests pass",
    "Fix the TypeError in @src/app.ts\n```\nTypeError: x is undefined\n    at run (app.ts:3:1)\n```",
    "caf\u00e9 \u00fcber \u65e5\u672c\u8a9e \U0001F600 r\u00e9sum\u00e9?",
    # Written without spaces: one token, counted as its characters / 2.
    "\u4e3a\u4ec0\u4e48\u8fd9\u4e2a\u51fd\u6570\u5728\u591a\u7ebf\u7a0b\u4e0b\u4f1a\u8fd4\u56de\u9519\u8bef\u7684\u7ed3\u679c\uff1f",
    "\u3053\u306e\u30c6\u30b9\u30c8\u304c\u5931\u6557\u3059\u308b\u7406\u7531\u3092\u8aac\u660e\u3057\u3066",
    "ok do it",
    "thanks, now commit",
    "did the tests pass?",
    "yes and also move the retry config into the settings file so ops can change it",
    "which branch",
    "update the readme",
    "ok now, please sort the table by date",
    "some orders show up twice and the totals are sometimes wrong",
    # A paste as the hooks get it: the tags go, the pasted text stays; a
    # tag with a longer id, or a line break in it, is text.
    "why does this fail?\n\n<pasted_content id=\"8581\">\n  at parse (parser.rs:3:1)\n"
    "TypeError: x is undefined\n</pasted_content id=\"8581\">\n\n fix it",
    "<pasted_content>see</pasted_content> <pasted_content id=\"" + "a" * 33 + "\">"
    " <pasted_content id=\"a\nb\"> </pasted_content id=\"\">",
    "a" * 2040 + "<pasted_content id=\"1\">",
    "x" * 3000,
    "\u00e9" * 1500,
    "a " * 1200,
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="write nothing")
    ap.add_argument("--c-grid", help="the values of C to cross-validate, comma-separated")
    ap.add_argument("--starter-weight", type=float, default=STARTER_WEIGHT,
                    help="the weight of a starter prompt in the fit")
    ap.add_argument("--class-weight", help="the weight of each tier's prompts, h,s,o,f")
    ap.add_argument("--slice-weight", action="append", default=[], metavar="NAME=W",
                    help="weigh the prompts of one slice W in the fit (repeatable)")
    ap.add_argument("--cv", choices=["slices", "random"], default=CV,
                    help="cross-validate by slices of the corpus (one held out at a time) or 5 random folds")
    args = ap.parse_args()
    c_grid = [float(c) for c in args.c_grid.split(",")] if args.c_grid else C_GRID
    starter_weight = args.starter_weight
    rows = load()
    train = [r for r in rows if not held_out(r["prompt"])]
    test = [r for r in rows if held_out(r["prompt"])]
    print(f"corpus: {len(rows)} prompts; train {len(train)}, held out {len(test)}")
    for name, part in (("train", train), ("held out", test)):
        c = np.bincount([r["tier"] for r in part], minlength=4)
        print(f"  {name}: " + ", ".join(f"{t} {v}" for t, v in zip(af.TIERS, c)))

    X = matrix([r["prompt"] for r in train])
    y = np.array([r["tier"] for r in train])
    G = guards([r["prompt"] for r in train])
    starter = np.array([r["source"] == CORPUS[0] for r in train])
    class_weight = [float(w) for w in args.class_weight.split(",")] if args.class_weight else CLASS_WEIGHT
    sw = np.where(starter, starter_weight, 1.0) * np.array(class_weight)[y]
    for spec in args.slice_weight:
        name, _, w = spec.partition("=")
        if not w:
            sys.exit(f"--slice-weight {spec!r}: expected NAME=W")
        if not any(r["slice"] == name for r in train):
            sys.exit(f"--slice-weight {spec!r}: no prompt of the corpus is in a slice named {name!r}")
        sw = sw * np.array([float(w) if r["slice"] == name else 1.0 for r in train])

    groups = slice_groups(train) if args.cv == "slices" else None
    if groups is None:
        print("\n5-fold cross-validation on the training part (argmax, then with margins and the Fable guard):")
    else:
        print(f"\ncross-validation by slices on the training part, {len(set(groups))} folds, each a slice held out "
              "(argmax, then with margins and the Fable guard):")
    best = None
    for C in c_grid:
        Z = cv_logits(X, y, C, sw, groups)
        plain = [int(np.argmax(z)) for z in Z]
        a0 = sum(1 for p, t in zip(plain, y) if p == t) / len(y)
        margins, lift = best_margins(Z, G, y, starter)
        pred = decide_all(Z, G, margins, lift)
        assert pred == fast_decide(Z, np.array([af.fable_allowed(g) for g in G], dtype=bool),
                                   np.array([af.fable_lifted(g) for g in G], dtype=bool), margins, lift)
        a, h, lo = figures(pred, y)
        print(f"  C={C:<5} starter weight {starter_weight}, class weight {class_weight}: argmax {a0:.1%}; with margins {margins}, "
              f"Fable's lift {lift}: agree {a:.1%}, too high {h:.1%}, too low {lo:.1%}")
        print_parts(pred, y, starter)
        s = objective(pred, y, starter)
        if best is None or s > best[0] + 1e-12:
            best = (s, C, margins, lift, pred)
    _, C, margins, lift, pred = best
    print(f"chosen: C={C}, margins (haiku, -, opus, fable) = {margins}, Fable's lift {lift}")
    print("cross-validated confusion (rows: label, columns: advice; silence counts as sonnet):")
    print_confusion(confusion(pred, y))

    W, b = fit(X, y, C, sw)
    Wq, bq, lq, scale = quantise(W, b, lift)

    Xt = [r["prompt"] for r in test]
    yt = [r["tier"] for r in test]
    pred_t = [q_decide(p, Wq, bq, lq, scale, margins)[0] for p in Xt]
    a, h, lo = figures(pred_t, yt)
    print(f"\nheld-out split ({len(yt)} prompts, never trained on), the quantised model as gk runs it:")
    print(f"  tier agreement {a:.1%}, too high {h:.1%}, too low {lo:.1%}")
    print_parts(pred_t, np.array(yt), np.array([r["source"] == CORPUS[0] for r in test]))
    for name in sorted({r["slice"] for r in test} - {""}):
        idx = [i for i, r in enumerate(test) if r["slice"] == name]
        a2, h2, l2 = figures([pred_t[i] for i in idx], [yt[i] for i in idx])
        print(f"    slice {name} ({len(idx)}): agree {a2:.1%}, too high {h2:.1%}, too low {l2:.1%}")
    a_s = sum(1 for t in yt if t == af.SONNET) / len(yt)
    print(f"  always Sonnet: {a_s:.1%}")
    print_confusion(confusion(pred_t, yt))

    if args.check:
        return
    write_rust(Wq, bq, lq, scale, margins, C, (len(train), len(test)))
    fixture = []
    for p in Xt[:12] + FIXTURE_EXTRA:
        d, sums, n, z = q_decide(p, Wq, bq, lq, scale, margins)
        fixture.append({"prompt": p, "sums": sums, "active": n,
                        "z": z, "advice": None if d is None else af.TIERS[d]})
    with open(os.path.join(ROOT, FIXTURE), "w", encoding="utf-8") as f:
        json.dump(fixture, f, indent=1, ensure_ascii=True)
        f.write("\n")
    print(f"\nwrote {WEIGHTS_RS} and {FIXTURE}")


if __name__ == "__main__":
    main()
