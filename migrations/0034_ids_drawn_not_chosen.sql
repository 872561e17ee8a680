-- History and task ids come from their sequences: the runtime role can no longer choose them.
--
-- A task's history is read in id order. The runtime role held INSERT on every column of
-- `task_history`, so a member of a team could append, in their own name, a "created" entry with
-- id -1 (`INSERT INTO task_history (id, team_id, task_id, ...) VALUES (-1, ...)`): it was shown
-- first, ahead of the task's real creation, with whatever values and date they wrote. Ids just
-- above the sequence made the team's next writes fail on the primary key. Now the runtime role
-- may insert every column but `id`, which takes its default (the identity sequence); the store
-- never names it. `task_changes` has no id: its key is the team's sequence, which 0023 holds to
-- the counter.
--
-- `tasks.id` was not unique: the primary key is (team_id, number), and `INSERT INTO tasks (id,
-- ...)` with an existing id made a second task with that id (in any team). The import names the
-- id (it draws a first import's ids from `tasks_id_seq` as it stages the rows, so the tasks and
-- their history are written in one statement from the staging table read in place), so the
-- column cannot be withheld as history's is. Instead `tasks_id_key` makes the id unique, and a
-- statement trigger refuses an id the sequence never handed out (below 1, or above its last
-- value): a unique id alone would let a member insert ids ahead of the sequence, and every later
-- task creation of any team drawing one of them would fail. Those who own the schema (a
-- data-only restore writes each task's id before it sets the sequence) are not held to it, as
-- 0028 does for numbers. What stays: an id drawn by another transaction and not yet inserted can
-- be taken first, failing that one write (its retry draws another); a deleted task's id can be
-- given again, naming nothing the history reads by (history is kept by team and number).
--
-- Cost, measured: building the index on 600,000 tasks took 0.4 s (writes to `tasks` wait for
-- it: CREATE INDEX holds SHARE; reads go on; CONCURRENTLY would need a file of its own).
-- `taskimport` of 100,000 tasks into an empty team, interleaved with and without this migration:
-- medians 8.7 s both (ratio 1.0; 4 pairs on a shared machine, 2 earlier ones dropped as noise). An
-- existing duplicate stops the migration ("could not create unique index ... Key (id)=(N) is
-- duplicated"): give the later one a new id (`UPDATE tasks SET id = nextval('tasks_id_seq')
-- WHERE team_id = T AND number = N`) and run it again.
--
-- lint:allow create-index-not-concurrently the build of a bigint index took 0.4 s for 600,000 tasks; writes wait that long, reads go on

-- migrate:up
REVOKE INSERT ON public.task_history FROM taskbase_app;
GRANT INSERT (team_id, task_id, task_number, version, actor_id, changed_at, kind, changes, created_values)
    ON public.task_history TO taskbase_app;

CREATE UNIQUE INDEX tasks_id_key ON public.tasks (id);

CREATE FUNCTION public.taskbase_task_ids_drawn() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    DECLARE
        -- Who runs the statement (this function runs as its owner), as in 0028's trigger.
        invoker name := CASE WHEN pg_catalog.current_setting('role') = 'none' THEN session_user
                             ELSE pg_catalog.current_setting('role')::name END;
        low bigint;
        top bigint;
        drawn bigint;
    BEGIN
        IF pg_catalog.pg_has_role(invoker, 'taskbase_owner', 'USAGE') THEN
            RETURN NULL;
        END IF;
        SELECT pg_catalog.min(n.id), pg_catalog.max(n.id) INTO low, top FROM inserted n;
        drawn := COALESCE(pg_catalog.pg_sequence_last_value('public.tasks_id_seq'::pg_catalog.regclass), 0);
        IF low < 1 OR top > drawn THEN
            RAISE EXCEPTION 'task id % was never drawn from tasks_id_seq (drawn up to %)',
                CASE WHEN low < 1 THEN low ELSE top END, drawn
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'a task takes its id from tasks_id_seq: leave it to the default, or draw it with nextval';
        END IF;
        RETURN NULL;
    END
    $$;

REVOKE ALL ON FUNCTION public.taskbase_task_ids_drawn() FROM PUBLIC;

CREATE TRIGGER tasks_ids_drawn AFTER INSERT ON public.tasks REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION public.taskbase_task_ids_drawn();

-- migrate:down
DROP TRIGGER tasks_ids_drawn ON public.tasks;
DROP FUNCTION public.taskbase_task_ids_drawn();
DROP INDEX public.tasks_id_key;
GRANT INSERT ON public.task_history TO taskbase_app;
