#!/usr/bin/env python3
"""Record the transcripts `gk report` is tested on, from the pinned client.

Usage: scripts/record-report-fixtures.py [--raw DIR] [--out DIR]

Runs the pinned Claude Code client (GK_E2E_CLAUDE, else what
scripts/install-claude-client.sh prints) offline against
tests/e2e/mock_messages.py, with gk (target/debug/gk, GK_BIN to change)
installed in a temp HOME, through these turns:

  proj  A  "implement the parser refactor" --model claude-opus-5-5; the
           model writes its record in progress and the folder's pointer
  proj  A  "/model claude-haiku-4-5-20251001" (--resume A)
  proj  A  "explain the build" --resume A --model claude-opus-5-5
  proj  B  "ok thanks" --resume A --fork-session --model claude-haiku-4-5-20251001
  other C  "what is a monad" --model sonnet
  other C  "/effort high" (--resume C)
  other D  "update the notes file" (acceptEdits): the model writes notes.md
  other E  "implement the cache": the model edits its record, and the edit fails
  tui   F  the interactive client in tmux: "implement the lexer" (the model
           writes its record in progress), `/model claude-haiku-4-5-20251001`
           while the Stop line says DIRTY, "ok go ahead"
  broken G "hello there" (on the default the TUI's /model saved), with
           gk's Stop hook replaced by one that takes 1.2 s and exits 1

then copies <home>/.claude/projects/ to --raw (when given) and a stripped
copy to --out (default tests/fixtures/report/projects): every
prompt_snapshot and api-request-shape line keeps its kind and loses its
body, long strings are cut, the temp folder is written as /home/u. The
expected counts are written by hand in tests/it/report.rs.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MOCK = ROOT / "tests/e2e/mock_messages.py"
KEY = "sk-report-fixture-not-a-key"


def client():
    path = os.environ.get("GK_E2E_CLAUDE")
    if path:
        return path
    out = subprocess.run(["bash", str(ROOT / "scripts/install-claude-client.sh")],
                         check=True, capture_output=True, text=True).stdout
    return out.strip().splitlines()[-1]


class Home:
    def __init__(self, root, claude, gk):
        self.root = Path(root)
        self.home = self.root / "home"
        (self.home / ".claude").mkdir(parents=True)
        self.claude = claude
        self.gk = gk
        self.n = 0

    def env(self):
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "NO_COLOR": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "ANTHROPIC_API_KEY": KEY,
        }
        if os.environ.get("TMPDIR"):
            env["TMPDIR"] = os.environ["TMPDIR"]
        return env

    def install(self):
        (self.home / ".claude/settings.json").write_text("{}\n")
        subprocess.run([self.gk, "install", "--yes"], env=self.env(), check=True,
                       cwd=self.home, capture_output=True)

    def turn(self, prompt, cwd, tools=None, args=()):
        self.n += 1
        work = self.root / f"turn-{self.n}"
        work.mkdir()
        cwd.mkdir(parents=True, exist_ok=True)
        mock_args = [sys.executable, str(MOCK), str(work / "requests.jsonl")]
        if tools is not None:
            (work / "tools.json").write_text(json.dumps(tools))
            mock_args.append(str(work / "tools.json"))
        mock = subprocess.Popen(mock_args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            port = int(mock.stdout.readline().split()[1])
            env = self.env()
            env["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{port}"
            out = subprocess.run(
                [self.claude, *args, "-p", prompt, "--output-format", "stream-json", "--verbose"],
                env=env, cwd=cwd, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
        finally:
            mock.stdin.close()
            mock.wait(timeout=10)
        if out.returncode != 0:
            sys.exit(f"claude -p {prompt!r} exited {out.returncode}:\n{out.stderr}\n{out.stdout}")
        session = None
        for line in out.stdout.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            session = event.get("session_id") or session
        print(f"turn {self.n}: {prompt!r} -> session {session}", file=sys.stderr)
        return session


class Tui:
    """The interactive client in tmux (needs tmux), against the mock."""

    def __init__(self, h, cwd, tools):
        self.h = h
        h.n += 1
        work = h.root / f"tui-{h.n}"
        work.mkdir()
        cwd.mkdir(parents=True, exist_ok=True)
        (work / "tools.json").write_text(json.dumps(tools))
        state = {"hasCompletedOnboarding": True, "theme": "dark",
                 "customApiKeyResponses": {"approved": [KEY, KEY[-20:]], "rejected": []},
                 "projects": {str(cwd): {"hasTrustDialogAccepted": True}}}
        (h.home / ".claude.json").write_text(json.dumps(state))
        self.mock = subprocess.Popen(
            [sys.executable, str(MOCK), str(work / "requests.jsonl"), str(work / "tools.json")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        port = int(self.mock.stdout.readline().split()[1])
        env = dict(h.env(), TERM="xterm-256color", ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}")
        self.socket = str(work / "tmux.sock")
        subprocess.run(["tmux", "-S", self.socket, "-f", "/dev/null", "new-session", "-d",
                        "-x", "160", "-y", "45", "-c", str(cwd), "env", "-i",
                        *[f"{k}={v}" for k, v in env.items()], h.claude], check=True)
        self.wait("the prompt", lambda s: "\u276f" in s, answer_key=True)
        time.sleep(2)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True).stdout

    def screen(self):
        return self.tmux("capture-pane", "-p", "-J", "-S", "-400", "-t", "0")

    def wait(self, what, ready, answer_key=False):
        started = time.time()
        while True:
            screen = self.screen()
            if answer_key and "Detected a custom API key" in screen:
                self.tmux("send-keys", "-t", "0", "Up")
                time.sleep(0.3)
                self.tmux("send-keys", "-t", "0", "Enter")
            elif ready(screen):
                return screen
            if time.time() - started > 90:
                sys.exit(f"the screen never showed {what}:\n{screen}")
            time.sleep(0.25)

    def send(self, text, until):
        self.tmux("send-keys", "-t", "0", "-l", text)
        time.sleep(0.5)
        self.tmux("send-keys", "-t", "0", "Enter")
        self.wait(until, lambda s: until in s)
        print(f"tui: {text!r}", file=sys.stderr)

    def close(self):
        self.tmux("kill-server")
        self.mock.stdin.close()
        self.mock.wait(timeout=10)


def start_a_task(task):
    record = {"status": "in_progress", "task": task, "detail": "written by the model",
              "project": "P", "cwd": "", "updated": ""}
    return [
        {"tool": "Write", "input": {"file_path": "{{RECORD}}",
                                    "content": json.dumps(record, indent=2) + "\n"}},
        {"tool": "Write", "input": {"file_path": "{{POINTER}}",
                                    "content": "{\"session\": \"{{SESSION}}\"}\n"}},
    ]


def record(h):
    proj = h.home / "work/proj"
    other = h.home / "work/other"
    a = h.turn("implement the parser refactor", proj, start_a_task("Refactor parser"),
               ["--model", "claude-opus-5-5"])
    h.turn("/model claude-haiku-4-5-20251001", proj, None, ["--resume", a])
    h.turn("explain the build", proj, None, ["--resume", a, "--model", "claude-opus-5-5"])
    h.turn("ok thanks", proj, None,
           ["--resume", a, "--fork-session", "--model", "claude-haiku-4-5-20251001"])
    c = h.turn("what is a monad", other, None, ["--model", "sonnet"])
    h.turn("/effort high", other, None, ["--resume", c])
    h.turn("update the notes file", other,
           [{"tool": "Write", "input": {"file_path": str(other / "notes.md"),
                                       "content": "notes\n"}}],
           ["--permission-mode", "acceptEdits"])
    h.turn("implement the cache", other,
           [{"tool": "Edit", "input": {"file_path": "{{RECORD}}", "old_string": "clean",
                                       "new_string": "in_progress"}}])
    tui = Tui(h, h.home / "work/tui", {"implement the lexer": start_a_task("Lexer")})
    try:
        tui.send("implement the lexer", "STATE [DIRTY] task in progress: 'Lexer'")
        # The client asks first when the switch re-reads a cached conversation.
        tui.send("/model claude-haiku-4-5-20251001", "witch")
        screen = tui.wait("the switch", lambda s: "Set model to" in s or "Yes, switch to" in s)
        if "Set model to" not in screen:
            tui.tmux("send-keys", "-t", "0", "Enter")
            tui.wait("the switch", lambda s: "Set model to" in s)
        tui.send("ok go ahead", "STATE [DIRTY] task in progress: 'Lexer' [P] (updated")
        time.sleep(1)
    finally:
        tui.close()
    # Last, as it replaces gk for the turn: a Stop hook that fails, slowly.
    hook = h.home / ".claude/hooks/gk"
    real = h.root / "gk.real"
    shutil.copy2(hook, real)
    hook.write_text(f'#!/bin/sh\ncase "$2" in stop) sleep 1.2; echo failed >&2; exit 1;; esac\n'
                    f'exec "{real}" "$@"\n')
    try:
        h.turn("hello there", h.home / "work/broken")
    finally:
        shutil.copy2(real, hook)


# Attachment kinds whose body is only bulk (the system prompt, tool schemas).
BULK = re.compile(rb'"type":"(prompt_snapshot|api-request-shape|api-request-blob|api-request)"')
LONG = 400


def shrink(value):
    if isinstance(value, str):
        return value if len(value) <= LONG else value[:LONG] + "[cut]"
    if isinstance(value, list):
        return [shrink(v) for v in value]
    if isinstance(value, dict):
        return {k: shrink(v) for k, v in value.items()}
    return value


def strip_line(raw, temp_root):
    raw = raw.replace(temp_root.encode(), b"/home/u/t")
    if BULK.search(raw[:300]):
        obj = json.loads(raw)
        keep = {k: obj[k] for k in ("type", "uuid", "timestamp", "sessionId") if k in obj}
        if isinstance(obj.get("attachment"), dict):
            keep["attachment"] = {"type": obj["attachment"].get("type"), "content": "[bulk dropped]"}
        return json.dumps(keep, separators=(",", ":")).encode()
    try:
        obj = json.loads(raw)
    except ValueError:
        return raw
    return json.dumps(shrink(obj), separators=(",", ":"), ensure_ascii=False).encode()


def copy_stripped(src, dst, temp_root):
    for path in sorted(src.rglob("*.jsonl")):
        rel = path.relative_to(src)
        # The client names a project's folder by its path with every
        # character but a letter or digit as "-".
        rel = Path(str(rel).replace(re.sub(r"[^A-Za-z0-9]", "-", temp_root), "-home-u-t"))
        out = dst / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        lines = path.read_bytes().split(b"\n")
        out.write_bytes(b"\n".join(strip_line(l, temp_root) if l else l for l in lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw")
    ap.add_argument("--out", default=str(ROOT / "tests/fixtures/report/projects"))
    a = ap.parse_args()
    gk = os.environ.get("GK_BIN", str(ROOT / "target/debug/gk"))
    with tempfile.TemporaryDirectory(prefix="gk-report-") as tmp:
        tmp = os.path.realpath(tmp)
        h = Home(tmp, client(), gk)
        h.install()
        record(h)
        projects = h.home / ".claude/projects"
        if a.raw:
            shutil.copytree(projects, a.raw, dirs_exist_ok=True)
        out = Path(a.out)
        if out.exists():
            shutil.rmtree(out)
        copy_stripped(projects, out, tmp)
    print(out)


if __name__ == "__main__":
    main()
