-- Server CPU per row of each part of an import, by subtraction: each part runs alone on the
-- same rows in a transaction that is rolled back, and the backend's own CPU time (utime +
-- stime from /proc, so a busy machine's waiting is not counted) is read around it.
--
--   psql -X -q -A -t -v source=KEY -f Benchmarks/import_components.sql "$DATABASE_URL"
--
-- KEY is a team holding imported tasks (W4 leaves them: scripts/bench --only w4), whose rows
-- are copied into a temporary table first; an empty team is made for the inserts. Needs a
-- superuser (pg_read_file of /proc) on the server's own machine. Prints one line per part:
-- its name, seconds, and microseconds per row.
\set ON_ERROR_STOP on
CREATE FUNCTION pg_temp.cpu() RETURNS float8 LANGUAGE sql AS $$
    SELECT (split_part(f, ' ', 12)::float8 + split_part(f, ' ', 13)::float8) / 100
      FROM (SELECT split_part(pg_read_file('/proc/' || pg_backend_pid() || '/stat'), ') ', 2) AS f) q $$;
CREATE TEMP TABLE s AS
SELECT row_number() OVER (ORDER BY t.number) AS line, t.title, t.notes, t.status, t.priority, t.due_date, t.assignee_id,
       t.category, t.external_id
  FROM tasks t JOIN teams tm ON tm.id = t.team_id WHERE tm.key = :'source';
SELECT count(*) AS n FROM s \gset
SELECT created_by AS actor FROM teams WHERE key = :'source' \gset
INSERT INTO teams (key, name, created_by) VALUES ('CPU' || (random() * 1e6)::int, 'components', :actor) RETURNING id AS team \gset
INSERT INTO task_counters (team_id) VALUES (:team);
CREATE FUNCTION pg_temp.report(part text, started float8, rows bigint) RETURNS text LANGUAGE sql AS $$
    SELECT format('%-52s %6.2f s %6.1f us/row', part, pg_temp.cpu() - started, (pg_temp.cpu() - started) * 1e6 / rows) $$;
CHECKPOINT;

BEGIN;
SELECT pg_temp.cpu() AS c0 \gset
CREATE TEMP TABLE staged_copy AS SELECT * FROM s;
SELECT pg_temp.report('staging: writing the rows to a temp table', :c0, :n);
ROLLBACK;

BEGIN;
SELECT pg_temp.cpu() AS c0 \gset
INSERT INTO tasks (team_id, number, title, notes, status, priority, due_date, assignee_id, category, external_id,
                   created_by, created_at, updated_by, updated_at)
SELECT :team, line, title, notes, status, priority, due_date, assignee_id, category, external_id, :actor, now(), :actor, now() FROM s;
SELECT pg_temp.report('tasks: insert (heap, 6 indexes, checks, 2 FKs)', :c0, :n);
ROLLBACK;
CHECKPOINT;

BEGIN;
SET LOCAL session_replication_role = replica;
SELECT pg_temp.cpu() AS c0 \gset
INSERT INTO tasks (team_id, number, title, notes, status, priority, due_date, assignee_id, category, external_id,
                   created_by, created_at, updated_by, updated_at)
SELECT :team, line, title, notes, status, priority, due_date, assignee_id, category, external_id, :actor, now(), :actor, now() FROM s;
SELECT pg_temp.report('tasks: insert without the FK triggers', :c0, :n);
ROLLBACK;
CHECKPOINT;

BEGIN;
CREATE TABLE heap_only (LIKE tasks);
SELECT pg_temp.cpu() AS c0 \gset
INSERT INTO heap_only (team_id, number, id, title, notes, status, priority, due_date, assignee_id, category, external_id,
                       created_by, created_at, updated_by, updated_at, version)
SELECT :team, line, line, title, notes, status, priority, due_date, assignee_id, category, external_id, :actor, now(), :actor,
       now(), 1 FROM s;
SELECT pg_temp.report('tasks: heap only (no index, check or FK)', :c0, :n);
ROLLBACK;
CHECKPOINT;

BEGIN;
SELECT pg_temp.cpu() AS c0 \gset
INSERT INTO task_history (team_id, task_id, task_number, version, actor_id, changed_at, kind, created_values)
SELECT :team, line, line, 1, :actor, now(), 'imported',
       ARRAY[title, notes, status, priority, coalesce(due_date::text, ''), coalesce(assignee_id::text, ''), coalesce(category, ''),
             external_id]
  FROM s;
SELECT pg_temp.report('history: insert, created_values (0013)', :c0, :n);
ROLLBACK;
CHECKPOINT;

BEGIN;
CREATE TABLE history_with_fk (LIKE task_history INCLUDING ALL);
ALTER TABLE history_with_fk ADD FOREIGN KEY (team_id) REFERENCES teams (id) ON DELETE CASCADE;
SELECT pg_temp.cpu() AS c0 \gset
INSERT INTO history_with_fk (team_id, task_id, task_number, version, actor_id, changed_at, kind, created_values)
SELECT :team, line, line, 1, :actor, now(), 'imported', ARRAY[title, notes, status, priority, coalesce(due_date::text, ''),
       coalesce(assignee_id::text, ''), coalesce(category, ''), external_id]
  FROM s;
SELECT pg_temp.report('history: the same with the FK to teams (before 0013)', :c0, :n);
ROLLBACK;
CHECKPOINT;

BEGIN;
SELECT pg_temp.cpu() AS c0 \gset
SELECT count(('[' || concat_ws(', ',
    CASE WHEN new.title <> '' THEN '{"field": "title", "old": null, "new": ' || to_json(new.title) || '}' END,
    CASE WHEN new.notes <> '' THEN '{"field": "notes", "old": null, "new": ' || to_json(new.notes) || '}' END,
    CASE WHEN new.status <> '' THEN '{"field": "status", "old": null, "new": ' || to_json(new.status) || '}' END,
    CASE WHEN new.priority <> '' THEN '{"field": "priority", "old": null, "new": ' || to_json(new.priority) || '}' END,
    CASE WHEN new.due_date::text <> '' THEN '{"field": "due_date", "old": null, "new": ' || to_json(new.due_date::text) || '}' END,
    CASE WHEN new.assignee_id::text <> '' THEN '{"field": "assignee", "old": null, "new": ' || to_json(new.assignee_id::text) || '}' END,
    CASE WHEN new.category <> '' THEN '{"field": "category", "old": null, "new": ' || to_json(new.category) || '}' END,
    CASE WHEN new.external_id <> '' THEN '{"field": "external_id", "old": null, "new": ' || to_json(new.external_id) || '}' END)
    || ']')::jsonb) FROM s new \gset
SELECT pg_temp.report('history: the JSON list of a created task (before 0013)', :c0, :n);
SELECT pg_temp.cpu() AS c0 \gset
SELECT count(ARRAY[title, notes, status, priority, coalesce(due_date::text, ''), coalesce(assignee_id::text, ''),
                   coalesce(category, ''), external_id]) FROM s \gset
SELECT pg_temp.report('history: the created_values array (0013)', :c0, :n);
ROLLBACK;

BEGIN;
SELECT pg_temp.cpu() AS c0 \gset
SELECT count(*) FROM (SELECT external_id FROM s GROUP BY external_id HAVING count(*) > 1) d \gset
SELECT pg_temp.report('checks: duplicate external ids (GROUP BY)', :c0, :n);
SELECT pg_temp.cpu() AS c0 \gset
SELECT count(*) FROM (SELECT s.*, row_number() OVER (ORDER BY line) FROM s) w \gset
SELECT pg_temp.report('merge: whole rows sorted by line for row_number()', :c0, :n);
ROLLBACK;

DELETE FROM teams WHERE id = :team;
