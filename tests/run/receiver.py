#!/usr/bin/env python3
"""tests/run/receiver.py DIR TOKEN — a minimal stand-in for the dashboard's
run upload, written for the runner's tests: it answers POST /api/runs as
docs/FORMATS.md section 2 says (201 new, 200 duplicate by run.id, 400
malformed, 401 wrong token, 413 too large; 503 or 400 while DIR/mode says so) and
serves DIR/files/NAME on GET /files/NAME (traces fetched by URL). It listens
on 127.0.0.1:$PORT (0 = any free port) and writes the port to DIR/port;
every request is logged as a line of DIR/log."""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIR, TOKEN = sys.argv[1], sys.argv[2]
LIMIT = 64 << 20
os.makedirs(os.path.join(DIR, "runs"), exist_ok=True)


def log(line):
    with open(os.path.join(DIR, "log"), "a") as f:
        f.write(line + "\n")


class Handler(BaseHTTPRequestHandler):
    def answer(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        log(f"GET {self.path}")
        name = os.path.basename(self.path)
        path = os.path.join(DIR, "files", name)
        if not self.path.startswith("/files/") or not os.path.isfile(path):
            return self.answer(404, {"error": "no such file"})
        data = open(path, "rb").read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        log(f"POST {self.path} {length}")
        if self.path != "/api/runs":
            return self.answer(404, {"error": "not found"})
        if length > LIMIT:
            return self.answer(413, {"error": "too large"})
        body = self.rfile.read(length)
        mode_file = os.path.join(DIR, "mode")
        mode = open(mode_file).read().strip() if os.path.exists(mode_file) else ""
        if mode == "503":
            return self.answer(503, {"error": "database busy"})
        if mode == "400":
            return self.answer(400, {"error": "run.finished_at: before run.started_at"})
        if self.headers.get("Authorization") != "Bearer " + TOKEN:
            return self.answer(401, {"error": "wrong token"})
        try:
            doc = json.loads(body)
            run_id = doc["run"]["id"]
            ok = doc["format"] == "retrace-run" and doc["version"] == 1 and isinstance(doc["results"], list)
        except (ValueError, KeyError, TypeError):
            ok = False
        if not ok:
            return self.answer(400, {"error": "malformed run"})
        path = os.path.join(DIR, "runs", run_id + ".json")
        if os.path.exists(path):
            return self.answer(200, {"id": run_id, "duplicate": True})
        with open(path, "wb") as f:
            f.write(body)
        self.answer(201, {"id": run_id})

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "0"))), Handler)
with open(os.path.join(DIR, "port.tmp"), "w") as f:
    f.write(str(server.server_address[1]))
os.rename(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
server.serve_forever()
