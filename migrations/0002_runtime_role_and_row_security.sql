-- The runtime role and row-level security (docs/design.md, "Trust model": defense in depth).
--
-- taskbase_app is what the programs run as: it reads and writes rows but owns nothing and
-- has no DDL rights. Deployments give it a login through a role of their own
-- (CREATE ROLE taskbase_web LOGIN PASSWORD ...; GRANT taskbase_app TO taskbase_web).
-- Roles are cluster-wide, so creating it tolerates a concurrent creator (several databases
-- of one cluster migrating at once) and the down section leaves it in place.
--
-- Every tenant table lets taskbase_app see and write only the rows of teams the acting user
-- belongs to. The acting user is set per transaction:
--   SET LOCAL taskbase.user_id = '42';      (or set_config('taskbase.user_id', '42', true))
-- With no user set, nothing is visible. Transaction-local settings keep this correct behind
-- PgBouncer in transaction mode. The migration role owns the tables and is not subject to it.

-- migrate:up
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'taskbase_app') THEN
        CREATE ROLE taskbase_app NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOBYPASSRLS;
    END IF;
EXCEPTION
    WHEN duplicate_object OR unique_violation THEN
        NULL;  -- another database of this cluster created it at the same moment
END
$$;

GRANT USAGE ON SCHEMA public TO taskbase_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON users, teams, memberships, task_counters, tasks, task_history TO taskbase_app;
GRANT USAGE ON SEQUENCE users_id_seq, teams_id_seq, tasks_id_seq, task_history_id_seq TO taskbase_app;

-- The acting user of the current transaction, or NULL.
CREATE FUNCTION taskbase_current_user_id() RETURNS bigint
    LANGUAGE sql STABLE
    AS $$ SELECT nullif(current_setting('taskbase.user_id', true), '')::bigint $$;

-- The teams the acting user may see, as an array: those it is a member of, and those it
-- created (so that creating a team and its first membership works). A disabled user sees
-- none. SECURITY DEFINER so that reading memberships here is not itself filtered by the
-- policies below. PL/pgSQL, not SQL, so its query plan is cached for the session (a SQL
-- function that cannot be inlined is planned on every call, which cost ~0.4 ms a policy);
-- policies call it as `(SELECT ...)`, an InitPlan evaluated once per statement.
CREATE FUNCTION taskbase_visible_team_ids() RETURNS bigint[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path FROM CURRENT
    AS $$
    BEGIN
        RETURN ARRAY(
            SELECT m.team_id
              FROM memberships m JOIN users u ON u.id = m.user_id
             WHERE m.user_id = taskbase_current_user_id() AND NOT u.disabled
            UNION
            SELECT t.id
              FROM teams t JOIN users u ON u.id = t.created_by
             WHERE t.created_by = taskbase_current_user_id() AND NOT u.disabled);
    END
    $$;
REVOKE ALL ON FUNCTION taskbase_visible_team_ids() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION taskbase_current_user_id(), taskbase_visible_team_ids() TO taskbase_app;

ALTER TABLE teams ENABLE ROW LEVEL SECURITY;
-- The creator sees a new team at once (INSERT ... RETURNING checks this policy on the new row).
CREATE POLICY teams_visible ON teams FOR SELECT TO taskbase_app
    USING (created_by = taskbase_current_user_id() OR id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));
CREATE POLICY teams_create ON teams FOR INSERT TO taskbase_app
    WITH CHECK (created_by = taskbase_current_user_id());
CREATE POLICY teams_change ON teams FOR UPDATE TO taskbase_app
    USING (id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]))
    WITH CHECK (id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));
CREATE POLICY teams_delete ON teams FOR DELETE TO taskbase_app
    USING (id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));

ALTER TABLE memberships ENABLE ROW LEVEL SECURITY;
CREATE POLICY memberships_team_isolation ON memberships TO taskbase_app
    USING (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]))
    WITH CHECK (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));

ALTER TABLE task_counters ENABLE ROW LEVEL SECURITY;
CREATE POLICY task_counters_team_isolation ON task_counters TO taskbase_app
    USING (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]))
    WITH CHECK (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));

ALTER TABLE tasks ENABLE ROW LEVEL SECURITY;
CREATE POLICY tasks_team_isolation ON tasks TO taskbase_app
    USING (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]))
    WITH CHECK (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));

ALTER TABLE task_history ENABLE ROW LEVEL SECURITY;
CREATE POLICY task_history_team_isolation ON task_history TO taskbase_app
    USING (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]))
    WITH CHECK (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));

-- migrate:down
DROP POLICY task_history_team_isolation ON task_history;
ALTER TABLE task_history DISABLE ROW LEVEL SECURITY;
DROP POLICY tasks_team_isolation ON tasks;
ALTER TABLE tasks DISABLE ROW LEVEL SECURITY;
DROP POLICY task_counters_team_isolation ON task_counters;
ALTER TABLE task_counters DISABLE ROW LEVEL SECURITY;
DROP POLICY memberships_team_isolation ON memberships;
ALTER TABLE memberships DISABLE ROW LEVEL SECURITY;
DROP POLICY teams_delete ON teams;
DROP POLICY teams_change ON teams;
DROP POLICY teams_create ON teams;
DROP POLICY teams_visible ON teams;
ALTER TABLE teams DISABLE ROW LEVEL SECURITY;
DROP FUNCTION taskbase_visible_team_ids();
DROP FUNCTION taskbase_current_user_id();
REVOKE ALL ON SEQUENCE users_id_seq, teams_id_seq, tasks_id_seq, task_history_id_seq FROM taskbase_app;
REVOKE ALL ON users, teams, memberships, task_counters, tasks, task_history FROM taskbase_app;
REVOKE ALL ON SCHEMA public FROM taskbase_app;
