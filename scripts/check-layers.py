#!/usr/bin/env python3
"""Hold src/ to its layers, and the two descriptions of them to this file.

`LAYERS` below is the one list of the layers. The table of
docs/maintainers/the-house.md and the numbered list in src/lib.rs's module
doc describe the same layers in words; both are checked against `LAYERS`
(the same module numbers, each module at the same layer, none missing,
none extra), so changing a layer means changing all three.

Every `crate::<module>` a file names (in `use` lines and in paths) is an
import of that top-level module. A module may import only modules of a
lower layer; two modules of one layer may not import each other's code at
all. Inside one module folder, the files may import each other, but never
in a circle. Test code (`#[cfg(test)]` blocks) is held to the same rules.

It also holds the library to one reading of its process: the variables,
the current folder, the program's path, the std handles and the system's
home folder are read in `src/env.rs` (`Env::from_process`) and bound in
`src/commands/mod.rs` (`commands::main`) only; every other file takes an
`Env` and a `Console` (test code excepted).

Prints one line per breach (file:line: what) and exits 1; exits 0 when the
house is one-way and both descriptions agree with `LAYERS`. Well under a
second.
"""

import re
import sys
from pathlib import Path

# Lowest first. A module not listed here is an error: a new module must
# be given its place.
LAYERS = [
    ["error", "text", "platform", "version", "console"],
    ["env", "bounded"],
    ["paths"],
    ["hookcmd"],
    ["cli"],
    ["machine"],
    ["settings", "smoke"],
    ["registry"],
    ["hooks"],
    ["report"],
    ["change", "edit"],
    ["records"],
    ["setup"],
    ["doctor"],
    ["commands"],
    ["testing"],
]
RANK = {m: i for i, layer in enumerate(LAYERS) for m in layer}

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
CRATE_PATH = re.compile(r"\bcrate::([a-z_]+)(?:::([a-z_]+))?")
SUPER_PATH = re.compile(r"\bsuper::([a-z_]+)")
BRACED = re.compile(r"\buse crate::\{([^}]*)\}")
PROCESS_READ = re.compile(
    r"\bstd::env::(?:vars?|vars?_os|args|args_os|current_dir|current_exe)\b"
    r"|\bio::(?:stdout|stderr|stdin)\(\)|\bstd::path::absolute\b|\benv::home_dir\b"
    r"|\bis_terminal\(\)"
)
PROCESS_READERS = {"src/env.rs", "src/commands/mod.rs"}


def module_of(path: Path):
    """(top-level module, file's own name inside its folder or None)."""
    rel = path.relative_to(SRC)
    parts = rel.with_suffix("").parts
    if parts[0] in ("lib", "main"):
        return None, None
    return parts[0], (parts[1] if len(parts) > 1 else None)


def code_lines(text: str):
    """(line number, line) with comments and string literals blanked."""
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if stripped.startswith("//"):
            continue
        line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
        line = line.split("//", 1)[0]
        yield n, line


# The two descriptions: (file, the line a layer is described on). Each
# line gives the layer's number, then its modules as a list of
# `name` or `name/`, separated by commas.
HOUSE = ROOT / "docs" / "maintainers" / "the-house.md"
HOUSE_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*((?:`[a-z_]+/?`(?:,\s*)?)+)\s*\|")
LIB = SRC / "lib.rs"
LIB_ROW = re.compile(r"^//!\s*(\d+)\.\s+((?:`[a-z_]+/?`(?:,\s*)?)+)")
MODULE_NAME = re.compile(r"`([a-z_]+)/?`")


def described_layers(path: Path, row: re.Pattern):
    """(module -> (layer, line), layers named, breaches) of one description."""
    where, named, breaches = {}, set(), []
    rel = path.relative_to(ROOT)
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = row.match(line)
        if not m:
            continue
        layer = int(m.group(1))
        named.add(layer)
        for name in MODULE_NAME.findall(m.group(2)):
            if name in where:
                breaches.append(f"{rel}:{n}: `{name}` is described twice (also line {where[name][1]})")
                continue
            where[name] = (layer, n)
    return where, named, breaches


def check_description(path: Path, row: re.Pattern):
    """One line per way this description differs from `LAYERS`."""
    rel = path.relative_to(ROOT)
    if not path.exists():
        return [f"{rel}: missing; it describes the layers of scripts/check-layers.py"]
    where, named, breaches = described_layers(path, row)
    if not where:
        return [f"{rel}: no layer described (expected lines like those for layer 0: {', '.join(LAYERS[0])})"]
    for name, (layer, n) in sorted(where.items(), key=lambda kv: kv[1][1]):
        if name not in RANK:
            breaches.append(f"{rel}:{n}: `{name}` is described at layer {layer}, but scripts/check-layers.py gives it no layer")
        elif RANK[name] != layer:
            breaches.append(
                f"{rel}:{n}: `{name}` is described at layer {layer}, scripts/check-layers.py puts it at layer {RANK[name]}"
            )
    for name in RANK:
        if name not in where:
            breaches.append(f"{rel}: `{name}` (layer {RANK[name]} in scripts/check-layers.py) is not described")
    for layer in sorted(named - set(range(len(LAYERS)))):
        breaches.append(f"{rel}: describes layer {layer}; scripts/check-layers.py has layers 0 to {len(LAYERS) - 1}")
    return breaches


def main() -> int:
    breaches = []
    for name in RANK:
        if not (SRC / f"{name}.rs").exists() and not (SRC / name / "mod.rs").exists():
            breaches.append(f"scripts/check-layers.py: layer {RANK[name]} lists `{name}`, which src/ does not have")
    breaches += check_description(HOUSE, HOUSE_ROW)
    breaches += check_description(LIB, LIB_ROW)
    # Edges between files of one folder: (module, from file, to file).
    inner = {}
    for path in sorted(SRC.rglob("*.rs")):
        top, own = module_of(path)
        if top is None:
            continue
        rel = path.relative_to(ROOT)
        if top not in RANK:
            breaches.append(f"{rel}: module `{top}` has no layer in scripts/check-layers.py")
            continue
        check_reads = rel.as_posix() not in PROCESS_READERS and path.name != "tests.rs"
        for n, line in code_lines(path.read_text(encoding="utf-8")):
            if line.strip().startswith("#[cfg(test)]"):
                check_reads = False
            if check_reads and PROCESS_READ.search(line):
                breaches.append(
                    f"{rel}:{n}: reads the process itself; take an Env / a Console (src/env.rs, src/console.rs)"
                )
            names = [(m.group(1), m.group(2)) for m in CRATE_PATH.finditer(line)]
            for group in BRACED.finditer(line):
                for item in group.group(1).split(","):
                    item = item.strip().split("::")[0]
                    if item:
                        names.append((item, None))
            for target, sub in names:
                if target == top:
                    if own and sub and sub != own:
                        inner.setdefault(top, set()).add((own, sub, f"{rel}:{n}"))
                    continue
                if target not in RANK:
                    if target in ("self", "super"):
                        continue
                    breaches.append(f"{rel}:{n}: `crate::{target}` has no layer")
                    continue
                if RANK[target] >= RANK[top]:
                    how = "of the same layer" if RANK[target] == RANK[top] else "of a higher layer"
                    breaches.append(f"{rel}:{n}: `{top}` imports `{target}`, {how}")
            if own:
                for m in SUPER_PATH.finditer(line):
                    sub = m.group(1)
                    if sub != own and (SRC / top / f"{sub}.rs").exists():
                        inner.setdefault(top, set()).add((own, sub, f"{rel}:{n}"))
    for top, edges in sorted(inner.items()):
        graph = {}
        where = {}
        for a, b, at in edges:
            graph.setdefault(a, set()).add(b)
            where.setdefault((a, b), at)
        for part in cycles(graph):
            ties = sorted(at for (a, b), at in where.items() if a in part and b in part)
            names = ", ".join(f"{f}.rs" for f in part)
            breaches.append(
                f"{ties[0]}: files of src/{top}/ import each other in a circle: {names} ({'; '.join(ties)})"
            )
    for b in breaches:
        print(b)
    if breaches:
        print(f"check-layers: {len(breaches)} breach(es); the layers are in scripts/check-layers.py")
        return 1
    print(f"check-layers: one-way ({len(LAYERS)} layers, no circle; the-house.md and lib.rs agree)")
    return 0


def cycles(graph):
    """One cycle per strongly connected part of more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    sys.exit(main())
