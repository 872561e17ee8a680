"""W9: one writer, many Server-Sent Events subscribers on taskserve's GET /v1/teams/{team}/events.

Usage: TASKBASE_BENCH_TOKEN=... sse_fanout.py PORT TEAM SUBSCRIBERS WRITES RATE SERVER_PID SECONDS
(the bearer token in the environment, not on the command line, which ps shows)

Opens one warm-up subscriber and waits for its first event (the stream machinery is up), reads
taskserve's resident memory, opens SUBSCRIBERS more streams and waits until each has its
`: connected` comment, lets them sit idle a second and reads the memory again: the growth over
SUBSCRIBERS is the memory per idle subscriber. Then one writer creates WRITES tasks at RATE per
second over HTTP (POST /v1/teams/{team}/tasks, titled `W9 <n>`), and each subscriber notes when
each task's event reaches it. Delivery latency runs from the change's own time (`at`, which
taskserve takes as the write starts, before its transaction commits), so it is an upper bound on
commit-to-delivery. Beside it: the latency from the moment the writer sent its request (it adds
the request's way in), and from the moment the writer had its answer, which comes after the
commit, so that is a lower bound (negative when the event arrived first): the true p99 lies
between `p99_after_answer_ms` and `p99_ms`. Bounded: everything ends within SECONDS; deliveries still missing then are
counted as lost. Prints one JSON line.
"""
import asyncio
import datetime
import json
import os
import re
import sys
import time

MARKER = re.compile(rb'"at":"([^"]+)"[^\n]*"title":"W9 (\d+)"')


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


class Subscriber(asyncio.Protocol):
    def __init__(self, request, sent, latencies, stamps):
        self.request, self.sent, self.latencies, self.stamps = request, sent, latencies, stamps
        self.connected = asyncio.get_running_loop().create_future()
        self.first_event = asyncio.get_running_loop().create_future()
        self.closed = asyncio.get_running_loop().create_future()
        self.pending = b""
        self.seen = set()
        self.status_seen = False

    def connection_made(self, transport):
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data):
        arrived, arrived_wall = time.monotonic(), time.time()
        text = self.pending + data
        # A marker may be cut between two reads: keep the unfinished last line for the next.
        cut = text.rfind(b"\n")
        complete, self.pending = (text[:cut + 1], text[cut + 1:]) if cut >= 0 else (b"", text)
        if not self.status_seen and complete:
            self.status_seen = True
            if not complete.startswith(b"HTTP/1.1 200 "):
                self.connected.set_exception(RuntimeError(complete[:300].decode(errors="replace")))
                return
        if not self.connected.done():
            if b": connected" in complete:
                self.connected.set_result(arrived)
        for match in MARKER.finditer(complete):
            number = int(match.group(2))
            if number in self.seen:
                continue
            self.seen.add(number)
            if not self.first_event.done():
                self.first_event.set_result(number)
            if number in self.sent:
                if number not in self.stamps:
                    self.stamps[number] = datetime.datetime.fromisoformat(match.group(1).decode()).timestamp()
                self.latencies.append(((arrived_wall - self.stamps[number]) * 1000, (arrived - self.sent[number]) * 1000, arrived, number))

    def connection_lost(self, exc):
        if not self.connected.done():
            self.connected.set_exception(RuntimeError("the stream closed before it connected"))
        if not self.closed.done():
            self.closed.set_result(True)


async def write_task(reader, writer, port, token, team, number):
    body = json.dumps({"title": f"W9 {number}"}).encode()
    writer.write(f"POST /v1/teams/{team}/tasks HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
                 f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
    await reader.readexactly(length)
    if status != 201:
        raise RuntimeError(f"the writer's POST answered {status}")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[int((len(ordered) - 1) * fraction)] if ordered else None


async def run(port, token, team, subscribers, writes, rate, pid, seconds):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    request = (f"GET /v1/teams/{team}/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
               f"Accept: text/event-stream\r\n\r\n").encode()
    sent, answered, latencies, stamps = {}, {}, [], {}
    reader, writer = await asyncio.open_connection("127.0.0.1", port)

    async def subscribe():
        _, protocol = await loop.create_connection(lambda: Subscriber(request, sent, latencies, stamps), "127.0.0.1", port)
        await protocol.connected
        return protocol

    def left():
        return max(0.1, deadline - loop.time())

    warm = await asyncio.wait_for(subscribe(), left())
    await write_task(reader, writer, port, token, team, 0)
    await asyncio.wait_for(warm.first_event, left())
    await asyncio.sleep(0.5)
    before = rss_kib(pid)
    streams = []
    for start in range(0, subscribers, 50):
        batch = [subscribe() for _ in range(min(50, subscribers - start))]
        streams += await asyncio.wait_for(asyncio.gather(*batch), left())
    await asyncio.sleep(1.0)
    after = rss_kib(pid)
    write_ms = []
    for number in range(1, writes + 1):
        due = loop.time() + 1 / rate
        sent[number] = time.monotonic()
        await asyncio.wait_for(write_task(reader, writer, port, token, team, number), left())
        answered[number] = time.monotonic()
        write_ms.append((answered[number] - sent[number]) * 1000)
        await asyncio.sleep(max(0, due - loop.time()))
    expected = writes * (subscribers + 1)
    while len(latencies) < expected and loop.time() < deadline:
        await asyncio.sleep(0.05)
    end_rss = rss_kib(pid)
    closed_early = sum(1 for stream in streams + [warm] if stream.closed.done())
    for stream in streams + [warm]:
        stream.transport.close()
    writer.close()
    from_change, from_send = [entry[0] for entry in latencies], [entry[1] for entry in latencies]
    after_answer = [(arrived - answered[number]) * 1000 for _, _, arrived, number in latencies]
    return {"subscribers": subscribers, "writes": writes, "rate": rate, "deliveries": len(latencies), "expected": expected,
            "lost": expected - len(latencies), "closed_early": closed_early,
            "p50_ms": percentile(from_change, 0.5), "p99_ms": percentile(from_change, 0.99), "max_ms": max(from_change, default=None),
            "p99_from_send_ms": percentile(from_send, 0.99), "p99_after_answer_ms": percentile(after_answer, 0.99), "write_p50_ms": percentile(write_ms, 0.5), "rss_before_kib": before, "rss_idle_kib": after, "rss_end_kib": end_rss,
            "kib_per_idle_subscriber": (after - before) / subscribers}


def main():
    port, team, token = int(sys.argv[1]), sys.argv[2], os.environ["TASKBASE_BENCH_TOKEN"]
    subscribers, writes, rate, pid, seconds = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
    try:
        import uvloop
        uvloop.install()
    except ImportError:
        pass
    try:
        print(json.dumps(asyncio.run(run(port, token, team, subscribers, writes, rate, pid, seconds))))
    except (OSError, RuntimeError, asyncio.TimeoutError) as failure:
        print(f"sse_fanout: {type(failure).__name__}: {str(failure)[:400]}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
