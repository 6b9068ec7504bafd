#!/usr/bin/env python3
"""Check every relative link in README.md and docs/**/*.md.

A link `[text](path)`, `[text](path#anchor)`, `[text](#anchor)` or a
reference definition `[name]: path` must name a file or folder that exists
(relative to the page), and its anchor a heading of the page it names,
slugged as GitHub does: the heading's text as rendered (code, emphasis and
link markup removed), lower-cased, every character that is not a letter, a
digit, `_`, `-` or a space dropped, each space made a `-`; a repeated slug
gets `-1`, `-2`, ... Links to other sites (`scheme:`) are not followed.
Code blocks and code spans are skipped. Prints one line per broken link
(`file:line: reason`) and exits 1 if there is any.

Usage: scripts/check-doc-links.py [FILE.md ...]   (default: README.md docs/)
"""

import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def rendered_text(heading):
    """The heading's text as GitHub shows it (markup removed)."""
    text = CODE_SPAN.sub(lambda m: m.group(2).strip(), heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>\s]+>", "", text) if "`" not in heading else text
    text = re.sub(r"(\*\*|__|\*)", "", text)
    return text


def slug(heading):
    text = rendered_text(heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def lines_outside_code(path):
    """(line number, text) of each line outside fenced code blocks."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = FENCE.match(line)
            if fence:
                # A closing fence has nothing after it but spaces.
                if (m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)
                        and not line[m.end():].strip()):
                    fence = None
                continue
            if m:
                fence = m.group(1)
                continue
            yield number, line


ANCHORS = {}


def anchors(path):
    if path not in ANCHORS:
        seen = {}
        found = set()
        for _, line in lines_outside_code(path):
            for name in HTML_ANCHOR.findall(line):
                found.add(name)
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        ANCHORS[path] = found
    return ANCHORS[path]


def targets(line):
    yield from (m.group(2) for m in INLINE_LINK.finditer(CODE_SPAN.sub("", line)))
    m = REF_DEF.match(line)
    if m:
        yield m.group(1)


def check(path):
    problems = []
    rel = os.path.relpath(path, ROOT)
    for number, line in lines_outside_code(path):
        for target in targets(line):
            if not target or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue
            file_part, _, anchor = target.partition("#")
            dest = path if not file_part else os.path.normpath(
                os.path.join(os.path.dirname(path), file_part))
            if not os.path.exists(dest):
                problems.append(f"{rel}:{number}: {target}: no such file")
                continue
            if not anchor:
                continue
            if not dest.endswith(".md") or os.path.isdir(dest):
                problems.append(f"{rel}:{number}: {target}: an anchor on a page that is not markdown")
            elif anchor not in anchors(dest):
                problems.append(f"{rel}:{number}: {target}: no heading with that anchor in "
                                f"{os.path.relpath(dest, ROOT)}")
    return problems


def pages(args):
    if args:
        return [os.path.abspath(a) for a in args]
    found = [os.path.join(ROOT, "README.md")]
    for folder, _, files in os.walk(os.path.join(ROOT, "docs")):
        found += [os.path.join(folder, f) for f in files if f.endswith(".md")]
    return sorted(found)


def main():
    problems = []
    checked = pages(sys.argv[1:])
    for page in checked:
        problems += check(page)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} broken links in {len(checked)} pages", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
