"""Runs a command and prints the CPU seconds of the database backends it opened (utime + stime
from /proc, so waiting for a busy machine's cores is not counted) and its wall time: what the
server spent on, say, one taskimport run, beside what the client spent (wrap the command in
/usr/bin/time for that).

    DATABASE_URL=... python3 Benchmarks/backend_cpu.py [--stdin FILE] -- COMMAND...

The server must run on this machine; the backends are found in pg_stat_activity while the
command runs (polled every 50 ms).
"""
import os
import subprocess
import sys
import time


def backends(url):
    out = subprocess.run(["psql", "-XAtq", url, "-c",
                          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                          "AND backend_type = 'client backend' AND pid <> pg_backend_pid()"],
                         capture_output=True, text=True, check=True).stdout
    return {int(pid) for pid in out.split()}


def cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    arguments = sys.argv[1:]
    stdin = None
    if arguments[:1] == ["--stdin"]:
        stdin, arguments = arguments[1], arguments[2:]
    command = arguments[arguments.index("--") + 1:]
    url = os.environ["DATABASE_URL"]
    before = backends(url)
    started = time.time()
    process = subprocess.Popen(command, stdin=open(stdin, "rb") if stdin else None, stdout=subprocess.DEVNULL)
    seen = {}
    while process.poll() is None:
        for pid in backends(url) - before - set(seen):
            seen[pid] = 0.0
        for pid in seen:
            seconds = cpu_seconds(pid)
            if seconds is not None:
                seen[pid] = seconds
        time.sleep(0.05)
    print(f"exit {process.returncode}, wall {time.time() - started:.2f} s, server CPU {sum(seen.values()):.2f} s "
          f"({', '.join(f'{pid}: {seconds:.2f} s' for pid, seconds in seen.items())})")


if __name__ == "__main__":
    main()
