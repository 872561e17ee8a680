"""W7's reference: `GET /v1/tasks/{key}` the way a team would likely build it instead of
taskserve — FastAPI on uvicorn (uvloop, httptools) over an asyncpg pool — with the same SQL and
the same authentication work. Benchmark only; see Benchmarks/README.md (W7) for what it does
and does not do.

Run by scripts/bench: `uvicorn fastapi_tasks:app --workers 2` from this folder with
DATABASE_URL, TASKBASE_TOKEN_KEY and REFERENCE_POOL_SIZE (connections per worker) set.

Authentication as taskserve's TokenVerifier does it (Sources/TaskbaseServer/API/Authentication.swift,
Sources/APITokens, migration 0010): the bearer token's shape is checked, its HMAC-SHA-256 under
TASKBASE_TOKEN_KEY is looked up in a per-process cache, and only a miss reads `api_tokens` and
the token's user (the statements of PostgresTaskStore.token(hash:)); expiry and revocation are
checked on every use, a disabled user is refused, use is recorded at most once a minute, and
the cache is trusted only while a LISTEN on `taskbase_tokens` (the doorbell the migration's
triggers ring) is connected, each ring emptying it.

The route runs the statements PostgresTaskStore sends for it (the point read, the team access
facts, the team's members for the users the document names), in one transaction that begins
with the store's session setup (runtime role, acting user and the same limits), and answers the
same document with the task's version as ETag (304 for a matching If-None-Match).
"""
import asyncio
import datetime
import hashlib
import hmac
import json
import os
import re

import asyncpg
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

FALLBACK_KEY = "taskbase api token key: set TASKBASE_TOKEN_KEY"  # APITokens.TokenSecrets.fallbackKey
TOKEN_SHAPE = re.compile(r"tb_[A-Za-z0-9_-]{43}")
KEY_SHAPE = re.compile(r"([A-Za-z][A-Za-z0-9]{0,9})-([1-9][0-9]{0,17})")
USE_RECORDING_INTERVAL = datetime.timedelta(seconds=60)

USER_COLUMNS = "u.id AS user_id, u.email, u.display_name, u.disabled, u.created_at AS user_created_at, u.is_operator"
TEAM_COLUMNS = "tm.id AS team_id, tm.key AS team_key, tm.name AS team_name, tm.created_at AS team_created_at"
TASK_COLUMNS = ("t.id AS task_id, t.team_id AS task_team_id, t.number, t.title, t.notes, t.status, t.priority, t.due_date, "
                "t.assignee_id, t.category, t.external_id, t.created_by, t.created_at, t.updated_by, t.updated_at, t.version")
TOKEN_COLUMNS = ("k.id AS token_id, k.user_id AS token_user_id, k.name AS token_name, k.prefix, k.created_at AS token_created_at, "
                 "k.expires_at, k.last_used_at, k.revoked_at")
LIMITS = "set_config('lock_timeout', $3, true), set_config('statement_timeout', $4, true), " \
         "set_config('client_connection_check_interval', $5, true)"
LIMIT_VALUES = ("10000ms", "30000ms", "2000ms")  # taskserve's defaults (SessionLimitOptions)
SETUP = f"SELECT set_config('taskbase.user_id', $1::text, true), set_config('role', $2, true), {LIMITS}"
SETUP_NOBODY = ("SELECT set_config('taskbase.user_id', '', true), set_config('role', $1, true), "
                + LIMITS.replace("$3", "$2").replace("$4", "$3").replace("$5", "$4"))
ACCESS_FACTS = """(SELECT 1) one
  LEFT JOIN users u ON u.id = $1
  LEFT JOIN teams tm ON tm.key = $2
  LEFT JOIN memberships m ON m.team_id = tm.id AND m.user_id = u.id"""
TASK_READ = f"""SELECT {USER_COLUMNS}, m.role, {TASK_COLUMNS}
  FROM {ACCESS_FACTS}
  LEFT JOIN tasks t ON t.team_id = tm.id AND t.number = $3 AND m.role IS NOT NULL AND NOT u.disabled"""
TEAM_FACTS = f"SELECT {USER_COLUMNS}, {TEAM_COLUMNS}, m.role\n  FROM {ACCESS_FACTS}"
MEMBERS = f"""SELECT {USER_COLUMNS}, m.role
  FROM memberships m JOIN users u ON u.id = m.user_id
 WHERE m.team_id = $1
 ORDER BY u.email"""
TOKEN_BY_HASH = f"SELECT {TOKEN_COLUMNS} FROM api_tokens k WHERE k.hash = $1"
ACT_AS = "SELECT set_config('taskbase.user_id', $1, true)"
USER_BY_ID = f"SELECT {USER_COLUMNS} FROM users u WHERE u.id = $1"
RECORD_USE = """UPDATE api_tokens k SET last_used_at = $1
 WHERE k.id = $2 AND (k.last_used_at IS NULL OR k.last_used_at <= $3)"""

app = FastAPI()
state = {"pool": None, "cache": {}, "trusted": False, "listener": None}
secret_key = (os.environ.get("TASKBASE_TOKEN_KEY") or FALLBACK_KEY).encode()


def problem(status, title, detail, headers=None):
    return JSONResponse({"type": "about:blank", "title": title, "status": status, "detail": detail}, status_code=status,
                        media_type="application/problem+json", headers=headers)


def unauthorized(detail):
    return problem(401, "Unauthorized", detail, {"WWW-Authenticate": "Bearer"})


def not_found(what):
    return problem(404, "Not Found", f"{what} was not found")


def wire_time(value):
    return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@app.on_event("startup")
async def startup():
    size = int(os.environ.get("REFERENCE_POOL_SIZE", "4"))
    state["pool"] = await asyncpg.create_pool(os.environ["DATABASE_URL"], min_size=size, max_size=size)
    state["listener"] = asyncio.create_task(doorbell())


@app.on_event("shutdown")
async def shutdown():
    state["listener"].cancel()
    await state["pool"].close()


async def doorbell():
    """Keeps the token cache trusted only while LISTEN taskbase_tokens is connected."""
    def ring(*_):
        state["cache"].clear()

    while True:
        connection = None
        try:
            connection = await asyncpg.connect(os.environ["DATABASE_URL"])
            await connection.add_listener("taskbase_tokens", ring)
            state["cache"].clear()
            state["trusted"] = True
            while not connection.is_closed():
                await asyncio.sleep(0.5)
        except asyncio.CancelledError:
            raise
        except Exception:
            pass
        finally:
            state["trusted"] = False
            state["cache"].clear()
            if connection is not None and not connection.is_closed():
                await connection.close()
        await asyncio.sleep(0.5)


async def authenticate(request):
    """The caller's user row and token row, or a 401 response."""
    header = request.headers.get("authorization")
    if header is None:
        return None, unauthorized("this route needs Authorization: Bearer <token>")
    parts = header.split(" ", 1)
    if len(parts) != 2 or parts[0].lower() != "bearer":
        return None, unauthorized("the Authorization header must be Bearer <token>")
    secret = parts[1].strip()
    refused = unauthorized("the token is unknown, expired or revoked, or its user is disabled")
    if not TOKEN_SHAPE.fullmatch(secret):
        return None, refused
    digest = hmac.new(secret_key, secret.encode(), hashlib.sha256).digest()
    now = datetime.datetime.now(datetime.timezone.utc)
    found = state["cache"].get(digest) if state["trusted"] else None
    if found is None:
        async with state["pool"].acquire() as connection, connection.transaction():
            await connection.fetchrow(SETUP_NOBODY, "taskbase_app", *LIMIT_VALUES)
            token = await connection.fetchrow(TOKEN_BY_HASH, digest)
            if token is None:
                return None, refused
            await connection.fetchrow(ACT_AS, str(token["token_user_id"]))
            user = await connection.fetchrow(USER_BY_ID, token["token_user_id"])
        if user is None or user["disabled"]:
            return None, refused
        found = {"user": user, "token": dict(token)}
        if state["trusted"]:
            if len(state["cache"]) >= 10_000:
                state["cache"].clear()
            state["cache"][digest] = found
    token = found["token"]
    if token["revoked_at"] is not None or token["expires_at"] <= now:
        return None, refused
    if token["last_used_at"] is None or now - token["last_used_at"] >= USE_RECORDING_INTERVAL:
        token["last_used_at"] = now
        asyncio.create_task(record_use(token["token_id"], now))
    return found, None


async def record_use(token_id, now):
    async with state["pool"].acquire() as connection, connection.transaction():
        await connection.fetchrow(SETUP_NOBODY, "taskbase_app", *LIMIT_VALUES)
        await connection.execute(RECORD_USE, now, token_id, now - USE_RECORDING_INTERVAL)


@app.get("/v1/tasks/{key}")
async def show_task(key: str, request: Request):
    caller, refusal = await authenticate(request)
    if refusal is not None:
        return refusal
    match = KEY_SHAPE.fullmatch(key)
    if not match:
        return not_found(f"task {key}")
    team, number = match.group(1).upper(), int(match.group(2))
    actor = caller["user"]["user_id"]
    async with state["pool"].acquire() as connection, connection.transaction():
        await connection.fetchrow(SETUP, str(actor), "taskbase_app", *LIMIT_VALUES)
        row = await connection.fetchrow(TASK_READ, actor, team, number)
        if row["user_id"] is None or row["disabled"] or row["role"] is None or row["task_id"] is None:
            return not_found(f"task {team}-{number}")
        facts = await connection.fetchrow(TEAM_FACTS, actor, team)
        if facts["role"] is None:
            return not_found(f"team {team}")
        members = await connection.fetch(MEMBERS, facts["team_id"])
    emails = {member["user_id"]: member["email"] for member in members}
    version = row["version"]
    etag = f'"{version}"'
    wanted = request.headers.get("if-none-match")
    if wanted and etag in [tag.strip().removeprefix("W/") for tag in wanted.split(",")]:
        return Response(status_code=304, headers={"ETag": etag})
    due = row["due_date"]
    today = datetime.datetime.now(datetime.timezone.utc).date()
    document = {
        "id": row["task_id"], "key": f"{team}-{row['number']}", "team": team, "number": row["number"], "title": row["title"],
        "notes": row["notes"], "status": row["status"], "priority": row["priority"],
        "due_date": due.isoformat() if due else None, "overdue": bool(due and due < today and row["status"] != "done"),
        "assignee": emails.get(row["assignee_id"], f"#{row['assignee_id']}") if row["assignee_id"] is not None else None,
        "category": row["category"], "external_id": row["external_id"], "version": version,
        "created_at": wire_time(row["created_at"]), "created_by": emails.get(row["created_by"], f"#{row['created_by']}"),
        "updated_at": wire_time(row["updated_at"]), "updated_by": emails.get(row["updated_by"], f"#{row['updated_by']}"),
    }
    return Response(json.dumps(document, separators=(",", ":")), media_type="application/json", headers={"ETag": etag})
