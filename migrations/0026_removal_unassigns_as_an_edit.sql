-- A member who leaves or is removed is unassigned from the team's tasks as an edit.
--
-- A task's assignee must be a member (foreign key tasks_assignee_is_member, 0001), whose
-- ON DELETE SET NULL cleared it silently: no new version, no history, no change-log entry, no
-- doorbell. A client holding the task's ETag was told 304 for a task that had changed, a
-- watcher never heard of it, and the in-memory store (which kept the assignee) disagreed.
--
-- `taskbase_unassign(team, member, at)` now unassigns each of the member's tasks in the team
-- as an edit by the acting user: version + 1, updated_by and updated_at, one `updated` history
-- entry (the assignee, from the member's id to none, as the store writes it), and one change-log
-- entry per task under the team's next sequences, and it rings the team's doorbell when it
-- changed anything (watchers read again, whoever deleted). It is SECURITY INVOKER: an admin's
-- removal runs it through the runtime role's own policies (they write tasks, in their own
-- name); the caller holds the team's counter lock. `taskbase_leave_team(team, at)` (SECURITY DEFINER, as
-- 0024's) runs it before removing the leaver, who may be a viewer and may not write tasks
-- themself; the one-argument form, which programs built before this migration call, leaves at
-- the transaction's time. A leaver's `at` more than a day from the database's clock (or not
-- finite) is taken as the transaction's time: a viewer may not write times of their choosing.
--
-- A BEFORE DELETE trigger on memberships runs the same unassignment (at the transaction's time)
-- for any other removal: an admin's DELETE from a program built before this migration, or typed
-- in SQL. Its edits are the deleting user's; it runs as the schema's owner (SECURITY DEFINER),
-- since a DELETE of several memberships that removes the deleting admin's own first would
-- otherwise leave the rest to the silent SET NULL (the admin, no longer a member, sees no
-- task), and only rows the deleter may delete reach it. It takes the team's counter before the
-- tasks, in the programs' lock order (a typed DELETE that locked tasks first deadlocked with
-- an edit). What the app unassigned first, at its own clock's time, leaves it nothing to do. An
-- edit's time never goes back before the task's last (a leaver's chosen time, a slow clock). A team being deleted is skipped (its
-- tasks go with it), and so is a delete with no acting user (the database's administrator at
-- work, who names nobody to make the edits): there the foreign key's SET NULL clears as before.

-- migrate:up
CREATE FUNCTION public.taskbase_unassign(team bigint, member bigint, at timestamptz) RETURNS bigint
    LANGUAGE sql VOLATILE SECURITY INVOKER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    WITH t AS (
        UPDATE public.tasks tk
           SET assignee_id = NULL, version = tk.version + 1, updated_by = public.taskbase_current_user_id(),
               updated_at = GREATEST(at, tk.updated_at)
         WHERE tk.team_id = team AND tk.assignee_id = member
        RETURNING tk.*
    ), history AS (
        INSERT INTO public.task_history (team_id, task_id, task_number, version, actor_id, changed_at, kind, changes)
        SELECT new.team_id, new.id, new.number, new.version, new.updated_by, new.updated_at, 'updated',
               ('[{"field": "assignee", "old": ' || pg_catalog.to_json(old.assignee_id::text)::text || ', "new": null}]')::jsonb
          FROM t AS new JOIN public.tasks old ON old.team_id = new.team_id AND old.number = new.number
    ), counter AS (
        UPDATE public.task_counters c SET last_change = c.last_change + (SELECT pg_catalog.count(*) FROM t)
         WHERE c.team_id = team AND EXISTS (SELECT 1 FROM t)
        RETURNING c.last_change
    ), logged AS (
        INSERT INTO public.task_changes (team_id, sequence, kind, task_id, number, version, actor_id, changed_at)
        SELECT t.team_id, counter.last_change - (SELECT pg_catalog.count(*) FROM t) + pg_catalog.row_number() OVER (ORDER BY t.number),
               'updated', t.id, t.number, t.version, t.updated_by, t.updated_at
          FROM t JOIN counter ON true
    ), notified AS (
        SELECT pg_catalog.pg_notify('taskbase.team.' || tm.key, '') FROM public.teams tm WHERE tm.id = team AND EXISTS (SELECT 1 FROM t)
    )
    SELECT pg_catalog.count(*) FROM t LEFT JOIN notified ON true
    $$;

CREATE FUNCTION public.taskbase_leave_team(team bigint, at timestamptz) RETURNS boolean
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    DECLARE
        me bigint := public.taskbase_current_user_id();
        team_key text;
    BEGIN
        IF me IS NULL OR NOT EXISTS (SELECT 1 FROM public.users u WHERE u.id = me AND NOT u.disabled) THEN
            RETURN false;
        END IF;
        SELECT t.key INTO team_key FROM public.teams t JOIN public.task_counters c ON c.team_id = t.id WHERE t.id = team FOR UPDATE OF c;
        IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM public.memberships m WHERE m.team_id = team AND m.user_id = me) THEN
            RETURN false;
        END IF;
        IF at IS NULL OR NOT pg_catalog.isfinite(at)
           OR at NOT BETWEEN pg_catalog.statement_timestamp() - interval '1 day' AND pg_catalog.statement_timestamp() + interval '1 day' THEN
            at := pg_catalog.statement_timestamp();
        END IF;
        PERFORM public.taskbase_unassign(team, me, at);
        DELETE FROM public.memberships m WHERE m.team_id = team AND m.user_id = me;
        PERFORM pg_catalog.pg_notify('taskbase.team.' || team_key, '');
        RETURN true;
    END
    $$;

CREATE OR REPLACE FUNCTION public.taskbase_leave_team(team bigint) RETURNS boolean
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$ SELECT public.taskbase_leave_team(team, pg_catalog.now()) $$;

CREATE FUNCTION public.taskbase_unassign_removed_member() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        IF public.taskbase_current_user_id() IS NOT NULL AND EXISTS (SELECT 1 FROM public.teams t WHERE t.id = OLD.team_id) THEN
            PERFORM 1 FROM public.task_counters c WHERE c.team_id = OLD.team_id FOR UPDATE;
            PERFORM public.taskbase_unassign(OLD.team_id, OLD.user_id, pg_catalog.statement_timestamp());
        END IF;
        RETURN OLD;
    END
    $$;

CREATE TRIGGER memberships_unassign_removed BEFORE DELETE ON public.memberships
    FOR EACH ROW EXECUTE FUNCTION public.taskbase_unassign_removed_member();

REVOKE ALL ON FUNCTION public.taskbase_unassign(bigint, bigint, timestamptz), public.taskbase_leave_team(bigint, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.taskbase_unassign(bigint, bigint, timestamptz), public.taskbase_leave_team(bigint, timestamptz) TO taskbase_app;

-- migrate:down
DROP TRIGGER memberships_unassign_removed ON public.memberships;
DROP FUNCTION public.taskbase_unassign_removed_member();
CREATE OR REPLACE FUNCTION public.taskbase_leave_team(team bigint) RETURNS boolean
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    DECLARE
        me bigint := public.taskbase_current_user_id();
        team_key text;
    BEGIN
        IF me IS NULL OR NOT EXISTS (SELECT 1 FROM public.users u WHERE u.id = me AND NOT u.disabled) THEN
            RETURN false;
        END IF;
        SELECT t.key INTO team_key FROM public.teams t JOIN public.task_counters c ON c.team_id = t.id WHERE t.id = team FOR UPDATE OF c;
        IF NOT FOUND THEN
            RETURN false;
        END IF;
        DELETE FROM public.memberships m WHERE m.team_id = team AND m.user_id = me;
        IF NOT FOUND THEN
            RETURN false;
        END IF;
        PERFORM pg_catalog.pg_notify('taskbase.team.' || team_key, '');
        RETURN true;
    END
    $$;
DROP FUNCTION public.taskbase_leave_team(bigint, timestamptz);
DROP FUNCTION public.taskbase_unassign(bigint, bigint, timestamptz);
