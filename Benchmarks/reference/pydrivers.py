"""W1 (point reads) with the Python drivers people pick today, replaying the exact statements
PostgresTaskStore sends. Usage: pydrivers.py asyncpg|psycopg CONNINFO STATEMENTS_FILE COUNT

asyncpg has no pipeline for separate statements, so it runs them in a transaction (BEGIN,
both statements, COMMIT), as an asyncpg user would to keep the settings transaction-local;
psycopg 3 uses its pipeline mode, one round trip per call like PostgresTaskStore.
"""
import json
import re
import sys
import time

from statements import NUMBER_MARKER, load, with_number


def typed(values, types):
    out = []
    for value, kind in zip(values, types):
        if value is None:
            out.append(None)
        elif kind in ("int2", "int4", "int8"):
            out.append(int(value))
        else:
            out.append(value)
    return out


async def run_asyncpg(conninfo, statements, count):
    import asyncpg

    conn = await asyncpg.connect(conninfo)
    prepared = [await conn.prepare(sql) for sql, _ in statements]
    types = [[t.name for t in p.get_parameters()] for p in prepared]

    async def call(number):
        async with conn.transaction():
            for (sql, params), stmt, kinds in zip(statements, prepared, types):
                await stmt.fetch(*typed(with_number(params, number), kinds))

    for i in range(200):
        await call(i % 1000 + 1)
    started = time.perf_counter()
    for i in range(count):
        await call(i % 1000 + 1)
    elapsed = time.perf_counter() - started
    await conn.close()
    return elapsed


def run_psycopg(conninfo, statements, count):
    import psycopg

    conn = psycopg.connect(conninfo, autocommit=True, prepare_threshold=0)
    converted = [(re.sub(r"\$\d+", "%s", sql), params) for sql, params in statements]
    marker_positions = [[i for i, v in enumerate(params) if v == NUMBER_MARKER] for _, params in statements]

    def call(number):
        with conn.pipeline() as pipeline:
            cursors = []
            for (sql, params), positions in zip(converted, marker_positions):
                values = [int(number) if i in positions else v for i, v in enumerate(params)]
                cur = conn.cursor()
                cur.execute(sql, values)
                cursors.append(cur)
            pipeline.sync()
            for cur in cursors:
                cur.fetchall()

    for i in range(200):
        call(i % 1000 + 1)
    started = time.perf_counter()
    for i in range(count):
        call(i % 1000 + 1)
    elapsed = time.perf_counter() - started
    conn.close()
    return elapsed


def main():
    driver, conninfo, path, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    statements = load(path)
    if driver == "asyncpg":
        import asyncio

        elapsed = asyncio.run(run_asyncpg(conninfo, statements, count))
    else:
        elapsed = run_psycopg(conninfo, statements, count)
    print(json.dumps({"workload": "w1", "operations": count, "seconds": elapsed, "ops_per_second": count / elapsed}))


if __name__ == "__main__":
    main()
