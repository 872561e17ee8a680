#!/usr/bin/env python3
"""A fault-injecting HTTP fixture for the client's transport tests: answers like taskserve for a
few routes, but on purpose unavailable, slow, dropping its event stream or cutting an export short, so retries,
timeouts, cancellation, reconnection and a failure's request id can be tested where the real server would need to be
broken. Paths start with /<scenario>/<run>/; GET /log/<run> returns what each request carried
(and an "ended" entry when an event stream stopped because the client had gone). With
--redirect-to URL, the scenario "redirect" answers every request 302 to URL/plain/<run>/<route>.
Listens on 127.0.0.1, port 0; prints the port on the first line of stdout. It exits when stdin
closes or when its parent (the test process) goes away, and after an hour at most."""
import email.utils
import json
import math
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
LOG = {}  # run -> list of {method, path, idempotency_key, last_event_id, authorization}
REDIRECT_TO = sys.argv[sys.argv.index("--redirect-to") + 1] if "--redirect-to" in sys.argv else None
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
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the client left (a cancelled or timed-out request): nothing to answer
            self.close_connection = True

    def problem(self, status, code, title, detail, headers=(), **extra):
        """Answers an RFC 9457 problem as taskserve words it."""
        document = {"type": f"urn:taskbase:problem:{code}", "title": title, "status": status, "detail": detail, "code": code, **extra}
        return self.reply(status, document, "application/problem+json", headers)

    def unavailable(self, detail="every connection is busy"):
        return self.problem(503, "unavailable", "Service unavailable", detail, [("Retry-After", "0")])

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        parts = self.path.split("?")[0].strip("/").split("/")
        if parts[0] == "log":
            with LOCK:
                return self.reply(200, LOG.get(parts[1], []))
        scenario, run, route = parts[0], parts[1], "/".join(parts[2:])
        self.run = run
        with LOCK:
            attempts = LOG.setdefault(run, [])
            attempts.append({"method": self.command, "path": route, "idempotency_key": self.headers.get("Idempotency-Key"),
                             "last_event_id": self.headers.get("Last-Event-ID"), "authorization": self.headers.get("Authorization")})
            attempt = len(attempts)
        if scenario == "redirect" and REDIRECT_TO:
            return self.reply(302, {}, headers=[("Location", f"{REDIRECT_TO}/plain/{run}/{route}")])
        if scenario == "unavailable" and attempt <= 2:
            return self.unavailable()
        if scenario in ("patient", "patient-date"):
            # 429 until PATIENCE_SECONDS after the run's first request, each saying so in its
            # Retry-After: in seconds, or as an HTTP date (IMF-fixdate, whole seconds, rounded up).
            with LOCK:
                first = FIRST.setdefault(run, time.time())
            until = first + PATIENCE_SECONDS
            if time.time() < until:
                wait = str(math.ceil(until - time.time())) if scenario == "patient" else \
                    email.utils.formatdate(math.ceil(until), usegmt=True)
                return self.problem(429, "too_many_requests", "Too many requests", "slow down", [("Retry-After", wait)])
        if scenario == "long-429":
            return self.problem(429, "too_many_requests", "Too many requests", "slow down", [("Retry-After", "3600")])
        # How many attempts find the first still running: the first attempt's answer is lost
        # (503); the retries find it running (409) once, five times (past the client's three
        # retries), or for good.
        running_through = {"running": 2, "slow-running": 6, "stuck": float("inf")}.get(scenario, 0)
        if attempt <= running_through:
            if attempt == 1:
                return self.unavailable()
            return self.problem(409, "idempotency_key_in_use", "Idempotency key in use",
                                "a request with Idempotency-Key k is still running; retry shortly")
        if scenario == "lost":
            # The first attempt's answer is lost (503) after it took effect; the retry is told so.
            if attempt == 1:
                return self.unavailable("the database connection was lost during the commit")
            return self.problem(409, "answer_lost", "Answer lost", "the request with Idempotency-Key k took effect, but its answer was lost")
        if scenario == "withheld":
            # The first attempt succeeded but its answer never arrived; the kept answer has no
            # body (a token's secret), so the retry is told it succeeded and nothing more.
            if attempt == 1:
                self.close_connection = True
                return
            return self.problem(409, "answer_withheld", "Answer withheld", "the request with Idempotency-Key k succeeded, and its answer is not kept")
        if scenario == "vanishing" and self.command == "DELETE":
            # The first DELETE "takes effect" but its answer is lost (the connection closes with
            # no reply); every later one finds the task gone (410, as taskserve answers a task
            # whose history ends in its deletion).
            if attempt == 1:
                self.close_connection = True
                return
            return self.problem(410, "not_found", "Not found", "task CORE-1 not found", what="task CORE-1")
        if scenario == "never" and self.command == "DELETE":
            # The first DELETE is refused before it runs (503: the database unreachable); the
            # retry finds no such task, nor ever was one (404).
            if attempt == 1:
                return self.unavailable("the database is unreachable or busy")
            return self.problem(404, "not_found", "Not found", "task CORE-9 not found", what="task CORE-9")
        if scenario == "failing":
            return self.problem(500, "internal", "Internal error", "the server failed", [("X-Request-Id", f"fault-{attempt}")])
        if scenario == "slow":
            time.sleep(10)
        if route == "v1/me":
            return self.reply(200, USER)
        if route == "v1/teams" and self.command == "POST":
            return self.reply(201, TEAM)
        if route == "v1/teams/CORE":
            return self.reply(200, TEAM)
        if route == "v1/teams/CORE/members":
            if scenario == "lookup" and attempt_of_route(run, route) == 1:
                return self.unavailable()
            return self.reply(200, [MEMBER])
        if route == "v1/teams/CORE/events" and scenario in ("dropping", "unavailable", "patient"):
            return self.events(attempt_of_route(run, route))
        if route == "v1/teams/CORE/events" and scenario == "silent":
            connection = attempt_of_route(run, route)
            return self.events(connection, silent=connection == 1, steady=True)
        if route == "v1/teams/CORE/events" and scenario == "lookup":
            return self.events(attempt_of_route(run, route), together=True)
        if route == "v1/teams/CORE/export" and scenario == "truncated":
            return self.truncated_export()
        self.problem(404, "not_found", "Not found", "x not found", what="x")

    def truncated_export(self):
        """A chunked CSV that stops after its first chunk, without the last (empty) one: what
        taskserve sends when an export fails half-way."""
        self.send_response(200)
        self.send_header("Content-Type", "text/csv; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        body = b"External ID,Title\r\nEXT-1,Half of it\r\n"
        self.wfile.write(f"{len(body):x}\r\n".encode() + body + b"\r\n")
        self.wfile.flush()
        self.close_connection = True

    def events(self, connection, together=False, silent=False, steady=False):
        """Each connection sends the two events after Last-Event-ID, then drops (the first three
        times); later ones stay open with heartbeats until the client leaves (the first write
        that fails ends it) or MAX_HEARTBEATS have gone out. `together` sends the starting place
        and the two events in one write and keeps every connection open; `steady` keeps every
        connection open; `silent` sends the events, then nothing for SILENT_SECONDS."""
        after = int(self.headers.get("Last-Event-ID") or 0)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        frames = [f"id: {sequence}\nevent: change\ndata: {json.dumps(change(sequence))}\n\n: keep-alive\n\n" for sequence in (after + 1, after + 2)]
        if together:
            # As taskserve opens a stream: its starting place, an id on its own, then the events.
            frames = [f": connected\nid: {after}\n\n" + "".join(frames)]
        heartbeats = [] if connection <= 3 and not (together or steady) else [": keep-alive\n\n"] * MAX_HEARTBEATS
        if silent:
            # The events, then nothing at all, the connection held open: a stream gone dead
            # (a proxy holding it, a server hung) that only the client's idle timeout notices.
            for frame in frames:
                self.wfile.write(frame.encode())
                self.wfile.flush()
            time.sleep(SILENT_SECONDS)
            self.close_connection = True
            return
        for index, frame in enumerate(frames + heartbeats):
            try:
                self.wfile.write(frame.encode())
                self.wfile.flush()
            except OSError:  # the client left: broken pipe, reset
                with LOCK:
                    LOG[self.run].append({"method": "ended", "path": "events", "idempotency_key": None, "last_event_id": None})
                self.close_connection = True
                return
            time.sleep(0.05 if index < len(frames) else HEARTBEAT_SECONDS)
        self.close_connection = True

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = handle_any


HEARTBEAT_SECONDS = 0.5
SILENT_SECONDS = 20  # how long the "silent" scenario's first stream says nothing
PATIENCE_SECONDS = 2.0  # how long the "patient" scenarios refuse a run's requests (429)
FIRST = {}  # run -> when its first request came, for the "patient" scenarios
MAX_HEARTBEATS = 240  # two minutes of an open stream, far longer than any test holds one
LIFETIME_SECONDS = 3600


def attempt_of_route(run, route):
    with LOCK:
        return sum(1 for entry in LOG[run] if entry["path"] == route)


def watch_parent(parent):
    """Exits the process once it is reparented (the test process died without closing stdin,
    e.g. killed, with the pipe held open by another child) or its lifetime is over."""
    for _ in range(int(LIFETIME_SECONDS / 0.2)):
        if os.getppid() != parent:
            break
        time.sleep(0.2)
    os._exit(0)


class Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # The client under test hangs up on purpose (cancellation, timeouts, retries): that is
        # no error of this server, and its traceback only buried the test log. Anything else
        # is still printed.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


if __name__ == "__main__":
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    server.serve_forever()
