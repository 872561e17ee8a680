-- W4's reference: what a skilled operator would write by hand to load the benchmark's CSV file
-- into an empty team with the result taskimport gives (the same tasks, numbers, stored values
-- and history), in one psql session and one transaction. bench.py runs it as
--
--   psql -X -q -v team=KEY -v actor=EMAIL -f import_reference.sql < tasks.csv
--
-- and then checks that the team holds what taskimport's team holds (count, a checksum over the
-- stored task fields, the history). It does no validation and cannot report a bad row: the
-- file's statuses, priorities and dates are already in the stored spelling, and it has no
-- assignees (the reference maps none). Empty CSV fields arrive as NULL: the notes become '',
-- an empty category or due date stays NULL, as taskimport stores them.
\set ON_ERROR_STOP on
BEGIN;
-- The load's statements run once and cost far above jit_above_cost: compiling them to machine
-- code would cost seconds and gain nothing (taskimport turns JIT off for its merge too).
SET LOCAL jit = off;
SELECT t.id AS team_id, u.id AS actor_id FROM teams t, users u WHERE t.key = :'team' AND u.email = :'actor' \gset
-- The team's counter, locked: numbers follow on from it without gaps.
SELECT last_number, last_change FROM task_counters WHERE team_id = :team_id FOR UPDATE \gset
CREATE TEMP TABLE staging (
    external_id text, title text, notes text, status text, priority text, due_date date, assignee text, category text
) ON COMMIT DROP;
\copy staging FROM pstdin WITH (FORMAT csv, HEADER true)
-- The numbers and the change's sequence are taken from the counter before the rows that use
-- them are written: the schema refuses a task whose number its transaction did not take
-- (migrations 0023, 0028).
UPDATE task_counters SET last_number = last_number + (SELECT count(*) FROM staging), last_change = last_change + 1
 WHERE team_id = :team_id;
-- The rows in file order, each with its task id (drawn up front, so the history is written
-- from the same rows) and the team's next number; then the tasks, and one history entry per
-- task (under its id and number) with the values it was created with (`created_values`, in the order title, notes,
-- status, priority, due_date, assignee, category, external_id; '' for none), as taskimport
-- writes a created task's.
WITH numbered AS (
    SELECT s.*, nextval('tasks_id_seq') AS id, :last_number + row_number() OVER () AS number FROM staging s
), created AS (
    INSERT INTO tasks (id, team_id, number, title, notes, status, priority, due_date, category, external_id,
                       created_by, created_at, updated_by, updated_at)
    SELECT id, :team_id, number, title, coalesce(notes, ''), status, priority, due_date, category, external_id,
           :actor_id, now(), :actor_id, now()
      FROM numbered
)
INSERT INTO task_history (team_id, task_id, task_number, version, actor_id, changed_at, kind, created_values)
SELECT :team_id, new.id, new.number, 1, :actor_id, now(), 'imported',
       ARRAY[new.title, coalesce(new.notes, ''), new.status, new.priority, coalesce(new.due_date::text, ''), '',
             coalesce(new.category, ''), new.external_id]
  FROM numbered new;
-- The change feed: an import of more than 10,000 tasks (TaskChange.bulkImportThreshold) is one
-- 'bulk' entry in the team's change log, under the counter's next sequence, and a doorbell
-- on the team's channel.
INSERT INTO task_changes (team_id, sequence, kind, task_id, number, version, actor_id, changed_at)
VALUES (:team_id, :last_change + 1, 'bulk', NULL, NULL, NULL, :actor_id, now());
SELECT pg_notify('taskbase.team.' || :'team', '') \g /dev/null
COMMIT;
