#!/usr/bin/env python3
"""Loopback stand-in for the Messages API, used by tests/e2e_claude.rs.

Usage: mock_messages.py LOG_FILE [SCRIPT_FILE]

Binds 127.0.0.1 on a port the kernel picks, prints "PORT <n>" on stdout so
the test knows where to point ANTHROPIC_BASE_URL, then answers every
POST .../messages with a one-block text reply ("Done."), as server-sent
events when the request asks to stream. Each POST is appended to LOG_FILE
as one JSON line: {"path": ..., "body": <the request body, parsed>}.
Any other request gets an empty JSON object. Stops when stdin closes, so a
test that dies never leaves it behind.

SCRIPT_FILE, when given, makes the model call tools: a JSON list of tool
calls, each {"tool": "<name>", "input": {...}}, played one per request (or
a JSON object of such lists keyed by text of the prompt they answer, for an
interactive session of several prompts: see calls_for). A
request is answered with the call whose index is the number of tool calls
already in its conversation (the client may merge consecutive assistant
messages, so calls are counted, not messages): the first request gets call
0, the request carrying its result call 1, and so on; once every call has
been played, the reply is "Done.". In every string of a step's input, "{{RECORD}}"
becomes the first absolute path ending in ".json" that the request's last
gatekeeper context ("[Gatekeeper] State: ..." paragraph, with the
"[Task state] ..." sentence that opens it in the per-session scope) names,
"{{POINTER}}" the second (the folder's pointer file) and "{{SESSION}}" the
first one's file name without ".json" (the session id): the model writes
the files the hook told it about, and nothing else.
"""
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLY_TEXT = "Done."
LOG_LOCK = threading.Lock()
SCRIPT = []  # a list, or a dict of lists keyed by prompt text
CONTEXT_MARKER = "[Gatekeeper] State:"
RECORD_MARKER = "[Task state] "
# An absolute path: /..., C:\..., C:/... ; up to ".json".
RECORD_PATH = re.compile(r"(?:[A-Za-z]:[\\/]|/)[^\s'\"`]*?\.json")


def strings_of(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from strings_of(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_of(item)


def paths_named(body):
    """The .json paths in the request's last gatekeeper context (the
    current prompt's: a resumed or forked conversation repeats earlier
    prompts' contexts before it), in order."""
    found = []
    for text in strings_of(body.get("messages", [])):
        at = text.find(CONTEXT_MARKER)
        while at >= 0:
            # The record sentence right before the marker, on its line.
            start = text.rfind(RECORD_MARKER, 0, at)
            if start < 0 or "\n" in text[start:at]:
                start = at
            paragraph = text[start:].split("\n\n", 1)[0]
            paths = RECORD_PATH.findall(paragraph)
            if paths:
                found = paths
            at = text.find(CONTEXT_MARKER, at + 1)
    return found


def fill(value, paths):
    if isinstance(value, str):
        if paths:
            value = value.replace("{{RECORD}}", paths[0])
            session = re.split(r"[\\/]", paths[0])[-1][: -len(".json")]
            value = value.replace("{{SESSION}}", session)
        if len(paths) > 1:
            value = value.replace("{{POINTER}}", paths[1])
        return value
    if isinstance(value, list):
        return [fill(v, paths) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, paths) for k, v in value.items()}
    return value


def tool_calls_played(body):
    count = 0
    for message in body.get("messages", []):
        if message.get("role") == "assistant" and isinstance(message.get("content"), list):
            count += sum(1 for b in message["content"]
                         if isinstance(b, dict) and b.get("type") == "tool_use")
    return count


def is_prompt(message):
    """A user message that is a typed prompt, not a tool's result."""
    if message.get("role") != "user":
        return False
    content = message.get("content")
    if isinstance(content, str):
        return True
    blocks = [b for b in content or [] if isinstance(b, dict)]
    return not any(b.get("type") == "tool_result" for b in blocks) and any(
        b.get("type") == "text" for b in blocks)


def calls_for(body):
    """The tool calls for this request's prompt, and how many of them the
    conversation has played. A list script plays across the conversation;
    a dict script ({"<text in the prompt>": [calls], ...}, for interactive
    sessions of several prompts) plays the list whose key the latest
    prompt holds, counting only the calls made since that prompt."""
    if isinstance(SCRIPT, list):
        return SCRIPT, tool_calls_played(body)
    messages = body.get("messages", [])
    last = max((i for i, m in enumerate(messages) if is_prompt(m)), default=-1)
    if last < 0:
        return [], 0
    text = "\n".join(strings_of(messages[last].get("content")))
    calls = next((v for k, v in SCRIPT.items() if k in text), [])
    return calls, tool_calls_played({"messages": messages[last + 1:]})


def step_for(body):
    """The scripted reply for this request: ("text", str) or ("tool", name, input)."""
    calls, done = calls_for(body)
    if done >= len(calls):
        return ("text", REPLY_TEXT)
    step = calls[done]
    return ("tool", step["tool"], fill(step.get("input", {}), paths_named(body)))


def sse(event, data):
    return ("event: %s\ndata: %s\n\n" % (event, json.dumps(data))).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass  # the request log file is the record; keep stderr quiet

    def send_json(self, obj):
        payload = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        self.send_json({})

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"unparsed": raw.decode("utf-8", "replace")}
        with LOG_LOCK, open(sys.argv[1], "a", encoding="utf-8") as log:
            log.write(json.dumps({"path": self.path, "body": body}) + "\n")
        if "count_tokens" in self.path:
            self.send_json({"input_tokens": 1})
            return
        step = step_for(body)
        message = {
            "id": "msg_e2e",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "mock"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
        if step[0] == "tool":
            block = {"type": "tool_use", "id": "toolu_e2e_%d" % tool_calls_played(body),
                     "name": step[1], "input": step[2]}
            stop_reason = "tool_use"
        else:
            block = {"type": "text", "text": step[1]}
            stop_reason = "end_turn"
        if not body.get("stream"):
            message["content"] = [block]
            message["stop_reason"] = stop_reason
            self.send_json(message)
            return
        if block["type"] == "tool_use":
            start = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        events = [
            sse("message_start", {"type": "message_start", "message": message}),
            sse("content_block_start", {"type": "content_block_start", "index": 0,
                                        "content_block": start}),
            sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                        "delta": delta}),
            sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            sse("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                  "usage": {"output_tokens": 1}}),
            sse("message_stop", {"type": "message_stop"}),
        ]
        payload = b"".join(events)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def main():
    global SCRIPT
    if len(sys.argv) > 2:
        with open(sys.argv[2], encoding="utf-8") as f:
            SCRIPT = json.load(f)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdout.write("PORT %d\n" % server.server_address[1])
    sys.stdout.flush()
    sys.stdin.read()  # returns when the test closes our stdin or exits
    server.shutdown()


if __name__ == "__main__":
    main()
