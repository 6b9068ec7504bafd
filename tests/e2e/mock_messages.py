#!/usr/bin/env python3
"""Loopback stand-in for the Messages API, used by tests/e2e_claude.rs.

Usage: mock_messages.py LOG_FILE

Binds 127.0.0.1 on a port the kernel picks, prints "PORT <n>" on stdout so
the test knows where to point ANTHROPIC_BASE_URL, then answers every
POST .../messages with a one-block text reply ("Done."), as server-sent
events when the request asks to stream. Each POST is appended to LOG_FILE
as one JSON line: {"path": ..., "body": <the request body, parsed>}.
Any other request gets an empty JSON object. Stops when stdin closes, so a
test that dies never leaves it behind.
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLY_TEXT = "Done."
LOG_LOCK = threading.Lock()


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
        if not body.get("stream"):
            message["content"] = [{"type": "text", "text": REPLY_TEXT}]
            message["stop_reason"] = "end_turn"
            self.send_json(message)
            return
        events = [
            sse("message_start", {"type": "message_start", "message": message}),
            sse("content_block_start", {"type": "content_block_start", "index": 0,
                                        "content_block": {"type": "text", "text": ""}}),
            sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                        "delta": {"type": "text_delta", "text": REPLY_TEXT}}),
            sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            sse("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": "end_turn", "stop_sequence": None},
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
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdout.write("PORT %d\n" % server.server_address[1])
    sys.stdout.flush()
    sys.stdin.read()  # returns when the test closes our stdin or exits
    server.shutdown()


if __name__ == "__main__":
    main()
