#!/usr/bin/env python3
"""A fault-injecting HTTP fixture for the client's transport tests: answers like taskserve for a
few routes, but on purpose unavailable, slow, or dropping its event stream, so retries,
timeouts, cancellation and reconnection can be tested where the real server would need to be
broken. Paths start with /<scenario>/<run>/; GET /log/<run> returns what each request carried.
Listens on 127.0.0.1, port 0; prints the port on the first line of stdout."""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
LOG = {}  # run -> list of {method, path, idempotency_key, last_event_id}
USER = {"id": 7, "email": "ann@example.com", "display_name": "Ann", "disabled": False, "created_at": "2026-03-10T12:00:00.000000Z"}
TEAM = {"id": 3, "key": "CORE", "name": "Core", "created_at": "2026-03-10T12:00:00.000000Z", "role": "owner"}
MEMBER = {"user_id": 7, "email": "ann@example.com", "display_name": "Ann", "role": "owner", "disabled": False,
          "created_at": "2026-03-10T12:00:00.000000Z"}


def change(number):
    return {"sequence": number, "kind": "updated", "key": "CORE-1", "task_id": 1, "version": number + 1, "actor": "ann@example.com",
            "at": "2026-03-10T12:00:00.000000Z", "title": "Busy"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, document, content_type="application/json", headers=()):
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        parts = self.path.split("?")[0].strip("/").split("/")
        if parts[0] == "log":
            with LOCK:
                return self.reply(200, LOG.get(parts[1], []))
        scenario, run, route = parts[0], parts[1], "/".join(parts[2:])
        with LOCK:
            attempts = LOG.setdefault(run, [])
            attempts.append({"method": self.command, "path": route, "idempotency_key": self.headers.get("Idempotency-Key"),
                             "last_event_id": self.headers.get("Last-Event-ID")})
            attempt = len(attempts)
        if scenario == "unavailable" and attempt <= 2:
            problem = {"type": "urn:taskbase:problem:unavailable", "title": "Service unavailable", "status": 503,
                       "detail": "every connection is busy", "code": "unavailable"}
            return self.reply(503, problem, "application/problem+json", [("Retry-After", "0")])
        if scenario == "slow":
            time.sleep(10)
        if route == "v1/me":
            return self.reply(200, USER)
        if route == "v1/teams" and self.command == "POST":
            return self.reply(201, TEAM)
        if route == "v1/teams/CORE":
            return self.reply(200, TEAM)
        if route == "v1/teams/CORE/members":
            return self.reply(200, [MEMBER])
        if route == "v1/teams/CORE/events" and scenario == "dropping":
            return self.events(attempt_of_route(run, route))
        self.reply(404, {"type": "urn:taskbase:problem:not_found", "title": "Not found", "status": 404, "detail": "x not found",
                         "code": "not_found", "what": "x"})

    def events(self, connection):
        """Each connection sends the two events after Last-Event-ID, then drops (the first three times)."""
        after = int(self.headers.get("Last-Event-ID") or 0)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        for sequence in (after + 1, after + 2):
            frame = f"id: {sequence}\nevent: change\ndata: {json.dumps(change(sequence))}\n\n: keep-alive\n\n"
            self.wfile.write(frame.encode())
            self.wfile.flush()
            time.sleep(0.05)
        if connection <= 3:
            self.close_connection = True
            return
        while True:
            self.wfile.write(b": keep-alive\n\n")
            self.wfile.flush()
            time.sleep(0.5)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = handle_any


def attempt_of_route(run, route):
    with LOCK:
        return sum(1 for entry in LOG[run] if entry["path"] == route)


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
    server.serve_forever()
