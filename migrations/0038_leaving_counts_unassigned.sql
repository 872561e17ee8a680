-- Leaving says how many of the leaver's tasks in the team it unassigned.
--
-- A removal reports the number of the member's tasks in the team it unassigned, in the same
-- transaction as the removal. An admin's removal has it: `taskbase_unassign` (0026) returns
-- it. A member leaving goes through `taskbase_leave_team` (SECURITY DEFINER), which dropped
-- it: the leaver may be a viewer, who may not lock the team's counter (so cannot count under
-- it first) and, once out, sees none of the team's tasks (so cannot count after): a count
-- taken before the call misses a task assigned to them meanwhile, which the call unassigns.
--
-- `taskbase_leave_team_unassigning(team, at)` leaves as `taskbase_leave_team(team, at)` did,
-- returning the number unassigned, or NULL when it did nothing (no enabled acting user, no such
-- team, not a member). `taskbase_leave_team(team, at)` stays, for programs built before this
-- migration, as that function's result IS NOT NULL (and the one-argument form, 0026's, calls
-- it). Like 0024's, the new function is SECURITY DEFINER with its search_path pinned and every
-- name qualified (docs/security.md), and only the runtime role may call it.

-- migrate:up
CREATE FUNCTION public.taskbase_leave_team_unassigning(team bigint, at timestamptz) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    DECLARE
        me bigint := public.taskbase_current_user_id();
        team_key text;
        unassigned bigint;
    BEGIN
        IF me IS NULL OR NOT EXISTS (SELECT 1 FROM public.users u WHERE u.id = me AND NOT u.disabled) THEN
            RETURN NULL;
        END IF;
        SELECT t.key INTO team_key FROM public.teams t JOIN public.task_counters c ON c.team_id = t.id WHERE t.id = team FOR UPDATE OF c;
        IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM public.memberships m WHERE m.team_id = team AND m.user_id = me) THEN
            RETURN NULL;
        END IF;
        IF at IS NULL OR NOT pg_catalog.isfinite(at)
           OR at NOT BETWEEN pg_catalog.statement_timestamp() - interval '1 day' AND pg_catalog.statement_timestamp() + interval '1 day' THEN
            at := pg_catalog.statement_timestamp();
        END IF;
        unassigned := public.taskbase_unassign(team, me, at);
        DELETE FROM public.memberships m WHERE m.team_id = team AND m.user_id = me;
        PERFORM pg_catalog.pg_notify('taskbase.team.' || team_key, '');
        RETURN unassigned;
    END
    $$;

CREATE OR REPLACE FUNCTION public.taskbase_leave_team(team bigint, at timestamptz) RETURNS boolean
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$ SELECT public.taskbase_leave_team_unassigning(team, at) IS NOT NULL $$;

REVOKE ALL ON FUNCTION public.taskbase_leave_team_unassigning(bigint, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.taskbase_leave_team_unassigning(bigint, timestamptz) TO taskbase_app;

-- migrate:down
CREATE OR REPLACE FUNCTION public.taskbase_leave_team(team bigint, at timestamptz) RETURNS boolean
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
DROP FUNCTION public.taskbase_leave_team_unassigning(bigint, timestamptz);
